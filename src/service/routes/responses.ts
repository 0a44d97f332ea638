import type { FastifyReply } from "fastify";
import { ErrorBody } from "../../contract/envelope.js";

/** Documents the error statuses a route can answer with, all in the error envelope. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}

/**
 * The statuses every authenticated route can answer with: 400 for a path whose percent-escapes
 * do not decode, 401, 403, 429, 431 for headers over 16 KB, and 503 with Retry-After while the
 * instance stops, its database does not answer, or (a write) a concurrent request on any
 * instance wrote the same data first.
 */
export const authErrors = [400, 401, 403, 429, 431, 503] as const;

/**
 * The statuses of a request whose body is read (POST, PATCH, DELETE; fastify ignores a GET's):
 * 400 for a body that is not JSON, 413 above the body limit, 415 for another media type, 422 for
 * a field it does not take (any field, on a route that takes no body).
 */
export const bodyErrors = [400, 413, 415, 422] as const;

/**
 * The statuses of a POST beyond its own: 422 for invalid fields or a reused Idempotency-Key,
 * 409 while a request with the same key is still in progress.
 */
export const postErrors = [...authErrors, ...bodyErrors, 409, 422] as const;

/**
 * Sends an answer already serialised (and checked against its schema) by the route: fastify
 * sends a string as it is, skipping the per-response schema check and serialisation.
 */
export function sendSerialised(reply: FastifyReply, json: string): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
