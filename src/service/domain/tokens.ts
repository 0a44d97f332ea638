import { createHash, randomBytes } from "node:crypto";
import { scopes as allScopes, type Scope, tokenPrefixes } from "../../contract/scopes.js";
import type { Token } from "../../contract/tokens.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import type { TokenTable } from "../db/schema.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";
import { ServiceError } from "./service-error.js";

/** Who is calling: resolved from the bearer token on every request. */
export interface Principal {
  tokenId: string;
  resellerId: string;
  /** Set for a workspace token, which reaches only that workspace. */
  workspaceId: string | null;
  scopes: ReadonlySet<Scope>;
  /** When the token stops working (ISO 8601), or null. */
  expiresAt: string | null;
}

export type TokenKind = keyof typeof tokenPrefixes;

/** A freshly minted token; `secret` exists only here and is never stored. */
export interface IssuedToken {
  id: string;
  secret: string;
}

/** The hash under which a token is stored and looked up. */
export function hashToken(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A new random token secret with its readable prefix. */
export function generateSecret(kind: TokenKind): string {
  return `${tokenPrefixes[kind]}${randomBytes(24).toString("base64url")}`;
}

/**
 * How a token shows in listings: its prefix and last four characters, but never more than a
 * third of it: a short token chosen by hand (a RESELLER_BOOTSTRAP_TOKEN) would otherwise be
 * shown whole, or nearly, to every token that may list tokens.
 */
export function tokenHint(secret: string): string {
  const shown = Math.min(4, Math.floor(secret.length / 6));
  return `${secret.slice(0, shown)}…${shown === 0 ? "" : secret.slice(-shown)}`;
}

/** Stores a token (as a hash) and returns its id and secret, which is shown once. */
export async function issueToken(
  db: Db,
  clock: Clock,
  input: {
    resellerId: string;
    workspaceId?: string | null;
    name: string;
    scopes: readonly Scope[];
    secret?: string;
    /** ISO time to the second; null or left out: never. */
    expiresAt?: string | null;
  },
): Promise<IssuedToken> {
  const kind: TokenKind = input.workspaceId ? "workspace" : "reseller";
  const secret = input.secret ?? generateSecret(kind);
  const id = newId("tok");
  await db
    .insertInto("tokens")
    .values({
      id,
      reseller_id: input.resellerId,
      workspace_id: input.workspaceId ?? null,
      name: input.name,
      token_hash: hashToken(secret),
      token_hint: tokenHint(secret),
      scopes: JSON.stringify(input.scopes),
      created_at: isoSeconds(clock.now()),
      last_used_at: null,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
    })
    .execute();
  return { id, secret };
}

async function isArchived(db: Db, workspaceId: string): Promise<boolean> {
  const workspace = await db
    .selectFrom("workspaces")
    .select("status")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  return workspace?.status === "archived";
}

/** `last_used_at` is kept to this precision: one write per token per minute at most. */
export const lastUseResolutionMs = 60_000;

/**
 * Records that a token was used, unless its `last_used_at` is less than a minute old. The
 * condition is in the UPDATE, so instances that see the same token at once write it once.
 */
export async function noteTokenUse(db: Db, clock: Clock, tokenId: string): Promise<void> {
  const now = clock.now();
  const staleBefore = isoSeconds(new Date(now.getTime() - lastUseResolutionMs));
  await db
    .updateTable("tokens")
    .set({ last_used_at: isoSeconds(now) })
    .where("id", "=", tokenId)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<=", staleBefore)]))
    .execute();
}

/** Whether a token works now: not revoked, not expired, its workspace (if any) not archived. */
async function usable(
  db: Db,
  clock: Clock,
  row: Pick<TokenTable, "workspace_id" | "expires_at" | "revoked_at">,
): Promise<boolean> {
  if (row.revoked_at !== null) return false;
  if (row.expires_at !== null && row.expires_at <= isoSeconds(clock.now())) return false;
  // An archived workspace's tokens stop working (restoring it brings them back).
  return row.workspace_id === null || !(await isArchived(db, row.workspace_id));
}

/**
 * Whether the token of a principal authenticated earlier still works, for connections that
 * outlive a request (the event stream): a revocation on any instance ends them too.
 */
export async function stillAuthorised(
  db: Db,
  clock: Clock,
  principal: Principal,
): Promise<boolean> {
  const row = await db
    .selectFrom("tokens")
    .select(["workspace_id", "expires_at", "revoked_at"])
    .where("id", "=", principal.tokenId)
    .executeTakeFirst();
  return row !== undefined && (await usable(db, clock, row));
}

/** The principal behind a bearer secret, or null when it is unknown, revoked or expired. */
export async function authenticate(
  db: Db,
  clock: Clock,
  secret: string,
): Promise<Principal | null> {
  const row = await db
    .selectFrom("tokens")
    .select(["id", "reseller_id", "workspace_id", "scopes", "expires_at", "revoked_at"])
    .where("token_hash", "=", hashToken(secret))
    .executeTakeFirst();
  if (!row || !(await usable(db, clock, row))) return null;
  return {
    tokenId: row.id,
    resellerId: row.reseller_id,
    workspaceId: row.workspace_id,
    scopes: new Set(parseJson(row.scopes)),
    expiresAt: row.expires_at,
  };
}

export { allScopes };

/** A token row as the API shows it: never the secret or its hash. */
export function toToken(row: TokenTable): Token {
  return {
    id: row.id,
    name: row.name,
    kind: row.workspace_id === null ? "reseller" : "workspace",
    workspace_id: row.workspace_id,
    scopes: parseJson(row.scopes),
    token_hint: row.token_hint,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  };
}

/** The token the caller authenticated with. */
export async function currentToken(db: Db, principal: Principal): Promise<Token> {
  const row = await db
    .selectFrom("tokens")
    .selectAll()
    .where("id", "=", principal.tokenId)
    .executeTakeFirst();
  if (!row) throw new ServiceError("unauthenticated", "The token is invalid, revoked or expired.");
  return toToken(row);
}
