import type { FastifyReply } from "fastify";
import { ErrorBody } from "../../contract/envelope.js";

/** Documents the error statuses a route can answer with, all in the error envelope. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}

/** The statuses every authenticated route can answer with. */
export const authErrors = [401, 403, 429] as const;

/**
 * The statuses of a POST beyond its own: 422 for invalid fields or a reused Idempotency-Key,
 * 409 while a request with the same key is still in progress.
 */
export const postErrors = [...authErrors, 409, 422] as const;

/**
 * Sends an answer already serialised (and checked against its schema) by the route: fastify
 * sends a string as it is, skipping the per-response schema check and serialisation.
 */
export function sendSerialised(reply: FastifyReply, json: string): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
