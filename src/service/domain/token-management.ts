import { quoted } from "../../contract/errors.js";
import type { ListMeta } from "../../contract/pagination.js";
import type { Scope } from "../../contract/scopes.js";
import type { CreatedToken, CreateTokenBody, Token } from "../../contract/tokens.js";
import type { Db } from "../db/database.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import { lockTokenRow } from "../db/write-conflicts.js";
import { type Clock, isoSeconds } from "./clock.js";
import { invalidField, ServiceError } from "./service-error.js";
import { issueToken, type Principal, stillAuthorised, toToken } from "./tokens.js";
import {
  loadWorkspaceFor,
  requireActiveForClient,
  requireResellerToken,
} from "./workspace-access.js";

/** Whose tokens an operation manages: the reseller's own (workspace null) or one workspace's. */
interface TokenOwner {
  resellerId: string;
  workspaceId: string | null;
}

/** The requested scopes without repeats, refused (422) if the creating token lacks any. */
function grantableScopes(principal: Principal, requested: readonly Scope[]): Scope[] {
  const unique = [...new Set(requested)];
  const lacking = unique.filter((scope) => !principal.scopes.has(scope));
  if (lacking.length > 0) {
    throw invalidField(
      "scopes",
      `a token cannot grant scopes it does not hold; this one lacks ${lacking.join(", ")}`,
    );
  }
  return unique;
}

/**
 * The new token's expiry: the one asked for, in the future, and never after the creating
 * token's own, so a short-lived credential cannot mint a lasting one; without one asked for, the
 * creating token's (null: never).
 */
function grantableExpiry(
  clock: Clock,
  principal: Principal,
  asked: string | null | undefined,
): string | null {
  const expiresAt = asked ? isoSeconds(new Date(asked)) : null;
  if (expiresAt !== null && expiresAt <= isoSeconds(clock.now())) {
    throw invalidField("expires_at", `must be in the future; ${asked} has passed`);
  }
  const limit = principal.expiresAt;
  if (limit === null) return expiresAt;
  if (expiresAt !== null && expiresAt > limit) {
    throw invalidField(
      "expires_at",
      `must be no later than the expiry of the token creating it (${limit}); a token cannot outlive the token that made it`,
    );
  }
  return expiresAt ?? limit;
}

async function createToken(
  db: Db,
  clock: Clock,
  principal: Principal,
  owner: TokenOwner,
  input: CreateTokenBody,
): Promise<CreatedToken> {
  const scopes = grantableScopes(principal, input.scopes);
  const expiresAt = grantableExpiry(clock, principal, input.expires_at);
  const issued = await db.transaction().execute(async (trx) => {
    // Each instance remembers a token for tokenRecheckMs, so one revoked on another instance
    // moments ago still passes authentication here; it must not make a token that outlives it.
    await lockTokenRow(trx, principal.tokenId);
    if (!(await stillAuthorised(trx, clock, principal))) {
      throw new ServiceError("unauthenticated", "The token is invalid, revoked or expired.");
    }
    await refuseBeyondTokenLimit(trx, clock, owner);
    return issueToken(trx, clock, { ...owner, name: input.name, scopes, expiresAt });
  });
  const row = await db
    .selectFrom("tokens")
    .selectAll()
    .where("id", "=", issued.id)
    .executeTakeFirstOrThrow();
  return { ...toToken(row), token: issued.secret };
}

/** The most tokens that work an account (its own) or a workspace may hold at once. */
export const tokenLimit = 100;

/**
 * Each token has its own rate limit and event streams: without a bound, a client could mint
 * tokens to multiply both. Revoked and expired tokens do not count.
 */
async function refuseBeyondTokenLimit(db: Db, clock: Clock, owner: TokenOwner): Promise<void> {
  const now = isoSeconds(clock.now());
  const row = await ownedTokens(db, owner)
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
    .executeTakeFirstOrThrow();
  if (Number(row.n) >= tokenLimit) {
    const whose = owner.workspaceId === null ? "This account" : `Workspace ${owner.workspaceId}`;
    const list =
      owner.workspaceId === null
        ? "reseller tokens list"
        : `reseller workspaces tokens list -w ${owner.workspaceId}`;
    throw new ServiceError(
      "token_limit_reached",
      `${whose} already holds ${tokenLimit} tokens that work, the most it may; revoke one it no longer needs (\`${list}\`).`,
      {
        details: [
          {
            field: "tokens",
            message: `${Number(row.n)} of ${tokenLimit} in use`,
            limit: tokenLimit,
            used: Number(row.n),
          },
        ],
      },
    );
  }
}

function ownedTokens(db: Db, owner: TokenOwner) {
  const query = db.selectFrom("tokens").selectAll().where("reseller_id", "=", owner.resellerId);
  return owner.workspaceId === null
    ? query.where("workspace_id", "is", null)
    : query.where("workspace_id", "=", owner.workspaceId);
}

async function listTokens(
  db: Db,
  owner: TokenOwner,
  page: PageRequest,
): Promise<{ data: Token[]; meta: ListMeta }> {
  const result = await paginate(
    ownedTokens(db, owner).where("revoked_at", "is", null),
    "tokens.id",
    page,
  );
  return { data: result.rows.map(toToken), meta: { pagination: result.pagination } };
}

/**
 * Revokes one token of the owner; revoking it again answers the same record. Only a token
 * holding every scope of the other may revoke it, as only such a token could have made it: a
 * read-only or pricing-page token cannot lock the reseller's full token out.
 */
async function revokeToken(
  db: Db,
  clock: Clock,
  principal: Principal,
  owner: TokenOwner,
  tokenId: string,
): Promise<Token> {
  const row = await ownedTokens(db, owner).where("id", "=", tokenId).executeTakeFirst();
  if (!row) throw new ServiceError("not_found", `Token ${quoted(tokenId)} was not found.`);
  const lacking = toToken(row).scopes.filter((scope) => !principal.scopes.has(scope));
  if (lacking.length > 0) {
    throw new ServiceError(
      "insufficient_scope",
      `Token ${quoted(tokenId)} holds ${lacking.join(", ")}, which this token does not; a token can revoke only tokens whose scopes it holds.`,
    );
  }
  if (row.revoked_at !== null) return toToken(row);
  const revokedAt = isoSeconds(clock.now());
  await db.updateTable("tokens").set({ revoked_at: revokedAt }).where("id", "=", row.id).execute();
  return toToken({ ...row, revoked_at: revokedAt });
}

function resellerOwner(principal: Principal, action: string): TokenOwner {
  requireResellerToken(principal, action);
  return { resellerId: principal.resellerId, workspaceId: null };
}

async function workspaceOwner(db: Db, principal: Principal, workspaceId: string) {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  return { resellerId: workspace.reseller_id, workspaceId: workspace.id };
}

/** Creates a reseller token; only a reseller token may, and only with scopes it holds. */
export async function createResellerToken(
  db: Db,
  clock: Clock,
  principal: Principal,
  input: CreateTokenBody,
): Promise<CreatedToken> {
  const owner = resellerOwner(principal, "create reseller tokens");
  return createToken(db, clock, principal, owner, input);
}

/** The reseller's tokens that are not revoked, newest first. */
export async function listResellerTokens(db: Db, principal: Principal, page: PageRequest) {
  return listTokens(db, resellerOwner(principal, "list reseller tokens"), page);
}

/** Revokes one of the reseller's own tokens (possibly the one making the request). */
export async function revokeResellerToken(
  db: Db,
  clock: Clock,
  principal: Principal,
  tokenId: string,
): Promise<Token> {
  const owner = resellerOwner(principal, "revoke reseller tokens");
  return revokeToken(db, clock, principal, owner, tokenId);
}

/** Creates a token that reaches only this workspace, with scopes the creator holds. */
export async function createWorkspaceToken(
  db: Db,
  clock: Clock,
  principal: Principal,
  workspaceId: string,
  input: CreateTokenBody,
): Promise<CreatedToken> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  // An archived workspace's tokens do not work, so a new one would be a secret that never works.
  if (workspace.status === "archived") {
    throw new ServiceError(
      "workspace_not_active",
      `Workspace '${workspace.id}' is archived and its tokens do not work; restore it first with status active (or suspended).`,
    );
  }
  requireActiveForClient(principal, workspace);
  const owner = { resellerId: workspace.reseller_id, workspaceId: workspace.id };
  return createToken(db, clock, principal, owner, input);
}

/** The workspace's tokens that are not revoked, newest first. */
export async function listWorkspaceTokens(
  db: Db,
  principal: Principal,
  workspaceId: string,
  page: PageRequest,
): Promise<{ data: Token[]; meta: ListMeta }> {
  return listTokens(db, await workspaceOwner(db, principal, workspaceId), page);
}

/** Revokes one of the workspace's tokens. */
export async function revokeWorkspaceToken(
  db: Db,
  clock: Clock,
  principal: Principal,
  workspaceId: string,
  tokenId: string,
): Promise<Token> {
  const owner = await workspaceOwner(db, principal, workspaceId);
  return revokeToken(db, clock, principal, owner, tokenId);
}
