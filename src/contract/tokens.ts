import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope } from "./pagination.js";
import { Scope, scopes } from "./scopes.js";
import { timestampField } from "./timestamps.js";

/** A token as listed: never its secret, only a hint of it. */
export const Token = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(["reseller", "workspace"]),
    workspace_id: z.string().nullable(),
    scopes: z.array(Scope),
    token_hint: z
      .string()
      .describe(
        "Prefix and last four characters, e.g. `rsk_…9f2c`; never more than a third of a short token chosen by hand (hints stored before that rule keep their form).",
      ),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z
      .string()
      .nullable()
      // Answers of services from before the field parse as never expiring.
      .default(null)
      .describe("When the token stops working (401 from then on); null: it never expires."),
    revoked_at: z
      .string()
      .nullable()
      .describe("When the token was revoked; a revoked token answers 401 from then on."),
  })
  .meta({ id: "Token" });
export type Token = z.infer<typeof Token>;

/** The answer to a token creation: the record plus its secret, shown this once only. */
export const CreatedToken = Token.extend({
  token: z.string().describe("The secret to send as `Authorization: Bearer …`; shown only once."),
}).meta({ id: "CreatedToken" });
export type CreatedToken = z.infer<typeof CreatedToken>;

export const CreateTokenBody = z.strictObject({
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .min(1, { error: "name must not be empty" })
    .max(100, { error: "name must be at most 100 characters" })
    .describe("What the token is for, e.g. `pricing page`."),
  scopes: z
    .array(z.enum(scopes, { error: `each scope must be one of ${scopes.join(", ")}` }), {
      error: "scopes must be a list of scopes",
    })
    .min(1, { error: "scopes must name at least one scope" })
    .describe("Scopes of the new token; each must be one the creating token holds."),
  expires_at: timestampField("expires_at", "2030-01-31T23:59:59Z")
    .nullish()
    .describe(
      "When the token stops working, ISO 8601 in the future (kept to the second), and no later than the creating token's own expiry; left out or null, the creating token's expiry (never, when it has none).",
    ),
});
export type CreateTokenBody = z.infer<typeof CreateTokenBody>;

export const TokenIdParams = z.object({ id: z.string().describe("The token's id (`tok_…`).") });

export const WorkspaceTokenParams = z.object({
  id: z.string().describe("The workspace's id."),
  token_id: z.string().describe("The token's id (`tok_…`)."),
});

export const CurrentTokenResponse = successEnvelope(Token, z.object({}));
export const TokenResponse = successEnvelope(Token, EmptyMeta);
export const CreatedTokenResponse = successEnvelope(CreatedToken, EmptyMeta);
export const TokenListResponse = listEnvelope(Token);
