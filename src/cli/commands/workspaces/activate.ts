import type { Handler } from "../../command-spec.js";
import { patchWorkspace } from "./workspace-actions.js";

/** `reseller workspaces activate <id>`: status active again. */
export const run: Handler = async (ctx, { args }) =>
  patchWorkspace(ctx, args[0], { status: "active" }, (what) => `Workspace ${what} is active.`);
