import type { UpdateWorkspaceBody } from "../../../contract/workspaces.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, stringOption } from "../../options.js";
import { patchWorkspace, refusedSuspension } from "./workspace-actions.js";

/**
 * `reseller workspaces update <id> [--name N] [--status active|suspended]`: only what is given;
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
  if (Object.keys(body).length === 0) {
    throw usageError(
      "Nothing to change: pass --name and/or --status.",
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
