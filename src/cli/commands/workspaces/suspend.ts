import { WorkspaceWithUsageResponse } from "../../../contract/workspaces.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { confirmOrYes } from "../../prompts.js";
import { patchWorkspace, workspacePath } from "./workspace-actions.js";

/**
 * `reseller workspaces suspend <id>`: at a terminal it names the workspace and asks first;
 * without one it needs --yes. Suspending is reversible with `workspaces activate`.
 */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const yes = booleanOption(options, "yes");
  let label = id;
  if (!yes && ctx.canPrompt) {
    // Name the workspace in the question, so a mistyped id cannot suspend the wrong client.
    const client = await ctx.client();
    const current = (await client.get(workspacePath(id), WorkspaceWithUsageResponse)).body.data;
    if (current.status === "suspended") {
      return { message: `Workspace ${current.id} (${current.name}) is already suspended.` };
    }
    label = `${current.id} (${current.name})`;
    ctx.info(
      "A suspended workspace refuses writes (contacts, templates, campaigns) until it is activated again.",
    );
  }
  const confirmed = await confirmOrYes(ctx, yes, `Suspend workspace ${label}?`);
  if (!confirmed) return { message: `Cancelled: workspace ${label} was not suspended.` };
  return patchWorkspace(
    ctx,
    id,
    { status: "suspended" },
    (what) => `Workspace ${what} is suspended; \`reseller workspaces activate ${id}\` undoes it.`,
  );
};
