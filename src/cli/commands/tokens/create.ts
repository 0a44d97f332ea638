import type { Handler } from "../../command-spec.js";
import { createToken, resellerTokens } from "./token-actions.js";

/** `reseller tokens create --name N --scope S…`: another reseller token, secret shown once. */
export const run: Handler = (ctx, input) => createToken(ctx, resellerTokens, input);
