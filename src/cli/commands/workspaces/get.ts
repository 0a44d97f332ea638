import { WorkspaceWithUsageResponse } from "../../../contract/workspaces.js";
import type { Handler } from "../../command-spec.js";
import { workspaceWithUsageView } from "./workspace-format.js";
import { workspacePath } from "./workspace-path.js";

/** `reseller workspaces get <id>`: the record and its usage against the plan's limits. */
export const run: Handler = async (ctx, { args }) => {
  const client = await ctx.client();
  const response = await client.get(workspacePath(args[0]), WorkspaceWithUsageResponse);
  return { data: response.raw.data, view: workspaceWithUsageView(response.body.data) };
};
