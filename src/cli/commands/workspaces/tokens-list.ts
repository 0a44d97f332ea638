import type { Handler } from "../../command-spec.js";
import { listTokens, workspaceTokens } from "../tokens/token-actions.js";

/** `reseller workspaces tokens list`: the workspace's tokens that are not revoked. */
export const run: Handler = async (ctx, input) =>
  listTokens(ctx, await workspaceTokens(ctx), input);
