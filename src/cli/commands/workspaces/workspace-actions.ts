import type { UpdateWorkspaceBody } from "../../../contract/workspaces.js";
import { WorkspaceResponse } from "../../../contract/workspaces.js";
import type { CommandResult } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { recordView } from "../../output/view.js";
import { workspaceFields } from "./workspace-format.js";

/** `/api/v1/workspaces/<id>`, the id encoded. */
export function workspacePath(id: string | undefined, rest = ""): string {
  return `/api/v1/workspaces/${encodeURIComponent(id ?? "")}${rest}`;
}

/** PATCHes a workspace and shows the record the service answers. */
export async function patchWorkspace(
  ctx: Context,
  id: string | undefined,
  body: UpdateWorkspaceBody,
  message: (name: string) => string,
): Promise<CommandResult> {
  const client = await ctx.client();
  const response = await client.call("PATCH", workspacePath(id), WorkspaceResponse, { body });
  const workspace = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(workspace, workspaceFields),
    message: message(`${workspace.id} (${workspace.name})`),
  };
}
