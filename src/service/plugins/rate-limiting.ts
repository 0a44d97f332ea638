import rateLimit from "@fastify/rate-limit";
import type { App } from "../app-types.js";
import type { RateLimit } from "../config.js";
import { ServiceError } from "../domain/service-error.js";

/**
 * Per-token rate limiting with the IETF `RateLimit-*` headers and `Retry-After`. It runs after
 * authentication, so the budget belongs to the token, not to an address that many share.
 */
export async function installRateLimiting(app: App, limit: RateLimit): Promise<void> {
  await app.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    enableDraftSpec: true,
    keyGenerator: (request) => request.principal?.tokenId ?? request.ip,
    // Public pages (docs, OpenAPI) carry no scope and are not budgeted.
    allowList: (request) => request.principal === null,
    errorResponseBuilder: (_request, context) =>
      new ServiceError(
        "rate_limited",
        `Rate limit of ${context.max} requests exceeded; retry in ${context.after}.`,
      ),
  });
}
