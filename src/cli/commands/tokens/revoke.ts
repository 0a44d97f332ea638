import type { Handler } from "../../command-spec.js";
import { resellerTokens, revokeToken } from "./token-actions.js";

/** `reseller tokens revoke <token_id>`: asks first at a terminal; --yes otherwise. */
export const run: Handler = (ctx, input) => revokeToken(ctx, resellerTokens, input);
