import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { patchWorkspace, refusedSuspension } from "./workspace-actions.js";

/**
 * `reseller workspaces suspend <id>`: at a terminal it names the workspace and asks first;
 * without one it needs --yes. Suspending is reversible with `workspaces activate`.
 */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const refused = await refusedSuspension(ctx, id, booleanOption(options, "yes"));
  if (refused !== null) return { message: refused };
  return patchWorkspace(ctx, id, { status: "suspended" }, (what, workspace) =>
    // Activating is not an undo for a trial: status active ends the trial (interface.md: any
    // state given active becomes active; docs/guide.md: it clears trial_ends_at).
    workspace.trial_ends_at !== null && workspace.suspended_reason !== "trial_ended"
      ? `Workspace ${what} is suspended during its trial; \`reseller workspaces activate ${id}\` would make it active and end the trial, so it keeps its plan with no end date.`
      : `Workspace ${what} is suspended; \`reseller workspaces activate ${id}\` undoes it.`,
  );
};
