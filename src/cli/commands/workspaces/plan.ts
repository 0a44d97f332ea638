import type { Handler } from "../../command-spec.js";
import { planIdOf } from "../plans/plan-lookup.js";
import { patchWorkspace } from "./workspace-actions.js";

/** `reseller workspaces plan <id> <plan>`: moves the workspace to another plan (id or slug). */
export const run: Handler = async (ctx, { args }) => {
  const plan = args[1] ?? "";
  return patchWorkspace(
    ctx,
    args[0],
    { plan_id: await planIdOf(ctx, plan, "invalid_flag") },
    (what) => `Workspace ${what} is now on plan ${plan}.`,
  );
};
