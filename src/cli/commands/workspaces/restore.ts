import { WorkspaceWithUsageResponse } from "../../../contract/workspaces.js";
import { CliError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { recordView } from "../../output/view.js";
import { patchWorkspace } from "./workspace-actions.js";
import { workspaceFields } from "./workspace-format.js";
import { workspacePath } from "./workspace-path.js";

/**
 * `reseller workspaces restore <id>`: an archived workspace becomes active again. Only an
 * archived one: a suspended workspace is lifted with `activate`, which says what it does.
 */
export const run: Handler = async (ctx, { args }) => {
  const client = await ctx.client();
  const response = await client.get(workspacePath(args[0]), WorkspaceWithUsageResponse);
  const current = response.body.data;
  const label = `${current.id} (${current.name})`;
  if (current.status === "active") {
    return {
      data: response.raw.data,
      view: recordView(current, workspaceFields),
      message: `Workspace ${label} is active already; it was not archived.`,
    };
  }
  if (current.status !== "archived") {
    throw new CliError(
      "conflict",
      `Workspace ${label} is ${current.status}, not archived; nothing was restored.`,
      `Make it active with \`reseller workspaces activate ${current.id}\`.`,
      [],
      "workspace_not_archived",
    );
  }
  return patchWorkspace(
    ctx,
    current.id,
    { status: "active" },
    (what) => `Workspace ${what} is restored and active; its workspace tokens work again.`,
  );
};
