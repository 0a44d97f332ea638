import { randomBytes } from "node:crypto";
import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { allScopes, authenticate, issueToken } from "../domain/tokens.js";

/** How long a dashboard session lasts after sign-in. */
export const sessionLifetimeMs = 12 * 3_600_000;
/** How long the sign-in link `serve` prints stays usable (once). */
export const signInLinkLifetimeMs = 10 * 60_000;
/** The session cookie: HttpOnly, SameSite=Strict, scoped to /dashboard. */
export const sessionCookieName = "reseller_dashboard";

/** A signed-in browser: the bearer token its API calls are made with. */
export interface DashboardSession {
  token: string;
  /** Set when the sign-in link minted the token, so sign-out can revoke it. */
  mintedTokenId: string | null;
  expiresAt: number;
}

function randomKey(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Sessions and one-time sign-in codes, kept in memory: a restart signs everyone out, which
 * suits a local service (a reseller signs in again with a token or serve's new link).
 */
export class DashboardSessions {
  private readonly sessions = new Map<string, DashboardSession>();
  private readonly codes = new Map<string, number>();

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /** A session for a reseller token, or null when the token is unusable or a workspace token's. */
  async signInWithToken(token: string): Promise<string | null> {
    const principal = await authenticate(this.deps.db, this.deps.clock, token.trim());
    if (!principal || principal.workspaceId !== null) return null;
    return this.open({ token: token.trim(), mintedTokenId: null });
  }

  /** A fresh one-time code for the link `serve` prints; it works once, for ten minutes. */
  createSignInCode(): string {
    const code = randomKey();
    this.codes.set(code, this.now() + signInLinkLifetimeMs);
    return code;
  }

  /**
   * Exchanges a one-time code for a session of the service's first reseller account, with a
   * token minted for it that expires with the session; null when the code is unknown, used or old.
   */
  async signInWithCode(code: string): Promise<string | null> {
    const until = this.codes.get(code);
    this.codes.delete(code);
    if (until === undefined || until <= this.now()) return null;
    const reseller = await this.deps.db
      .selectFrom("resellers")
      .select("id")
      .orderBy("created_at")
      .orderBy("id")
      .executeTakeFirst();
    if (!reseller) return null;
    const issued = await issueToken(this.deps.db, this.deps.clock, {
      resellerId: reseller.id,
      name: "Dashboard sign-in link",
      scopes: allScopes,
    });
    const expiresAt = this.now() + sessionLifetimeMs;
    await this.deps.db
      .updateTable("tokens")
      .set({ expires_at: isoSeconds(new Date(expiresAt)) })
      .where("id", "=", issued.id)
      .execute();
    return this.open({ token: issued.secret, mintedTokenId: issued.id });
  }

  private open(session: Omit<DashboardSession, "expiresAt">): string {
    const key = randomKey();
    this.sessions.set(key, { ...session, expiresAt: this.now() + sessionLifetimeMs });
    return key;
  }

  /** The live session behind a cookie value, or null. */
  find(key: string | undefined): DashboardSession | null {
    if (!key) return null;
    const session = this.sessions.get(key);
    if (!session) return null;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(key);
      return null;
    }
    return session;
  }

  /** Ends a session; answers it so the caller can revoke a minted token. */
  close(key: string | undefined): DashboardSession | null {
    const session = this.find(key);
    if (key) this.sessions.delete(key);
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
