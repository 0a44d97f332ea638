import type { FastifyReply, FastifyRequest, onResponseHookHandler } from "fastify";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { ServiceError } from "../domain/service-error.js";
import {
  authenticate,
  lastUseResolutionMs,
  noteTokenUse,
  type Principal,
} from "../domain/tokens.js";
import { requireResellerToken } from "../domain/workspace-access.js";

/**
 * How long a token seen valid is trusted without asking the database again. Another instance
 * may revoke it (or archive its workspace) at any time; this bounds how long we can miss it.
 * A quarter of the promised second, so a slow request on a loaded machine still keeps it.
 */
export const tokenRecheckMs = 250;

/**
 * Counts a request against its caller's budget (the token's, or the client address's when
 * `caller` is null), setting the rate limit headers; throws when the budget is spent.
 */
export type Meter = (
  request: FastifyRequest,
  reply: FastifyReply,
  caller: Principal | null,
) => Promise<void>;

/**
 * Resolves the bearer token of every route that names a scope, has the request counted by
 * `meter` (rate limiting), then checks the token and the scope: 401 for a missing or unusable
 * token, 403 naming the scope it lacks. Counting comes before refusing, so failed attempts are
 * counted too (per client address). An unknown route's request is counted against its token
 * when it has a valid one, without getting a principal (its answer stays the 404).
 */
export function installAuthentication(
  app: App,
  deps: { db: Db; clock: Clock; meter?: Meter | undefined },
): void {
  // Recently seen tokens, so a busy client is not a database lookup per request.
  const known = new Map<string, { principal: Principal; checkedAt: number }>();
  app.decorateRequest("principal", null);
  // Our own revocations take effect at once; other instances' within tokenRecheckMs. A hook of
  // the revoking routes only: every other request is spared it.
  const forget: onResponseHookHandler = (_request, reply, done) => {
    if (reply.statusCode < 300) known.clear();
    done();
  };
  app.addHook("onRoute", (route) => {
    if (!route.config?.revokesToken) return;
    route.onResponse = [...[route.onResponse ?? []].flat(), forget];
  });

  // When this process last recorded each token's use (clock ms): a write a minute at most.
  const noted = new Map<string, number>();
  app.addHook("onSend", (request, reply, _payload, done) => {
    const tokenId = request.principal?.tokenId;
    // Only a request that succeeded: a refused one changes nothing, not even this.
    if (!tokenId || reply.statusCode >= 400) return done();
    const now = deps.clock.now().getTime();
    const last = noted.get(tokenId);
    if (last !== undefined && now - last < lastUseResolutionMs) return done();
    if (noted.size >= 10_000) noted.clear();
    noted.set(tokenId, now);
    noteTokenUse(deps.db, deps.clock, tokenId).then(
      () => done(),
      (error) => {
        // Bookkeeping only: the answer goes out; the next minute's use tries again.
        noted.delete(tokenId);
        request.log.warn({ err: error }, "could not record the token's last use");
        done();
      },
    );
  });

  async function principalFor(secret: string): Promise<Principal | null> {
    const now = Date.now();
    const seen = known.get(secret);
    if (seen && now - seen.checkedAt < tokenRecheckMs) {
      const expiresAt = seen.principal.expiresAt;
      if (!expiresAt || expiresAt > isoSeconds(deps.clock.now())) return seen.principal;
    }
    known.delete(secret);
    const principal = await authenticate(deps.db, deps.clock, secret);
    if (principal) {
      if (known.size >= 10_000) known.clear();
      known.set(secret, { principal, checkedAt: now });
    }
    return principal;
  }

  app.addHook("onRequest", async (request, reply) => {
    const { scope, checksToken, resellerOnly } = request.routeOptions.config;
    if (scope === undefined && !request.is404 && !checksToken) return;
    const header = request.headers.authorization;
    const secret = bearerSecret(request);
    const principal = secret ? await principalFor(secret) : null;
    await deps.meter?.(request, reply, principal);
    if (scope === undefined) return;
    if (!principal) {
      throw new ServiceError(
        "unauthenticated",
        secret
          ? "The token is invalid, revoked or expired, or its workspace is archived."
          : header
            ? "The Authorization header must be 'Bearer <token>'."
            : "Missing bearer token: send 'Authorization: Bearer <token>'.",
      );
    }
    if (scope !== "any" && !principal.scopes.has(scope)) {
      throw new ServiceError(
        "insufficient_scope",
        `This endpoint needs the '${scope}' scope, which the token does not have.`,
      );
    }
    if (resellerOnly !== undefined) requireResellerToken(principal, resellerOnly);
    request.principal = principal;
  });
}

/** The token of a request's `Authorization: Bearer <token>` header, if it has one. */
export function bearerSecret(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  return (header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined) ?? null;
}

/** The caller of a route that names a scope (authentication has run before any handler). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.url} has no scope but needs a caller`);
  return request.principal;
}
