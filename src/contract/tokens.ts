import { z } from "zod";
import { successEnvelope } from "./envelope.js";
import { Scope } from "./scopes.js";

/** A token as listed: never its secret, only a hint of it. */
export const Token = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(["reseller", "workspace"]),
    workspace_id: z.string().nullable(),
    scopes: z.array(Scope),
    token_hint: z.string().describe("Prefix and last four characters, e.g. `rsk_…9f2c`."),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: "Token" });
export type Token = z.infer<typeof Token>;

export const CurrentTokenResponse = successEnvelope(Token, z.object({}));
