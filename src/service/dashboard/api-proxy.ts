import type { App } from "../app-types.js";

/** What the public API answered, as the proxy passes it on. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Response headers of the public API that the browser may see through the proxy. */
const passedHeaders = [
  "content-type",
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "retry-after",
  "idempotent-replayed",
];

/**
 * Calls the public API in process with the session's bearer token: the dashboard sees exactly
 * what any API client sees, through the same authentication, scopes and rate limits.
 */
export async function callApi(
  app: App,
  token: string,
  request: {
    method: string;
    url: string;
    body?: Buffer | string | undefined;
    headers?: Record<string, string | undefined>;
  },
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  for (const [key, value] of Object.entries(request.headers ?? {})) {
    if (value !== undefined) headers[key] = value;
  }
  const response = await app.inject({
    method: request.method as "GET",
    url: request.url,
    headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
  const answerHeaders: Record<string, string> = {};
  for (const name of passedHeaders) {
    const value = response.headers[name];
    if (value !== undefined) answerHeaders[name] = String(value);
  }
  return { status: response.statusCode, headers: answerHeaders, body: response.body };
}
