import type { Handler } from "../../command-spec.js";
import { patchWorkspace } from "./workspace-actions.js";

/** `reseller workspaces restore <id>`: an archived workspace becomes active again. */
export const run: Handler = async (ctx, { args }) =>
  patchWorkspace(
    ctx,
    args[0],
    { status: "active" },
    (what) => `Workspace ${what} is restored and active; its workspace tokens work again.`,
  );
