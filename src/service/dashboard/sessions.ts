import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../db/database.js";
import { decrypt, encrypt, joined, split } from "../domain/aes-gcm.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { allScopes, authenticate, issueToken } from "../domain/tokens.js";

/** How long a dashboard session lasts after sign-in. */
export const sessionLifetimeMs = 12 * 3_600_000;
/** How long the sign-in link `serve` prints stays usable (once). */
export const signInLinkLifetimeMs = 10 * 60_000;
/** That lifetime as `serve` and the dashboard tell it: `10 minutes`. */
export const signInLinkLifetimeText = `${signInLinkLifetimeMs / 60_000} minutes`;
/** The session cookie: HttpOnly, SameSite=Strict, scoped to /dashboard. */
export const sessionCookieName = "reseller_dashboard";

/** A signed-in browser: the bearer token its API calls are made with. */
export interface DashboardSession {
  token: string;
  /** Set when the sign-in link minted the token, so sign-out can revoke it. */
  mintedTokenId: string | null;
}

function randomKey(): string {
  return randomBytes(32).toString("base64url");
}

function sha256(text: string, label = ""): Buffer {
  return createHash("sha256").update(label).update(text).digest();
}

/** The token sealed with a key only the cookie's holder can derive: iv, tag, ciphertext. */
function seal(token: string, key: string): string {
  return joined(encrypt(sha256(key, "dashboard-session:"), token)).toString("base64url");
}

function unseal(text: string, key: string): string | null {
  const parts = split(Buffer.from(text, "base64url"));
  if (!parts) return null;
  try {
    return decrypt(sha256(key, "dashboard-session:"), parts);
  } catch {
    return null;
  }
}

/**
 * Sessions and one-time sign-in codes, kept in the database so that every instance behind a
 * load balancer knows them (and a restart signs nobody out). Only hashes of cookie keys and
 * codes are stored, and each session's token is sealed with a key derived from its cookie.
 */
export class DashboardSessions {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  private later(ms: number): string {
    return isoSeconds(new Date(this.now().getTime() + ms));
  }

  /** A session for a reseller token, or null when the token is unusable or a workspace token's. */
  async signInWithToken(token: string): Promise<string | null> {
    const principal = await authenticate(this.deps.db, this.deps.clock, token.trim());
    if (!principal || principal.workspaceId !== null) return null;
    return this.open({ token: token.trim(), mintedTokenId: null });
  }

  /** A fresh one-time code for the link `serve` prints; it works once, within signInLinkLifetimeMs. */
  async createSignInCode(): Promise<string> {
    const code = randomKey();
    await this.deps.db
      .insertInto("dashboard_sign_in_codes")
      .values({
        code_hash: sha256(code).toString("hex"),
        expires_at: this.later(signInLinkLifetimeMs),
      })
      .execute();
    return code;
  }

  /**
   * Exchanges a one-time code for a session of the service's first reseller account, with a
   * token minted for it that expires with the session; null when the code is unknown, used or old.
   */
  async signInWithCode(code: string): Promise<string | null> {
    // Deleted and read in one statement: of two instances given the same link, one wins.
    const used = await this.deps.db
      .deleteFrom("dashboard_sign_in_codes")
      .where("code_hash", "=", sha256(code).toString("hex"))
      .returning("expires_at")
      .executeTakeFirst();
    if (!used || used.expires_at <= isoSeconds(this.now())) return null;
    const reseller = await this.deps.db
      .selectFrom("resellers")
      .select("id")
      .orderBy("created_at")
      .orderBy("id")
      .executeTakeFirst();
    if (!reseller) return null;
    // Minted with its expiry: never a token without one, held by nobody.
    const issued = await issueToken(this.deps.db, this.deps.clock, {
      resellerId: reseller.id,
      name: "Dashboard sign-in link",
      scopes: allScopes,
      expiresAt: this.later(sessionLifetimeMs),
    });
    return this.open({ token: issued.secret, mintedTokenId: issued.id });
  }

  private async open(session: DashboardSession): Promise<string> {
    const key = randomKey();
    const now = isoSeconds(this.now());
    await this.deps.db.transaction().execute(async (trx) => {
      // Ended sessions and codes are removed as new ones open.
      await trx.deleteFrom("dashboard_sessions").where("expires_at", "<=", now).execute();
      await trx.deleteFrom("dashboard_sign_in_codes").where("expires_at", "<=", now).execute();
      await trx
        .insertInto("dashboard_sessions")
        .values({
          key_hash: sha256(key).toString("hex"),
          token_sealed: seal(session.token, key),
          minted_token_id: session.mintedTokenId,
          expires_at: this.later(sessionLifetimeMs),
        })
        .execute();
    });
    return key;
  }

  /** The live session behind a cookie value, or null. */
  async find(key: string | undefined): Promise<DashboardSession | null> {
    if (!key) return null;
    const row = await this.deps.db
      .selectFrom("dashboard_sessions")
      .select(["token_sealed", "minted_token_id"])
      .where("key_hash", "=", sha256(key).toString("hex"))
      .where("expires_at", ">", isoSeconds(this.now()))
      .executeTakeFirst();
    const token = row ? unseal(row.token_sealed, key) : null;
    return row && token !== null ? { token, mintedTokenId: row.minted_token_id } : null;
  }

  /** Ends a session; answers it so the caller can revoke a minted token. */
  async close(key: string | undefined): Promise<DashboardSession | null> {
    const session = await this.find(key);
    if (key) {
      await this.deps.db
        .deleteFrom("dashboard_sessions")
        .where("key_hash", "=", sha256(key).toString("hex"))
        .execute();
    }
    return session;
  }
}

/** The value of one cookie in a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/** The Set-Cookie value of a session (or of its removal when `key` is null). */
export function sessionCookie(key: string | null, secure: boolean): string {
  const attributes = [
    `${sessionCookieName}=${key ?? ""}`,
    "Path=/dashboard",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${key === null ? 0 : Math.floor(sessionLifetimeMs / 1000)}`,
  ];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}
