import type { Handler } from "../../command-spec.js";
import { listTokens, resellerTokens } from "./token-actions.js";

/** `reseller tokens list`: the reseller's tokens that are not revoked. */
export const run: Handler = (ctx, input) => listTokens(ctx, resellerTokens, input);
