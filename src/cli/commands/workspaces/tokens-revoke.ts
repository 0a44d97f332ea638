import type { Handler } from "../../command-spec.js";
import { revokeToken, workspaceTokens } from "../tokens/token-actions.js";

/** `reseller workspaces tokens revoke <token_id>`: asks first at a terminal; --yes otherwise. */
export const run: Handler = async (ctx, input) =>
  revokeToken(ctx, await workspaceTokens(ctx), input);
