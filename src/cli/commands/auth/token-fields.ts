import type { Token } from "../../../contract/tokens.js";
import type { Column } from "../../output/view.js";

/** How a token record reads at a terminal. */
export const tokenFields: Column<Token>[] = [
  { header: "Token id", key: "id", value: (t) => t.id },
  { header: "Name", key: "name", value: (t) => t.name },
  { header: "Kind", key: "kind", value: (t) => t.kind },
  {
    header: "Workspace",
    key: "workspace_id",
    value: (t) => t.workspace_id,
    display: (t) => t.workspace_id ?? "—",
  },
  { header: "Scopes", key: "scopes", value: (t) => t.scopes.join(" ") },
  { header: "Token", key: "token_hint", value: (t) => t.token_hint },
];
