import { ErrorBody } from "../../contract/envelope.js";

/** Documents the error statuses a route can answer with, all in the error envelope. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}

/** The statuses every authenticated route can answer with. */
export const authErrors = [401, 403, 429] as const;
