import { ApiError } from "../../../client/api-error.js";
import { WorkspaceWithUsageResponse } from "../../../contract/workspaces.js";
import type { Handler } from "../../command-spec.js";
import { textView } from "../../output/view.js";
import { workspacePath } from "./workspace-path.js";

/**
 * `reseller workspaces use <id>`: stores the workspace as the default of the profile in force,
 * after checking with the service that it exists and the token can reach it.
 */
export const run: Handler = async (ctx, { args }) => {
  // It writes the workspace into the profile in force, which it creates when named anew.
  const client = await ctx.client({ profileMayBeNew: true });
  const ws = (
    await client.get(workspacePath(args[0]), WorkspaceWithUsageResponse).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) {
        throw error.withHint("`reseller workspaces list` shows the workspaces this token reaches.");
      }
      throw error;
    })
  ).body.data;
  const settings = await ctx.settings();
  const profile = settings.profile.value;
  await (await ctx.profiles()).update(profile, { workspace: ws.id });
  const notes = [`Default workspace of profile '${profile}' is now ${ws.id} (${ws.name}).`];
  const envWorkspace = ctx.env.RESELLER_WORKSPACE;
  if (envWorkspace && envWorkspace !== ws.id) {
    notes.push(`Note: RESELLER_WORKSPACE=${envWorkspace} is set and still takes precedence.`);
  }
  // Only --quiet prints to stdout: the id now in force; otherwise the note on stderr says it all.
  return {
    data: { profile, workspace_id: ws.id },
    message: notes.join("\n"),
    ...(ctx.output === "quiet" ? { view: textView(() => ws.id, [ws.id]) } : {}),
  };
};
