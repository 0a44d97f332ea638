import { ContactImportListResponse } from "../../../contract/contact-imports.js";
import type { Handler } from "../../command-spec.js";
import { fetchList } from "../../paged-list.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { importTable } from "./contact-format.js";

/** `reseller contacts imports list`: the workspace's imports, newest first. */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const list = await fetchList(
    client,
    workspacePath(workspaceId, "/contacts/imports"),
    ContactImportListResponse,
    options,
    {},
    "imports",
  );
  return { data: list.data, view: importTable(list.rows), message: list.message };
};
