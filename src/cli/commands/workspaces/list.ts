import { WorkspaceListResponse } from "../../../contract/workspaces.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { fetchList } from "../../paged-list.js";
import { workspaceTable } from "./workspace-format.js";

/** `reseller workspaces list`: the reseller's workspaces, newest first, one page or --all. */
export const run: Handler = async (ctx, { options }) => {
  const client = await ctx.client();
  const list = await fetchList(
    client,
    "/api/v1/workspaces",
    WorkspaceListResponse,
    options,
    { status: stringOption(options, "status") },
    "workspaces",
  );
  return { data: list.data, view: workspaceTable(list.rows), message: list.message };
};
