import type { UpdateWorkspaceBody } from "../../../contract/workspaces.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, stringOption } from "../../options.js";
import { planIdOf } from "../plans/plan-lookup.js";
import { patchWorkspace, refusedSuspension } from "./workspace-actions.js";

/**
 * `reseller workspaces update <id> [--name N] [--status active|suspended] [--plan P]`: only what is given;
 * suspending asks first (or needs --yes), as `workspaces suspend` does.
 */
export const run: Handler = async (ctx, { args, options }) => {
  const body: UpdateWorkspaceBody = {};
  const name = stringOption(options, "name");
  const status = stringOption(options, "status");
  if (name !== undefined) {
    if (name.trim() === "") throw usageError("--name must not be empty.");
    body.name = name;
  }
  if (status === "active" || status === "suspended") body.status = status;
  const plan = stringOption(options, "plan");
  if (plan !== undefined) body.plan_id = await planIdOf(ctx, plan, "invalid_flag");
  if (Object.keys(body).length === 0) {
    throw usageError(
      "Nothing to change: pass --name, --status or --plan.",
      "See `reseller workspaces update --help`.",
    );
  }
  // Suspending is the same act as `workspaces suspend`, so it asks the same way.
  if (body.status === "suspended") {
    const refused = await refusedSuspension(ctx, args[0] ?? "", booleanOption(options, "yes"));
    if (refused !== null) return { message: refused };
  }
  return patchWorkspace(ctx, args[0], body, (what) => `Updated workspace ${what}.`);
};
