import type { FastifyRequest } from "fastify";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { ServiceError } from "../domain/service-error.js";
import { authenticate, type Principal } from "../domain/tokens.js";

/**
 * Resolves the bearer token of every route that names a scope, then checks that scope:
 * 401 for a missing or unusable token, 403 naming the scope it lacks.
 */
export function installAuthentication(app: App, deps: { db: Db; clock: Clock }): void {
  // Recently seen tokens, so a busy client is not a database lookup per request. Revocation
  // (a route with `revokesToken`) clears it; expiry is checked on every use.
  const known = new Map<string, Principal>();
  app.decorateRequest("principal", null);
  app.addHook("onResponse", async (request, reply) => {
    if (request.routeOptions.config.revokesToken && reply.statusCode < 300) known.clear();
  });
  app.addHook("onRequest", async (request) => {
    const scope = request.routeOptions.config.scope;
    if (scope === undefined) return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      throw new ServiceError(
        "unauthenticated",
        header
          ? "The Authorization header must be 'Bearer <token>'."
          : "Missing bearer token: send 'Authorization: Bearer <token>'.",
      );
    }
    const secret = match[1];
    let principal = known.get(secret) ?? null;
    if (principal?.expiresAt && principal.expiresAt <= isoSeconds(deps.clock.now())) {
      known.delete(secret);
      principal = null;
    }
    if (!principal) {
      principal = await authenticate(deps.db, deps.clock, secret);
      if (principal) {
        if (known.size >= 10_000) known.clear();
        known.set(secret, principal);
      }
    }
    if (!principal) {
      throw new ServiceError("unauthenticated", "The token is invalid, revoked or expired.");
    }
    if (scope !== "any" && !principal.scopes.has(scope)) {
      throw new ServiceError(
        "insufficient_scope",
        `This endpoint needs the '${scope}' scope, which the token does not have.`,
      );
    }
    request.principal = principal;
  });
}

/** The caller of a route that names a scope (authentication has run before any handler). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.url} has no scope but needs a caller`);
  return request.principal;
}
