import type { Handler } from "../../command-spec.js";
import { patchWorkspace } from "./workspace-actions.js";

/** `reseller workspaces plan <id> <plan-id>`: moves the workspace to another plan. */
export const run: Handler = async (ctx, { args }) =>
  patchWorkspace(
    ctx,
    args[0],
    { plan_id: args[1] ?? "" },
    (what) => `Workspace ${what} is now on plan ${args[1]}.`,
  );
