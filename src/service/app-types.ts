import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Scope } from "../contract/scopes.js";
import type { Principal } from "./domain/tokens.js";

/** The fastify instance with zod schemas as its type provider. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The scope a route needs, or "any" for any valid token; a route without one is public
     * (docs, OpenAPI).
     */
    scope?: Scope | "any";
  }
  interface FastifyRequest {
    /** The authenticated caller; set on every route that names a scope. */
    principal: Principal | null;
  }
}
