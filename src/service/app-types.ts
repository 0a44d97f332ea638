import type { IncomingMessage, ServerResponse } from "node:http";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawServerDefault,
} from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { ErrorDetail } from "../contract/envelope.js";
import type { Scope } from "../contract/scopes.js";
import type { Principal } from "./domain/tokens.js";
import type { JobRunner } from "./jobs/job-runner.js";

/** The fastify instance with zod schemas as its type provider. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

declare module "fastify" {
  interface FastifyInstance {
    /** The durable job runner: `serve` starts it; tests call `runDue()`. */
    jobs: JobRunner;
    /**
     * Sets an answer's RateLimit-* headers from its client address's budget, unless counted
     * already; for answers given outside any route (rate-limiting.ts).
     */
    announceBudget(request: FastifyRequest, reply: FastifyReply): void;
    /**
     * The RateLimit-* headers of a client address's budget as it stands, for answers written
     * to the socket before fastify has a request (clientErrorHandler).
     */
    addressBudget(address: string): Record<string, number>;
  }
  interface FastifyContextConfig {
    /**
     * The scope a route needs, or "any" for any valid token; a route without one is public
     * (docs, OpenAPI).
     */
    scope?: Scope | "any";
    /** The route revokes tokens: authentication forgets the tokens it remembered. */
    revokesToken?: true;
    /**
     * A public route that checks a token sent in its body (the dashboard's sign-in): counted
     * against its client address's budget, so tokens cannot be guessed through it at full speed.
     */
    checksToken?: true;
    /**
     * The success response carries a secret (a new token, a signing secret): it is stored for an
     * Idempotency-Key replay only sealed with the asking token (domain/sealed-responses.ts).
     */
    secretInResponse?: boolean;
    /**
     * What a workspace token may not do on this route whatever its scopes ("create workspaces"):
     * refused 403 as soon as the token is known, before its body or query is read, so a client
     * is never told to fix a request it can never make.
     */
    resellerOnly?: string;
    /**
     * The body's own rules beyond its schema's types (a template's name, components…): when the
     * schema refuses the body, their problems are named in the same 422, so every bad field is
     * told at once rather than one stage at a time.
     */
    bodyRules?: (body: unknown) => ErrorDetail[];
  }
  interface FastifyRequest {
    /** The authenticated caller; set on every route that names a scope. */
    principal: Principal | null;
  }
}
