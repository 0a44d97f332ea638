import { ContactResponse } from "../../../contract/contacts.js";
import type { Handler } from "../../command-spec.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { contactView } from "./contact-format.js";

/** `reseller contacts get <id>`: one contact with its custom fields and consent. */
export const run: Handler = async (ctx, { args }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.get(
    workspacePath(workspaceId, `/contacts/${encodeURIComponent(args[0] ?? "")}`),
    ContactResponse,
  );
  return { data: response.raw.data, view: contactView(response.body.data) };
};
