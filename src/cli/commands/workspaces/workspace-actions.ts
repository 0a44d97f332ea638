import type { UpdateWorkspaceBody, Workspace } from "../../../contract/workspaces.js";
import { WorkspaceResponse, WorkspaceWithUsageResponse } from "../../../contract/workspaces.js";
import type { CommandResult } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { recordView } from "../../output/view.js";
import { confirmOrYes } from "../../prompts.js";
import { workspaceFields } from "./workspace-format.js";
import { workspacePath } from "./workspace-path.js";

/** PATCHes a workspace and shows the record the service answers. */
export async function patchWorkspace(
  ctx: Context,
  id: string | undefined,
  body: UpdateWorkspaceBody,
  message: (name: string, workspace: Workspace) => string,
): Promise<CommandResult> {
  const client = await ctx.client();
  const response = await client.call("PATCH", workspacePath(id), WorkspaceResponse, { body });
  const workspace = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(workspace, workspaceFields),
    message: message(`${workspace.id} (${workspace.name})`, workspace),
  };
}

/**
 * Asks before a workspace is suspended (`workspaces suspend`, `update --status suspended`): at a
 * terminal it names the workspace, so a mistyped id cannot suspend the wrong client, and says
 * what suspending does; without one it needs --yes. The message to end with instead, or null
 * to go on.
 */
export async function refusedSuspension(
  ctx: Context,
  id: string,
  yes: boolean,
): Promise<string | null> {
  let label = id;
  if (!yes && ctx.canPrompt) {
    const client = await ctx.client();
    const current = (await client.get(workspacePath(id), WorkspaceWithUsageResponse)).body.data;
    if (current.status === "suspended") {
      return `Workspace ${current.id} (${current.name}) is already suspended.`;
    }
    label = `${current.id} (${current.name})`;
    ctx.info(
      "A suspended workspace refuses writes (contacts, templates, campaigns) until it is activated again.",
    );
  }
  const confirmed = await confirmOrYes(ctx, yes, `Suspend workspace ${label}?`);
  return confirmed ? null : `Cancelled: workspace ${label} was not suspended.`;
}
