import { WorkspaceResponse, WorkspaceWithUsageResponse } from "../../../contract/workspaces.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { confirmOrYes } from "../../prompts.js";
import { workspaceFields } from "./workspace-format.js";
import { workspacePath } from "./workspace-path.js";

/** `reseller workspaces archive <id>`: asks at a terminal (naming it); --yes otherwise. */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const yes = booleanOption(options, "yes");
  const client = await ctx.client();
  let label = id;
  if (!yes && ctx.canPrompt) {
    const current = (await client.get(workspacePath(id), WorkspaceWithUsageResponse)).body.data;
    label = `${current.id} (${current.name})`;
    ctx.info(
      "An archived workspace is read-only, sends nothing, and its workspace tokens stop working; `reseller workspaces restore` undoes it.",
    );
  }
  if (!(await confirmOrYes(ctx, yes, `Archive workspace ${label}?`))) {
    return { message: `Cancelled: workspace ${label} was not archived.` };
  }
  const response = await client.call("POST", workspacePath(id, "/archive"), WorkspaceResponse);
  const workspace = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(workspace, workspaceFields),
    message: `Workspace ${workspace.id} (${workspace.name}) is archived; \`reseller workspaces restore ${workspace.id}\` brings it back.`,
  };
};
