import type { Handler } from "../../command-spec.js";
import { createToken, workspaceTokens } from "../tokens/token-actions.js";

/** `reseller workspaces tokens create --name N --scope S…`: a wsk_ token, secret shown once. */
export const run: Handler = async (ctx, input) =>
  createToken(ctx, await workspaceTokens(ctx), input);
