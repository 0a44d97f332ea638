import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../app-types.js";
import type { RateLimit } from "../config.js";
import type { Db } from "../db/database.js";
import { clientAddressKey } from "../domain/client-address.js";
import type { Clock } from "../domain/clock.js";
import { type RateDecision, SharedRateCounter } from "../domain/rate-limit-buckets.js";
import { ServiceError } from "../domain/service-error.js";
import { loggedFailureRun } from "../failure-run.js";
import type { Meter } from "./authentication.js";

/**
 * Rate limiting with the IETF `RateLimit-*` headers and `Retry-After`, counted across every
 * instance on the database; authentication calls it once it has resolved the token and before
 * it refuses one (see installAuthentication), so the budget belongs to the token, and requests
 * without a valid token (none, unknown, revoked) spend their client address's budget: tokens
 * cannot be guessed at full speed. Every route with a scope, every unknown route and the
 * dashboard's token sign-in (`checksToken`) is counted;
 * public pages (docs, OpenAPI, health checks, provider webhooks) are not, and carry their
 * address's budget as it stands.
 */
export function rateLimitMeter(app: App, limit: RateLimit, deps: { db: Db; clock: Clock }): Meter {
  // A database outage fails every round of writes (4 a second): said once, then each minute.
  const outage = loggedFailureRun(
    app.log,
    "rate limit counts not written yet",
    "rate limit counts written again",
  );
  const counter = new SharedRateCounter(deps.db, deps.clock, limit, {
    onError: (error) => outage.failed(error),
    onWritten: () => outage.succeeded(),
  });
  // Unwritten counts go to the database before it closes.
  app.addHook("onClose", () => counter.close());
  const headers = (decision: RateDecision) => ({
    "RateLimit-Limit": decision.limit,
    "RateLimit-Remaining": decision.remaining,
    "RateLimit-Reset": Math.max(1, Math.ceil(decision.resetMs / 1000)),
  });
  const announce = (reply: FastifyReply, decision: RateDecision) => {
    const budget = headers(decision);
    reply.headers(budget);
    return budget["RateLimit-Reset"];
  };
  // An IPv6 client counts by its /64, as sign-ups do: otherwise each of its addresses guesses anew.
  const addressBucket = (address: string) => `address:${clientAddressKey(address)}`;
  app.decorate("addressBudget", (address: string) => headers(counter.peek(addressBucket(address))));
  // The contract: every response carries the headers. A public page (a load balancer's health
  // check, a provider's webhook) is not counted, so it says what its address has left.
  app.decorate("announceBudget", (request: FastifyRequest, reply: FastifyReply) => {
    if (!reply.hasHeader("RateLimit-Limit"))
      announce(reply, counter.peek(addressBucket(request.ip)));
  });
  app.addHook("onSend", (request, reply, _payload, done) => {
    app.announceBudget(request, reply);
    done();
  });
  return async (request, reply, caller) => {
    const bucket = caller ? `token:${caller.tokenId}` : addressBucket(request.ip);
    const decision = await counter.hit(bucket);
    const resetSeconds = announce(reply, decision);
    if (!decision.allowed) {
      reply.header("Retry-After", resetSeconds);
      throw new ServiceError(
        "rate_limited",
        `Rate limit of ${decision.limit} requests exceeded; retry in ${resetSeconds} s.`,
      );
    }
  };
}
