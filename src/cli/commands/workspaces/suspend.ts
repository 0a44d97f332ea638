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
  return patchWorkspace(
    ctx,
    id,
    { status: "suspended" },
    (what) => `Workspace ${what} is suspended; \`reseller workspaces activate ${id}\` undoes it.`,
  );
};
