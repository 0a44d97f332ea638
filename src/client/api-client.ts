import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { Pagination } from "../contract/pagination.js";
import { redactedUrl } from "../contract/redacted-url.js";
import { parseRetryAfter } from "../contract/retry-after.js";
import { ApiError, type ApiErrorDetail } from "./api-error.js";
import { idempotencyKeySequence } from "./idempotency-keys.js";
import {
  defaultRetryPolicy,
  isRetryableStatus,
  type RetryPolicy,
  retryDelayMs,
} from "./retry-policy.js";
import { EnvHttpProxyAgent, failingTunnels, Pool, request } from "./undici-parts.js";

// Node loads its crypto module (for the global `crypto`) and perf_hooks (for `performance`)
// on first use: a GET spends neither, a few milliseconds of every command's start-up.
/** A monotonic clock in milliseconds, for the exchange times `--debug` shows. */
function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** A retry the client is about to make, so the caller can say so. */
export interface RetryEvent {
  method: HttpMethod;
  path: string;
  attempt: number;
  waitMs: number;
  reason: string;
}

/** One request/response pair, for `--debug`. */
export interface ExchangeEvent {
  method: HttpMethod;
  url: string;
  status: number | null;
  ms: number;
  requestId: string | null;
  error?: string;
}

export interface ApiClientOptions {
  baseUrl: string;
  token?: string | undefined;
  userAgent: string;
  /** Defaults to an agent that honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY. */
  dispatcher?: Dispatcher;
  connectTimeoutMs?: number;
  responseTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * The Idempotency-Key of each new POST (its retries keep it, so they never do its work twice);
   * by default this client's own sequence of one random key (see idempotencyKeySequence).
   */
  idempotencyKeys?: () => string;
  onRetry?: (event: RetryEvent) => void;
  /**
   * A POST answered on its first attempt with `Idempotent-Replayed: true`: its key was used by
   * an earlier run, so the answer is that run's and nothing was done now.
   */
  onReplay?: (event: { method: HttpMethod; path: string }) => void;
  onExchange?: (event: ExchangeEvent) => void;
  sleep?: (ms: number) => Promise<void>;
}

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  /** A body streamed as it is read (a file upload) instead of `body` as JSON; opened per attempt. */
  upload?: { contentType: string; open: () => NodeJS.ReadableStream };
}

/** The success envelope as the service sent it, before any parsing. */
export interface RawEnvelope {
  status: string;
  data: unknown;
  /** A list's answer holds its `pagination`. */
  meta: { pagination?: Pagination; [key: string]: unknown };
}

/** A parsed response, with the body also kept verbatim for `--json`. */
export interface ApiResponse<T> {
  status: number;
  body: T;
  raw: RawEnvelope;
  requestId: string | null;
  headers: Record<string, string | string[] | undefined>;
}

// Failures a later attempt may not meet: a refused connection included, since a service being
// restarted (or an instance behind a balancer being replaced) refuses for a moment. A response
// timeout is not among them: the service has the request and went quiet, and asking again would
// keep a user waiting four times the timeout for the same silence.
const networkErrorCodes = new Set([
  "ECONNREFUSED",
  "EAI_AGAIN",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Of those, the failures to open a connection at all: the request never left. */
const neverSentCodes = new Set(["ECONNREFUSED", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** How long a connection may take to open, and an answer to start, unless told otherwise. */
const defaultConnectTimeoutMs = 10_000;
const defaultResponseTimeoutMs = 60_000;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The typed HTTP client of the reseller API: auth, timeouts, retries, paging, one error type. */
export class ApiClient {
  readonly baseUrl: string;
  private readonly options: ApiClientOptions;
  private readonly retry: RetryPolicy;
  private readonly dispatcher: Dispatcher;
  private readonly postKeys: () => string;

  constructor(options: ApiClientOptions) {
    this.options = options;
    this.postKeys = options.idempotencyKeys ?? idempotencyKeySequence();
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.dispatcher = options.dispatcher ?? this.ownDispatcher();
  }

  /** The agent this client makes when given none: it honours HTTP_PROXY, HTTPS_PROXY, NO_PROXY. */
  private ownDispatcher(): Dispatcher {
    return new EnvHttpProxyAgent({
      connect: { timeout: this.options.connectTimeoutMs ?? defaultConnectTimeoutMs },
      // The proxy's answer to the tunnel request (CONNECT) waits no longer than any answer:
      // undici's own default for it is five minutes.
      clientFactory: (origin, clientOptions) =>
        failingTunnels(
          new Pool(origin, {
            ...clientOptions,
            headersTimeout: this.options.responseTimeoutMs ?? defaultResponseTimeoutMs,
          }),
        ),
    });
  }

  /** GET and parse the envelope with `schema`. */
  get<S extends z.ZodType>(path: string, schema: S, query?: Record<string, QueryValue>) {
    return this.call("GET", path, schema, query ? { query } : {});
  }

  /** Sends a request and parses the success envelope with `schema`. */
  async call<S extends z.ZodType>(
    method: HttpMethod,
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<ApiResponse<z.output<S>>> {
    const response = await this.send(method, path, options);
    const parsed = schema.safeParse(response.json);
    if (!parsed.success && !isSuccessEnvelope(response.json)) {
      // Not the service's answer at all: a wrong port or base URL, or a proxy's page.
      throw new ApiError({
        kind: "invalid_response",
        status: response.status,
        requestId: response.requestId,
        message: `${this.baseUrl} answered ${method} ${path} without the reseller service's JSON envelope ({"status":"success",…}): the base URL may not be the reseller service's.`,
      });
    }
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new ApiError({
        kind: "invalid_response",
        status: response.status,
        requestId: response.requestId,
        message: `The service's response to ${method} ${path} does not match the contract${first ? ` (${first.path.join(".")}: ${first.message})` : ""}: this client may be older than the service.`,
      });
    }
    return {
      status: response.status,
      body: parsed.data,
      raw: response.json as RawEnvelope,
      requestId: response.requestId,
      headers: response.headers,
    };
  }

  /**
   * Follows `meta.pagination.next_cursor` from the first page to the last, one page at a time;
   * `z.unknown()` as the schema leaves each page as the service sent it (`reseller api`).
   */
  async *pages<S extends z.ZodType>(
    path: string,
    schema: S,
    query: Record<string, QueryValue> = {},
  ): AsyncGenerator<ApiResponse<z.output<S>>> {
    let cursor: string | null = null;
    do {
      const page: ApiResponse<z.output<S>> = await this.get(path, schema, {
        ...query,
        ...(cursor ? { cursor, page: undefined } : {}),
      });
      yield page;
      // `meta` may be missing when the schema did not ask for it (an answer of any shape).
      cursor = page.raw.meta?.pagination?.next_cursor ?? null;
    } while (cursor);
  }

  /** Sends a request, retrying what is safe to retry; any non-2xx answer is an ApiError. */
  async send(
    method: HttpMethod,
    path: string,
    options: RequestOptions = {},
  ): Promise<{
    status: number;
    json: unknown;
    requestId: string | null;
    headers: Record<string, string | string[] | undefined>;
  }> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": this.options.userAgent,
      ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...(options.upload ? { "content-type": options.upload.contentType } : {}),
      ...options.headers,
    };
    if (method === "POST" && !headers["idempotency-key"]) {
      headers["idempotency-key"] = this.postKeys();
    }
    // A request is safe to repeat after no answer when repeating it cannot do the work twice.
    // A 429 or 503 says the work was not done, so every method is repeated after one (a PATCH
    // included), as the CLI contract's retries promise.
    const repeatable = method === "GET" || method === "DELETE" || "idempotency-key" in headers;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);

    // Whether an earlier attempt of this call may have done the work (it got no answer, or a 5xx
    // that cannot say): a replay is then this call's own answer, not an earlier run's.
    let mayHaveRun = false;
    // Retries after no answer, a 429 or a 503; waits for an earlier attempt still running (a 409
    // with Retry-After) have a budget of their own: a service that restarted mid-request keeps the
    // dead attempt's key until its lease ends, after the network errors spent the retries.
    let retried = 0;
    let waitedForFirst = 0;
    for (;;) {
      const started = nowMs();
      let status: number;
      let text: string;
      let responseHeaders: Record<string, string | string[] | undefined>;
      try {
        const response = await request(url, {
          method,
          headers,
          body: options.upload ? (options.upload.open() as Readable) : body,
          dispatcher: this.dispatcher,
          headersTimeout: this.options.responseTimeoutMs ?? defaultResponseTimeoutMs,
          bodyTimeout: this.options.responseTimeoutMs ?? defaultResponseTimeoutMs,
        });
        status = response.statusCode;
        responseHeaders = response.headers;
        text = await response.body.text();
      } catch (cause) {
        const code = (cause as { code?: string }).code ?? "";
        const timedOut = code.includes("TIMEOUT") || code === "ETIMEDOUT";
        this.options.onExchange?.({
          method,
          url,
          status: null,
          ms: nowMs() - started,
          requestId: null,
          error: code || String(cause),
        });
        // A connection never opened took nothing to the service: any method is sent again.
        const neverSent = neverSentCodes.has(code);
        if (
          (repeatable || neverSent) &&
          networkErrorCodes.has(code) &&
          retried < this.retry.maxRetries
        ) {
          if (!neverSent) mayHaveRun = true;
          retried += 1;
          await this.wait(method, path, retried, null, `network error ${code}`);
          continue;
        }
        // A proxy's own refusal (a closed tunnel, a 407, a non-200 answer) is told as the
        // proxy's, so nobody looks for the fault in the service.
        const byProxy = /proxy/i.test((cause as Error).message ?? "");
        throw new ApiError({
          kind: timedOut ? "timeout" : "network",
          message: byProxy
            ? `Cannot reach the service at ${this.shownBaseUrl} through the proxy (HTTP_PROXY / HTTPS_PROXY): ${(cause as Error).message}.`
            : timedOut
              ? `The service at ${this.shownBaseUrl} did not answer in time (${code}).`
              : `Cannot reach the service at ${this.shownBaseUrl} (${code || (cause as Error).message}).`,
          cause,
        });
      }
      const requestId = headerValue(responseHeaders["x-request-id"]);
      this.options.onExchange?.({
        method,
        url,
        status,
        ms: nowMs() - started,
        requestId,
      });
      const retryAfter = parseRetryAfter(headerValue(responseHeaders["retry-after"]) ?? undefined);
      const json = parseJson(text);
      if (isRetryableStatus(status) && retried < this.retry.maxRetries) {
        mayHaveRun ||= status >= 500;
        retried += 1;
        await this.wait(method, path, retried, retryAfter, `HTTP ${status}`);
        continue;
      }
      if (repeatable && stillRunning(status, json) && waitedForFirst < this.retry.maxRetries) {
        waitedForFirst += 1;
        await this.wait(method, path, waitedForFirst, retryAfter, `HTTP ${status}`);
        continue;
      }
      if (status >= 200 && status < 300) {
        // A 429 or a 409 "still running" did nothing: a replay after them is an earlier run's.
        if (!mayHaveRun && headerValue(responseHeaders["idempotent-replayed"]) === "true") {
          this.options.onReplay?.({ method, path });
        }
        return { status, json, requestId, headers: responseHeaders };
      }
      throw errorFromResponse(status, json, requestId, retryAfter, method, path);
    }
  }

  /** The base URL as messages show it: a password in it is hidden. */
  get shownBaseUrl(): string {
    return redactedUrl(this.baseUrl);
  }

  /**
   * Opens a long-lived GET (Server-Sent Events) and yields the body's text as it arrives, until
   * the service ends it or `signal` aborts; a non-2xx answer is an ApiError as for `send`.
   */
  async *stream(
    path: string,
    query: Record<string, QueryValue> = {},
    signal?: AbortSignal,
    lastEventId?: string,
  ): AsyncGenerator<string> {
    const method = "GET";
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(this.url(path, query), {
        method,
        headers: {
          accept: "text/event-stream",
          "user-agent": this.options.userAgent,
          ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
          // A reconnect resumes after the last event seen, as EventSource does.
          ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        },
        dispatcher: this.dispatcher,
        headersTimeout: this.options.responseTimeoutMs ?? defaultResponseTimeoutMs,
        // The stream is idle between events; the service's keep-alive comes every 15 s.
        bodyTimeout: 0,
        ...(signal ? { signal } : {}),
      });
    } catch (cause) {
      if (signal?.aborted) return;
      const code = (cause as { code?: string }).code ?? "";
      throw new ApiError({
        kind: "network",
        message: `Cannot reach the service at ${this.shownBaseUrl} (${code || (cause as Error).message}).`,
        cause,
      });
    }
    const requestId = headerValue(response.headers["x-request-id"]);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const json = parseJson(await response.body.text());
      throw errorFromResponse(response.statusCode, json, requestId, null, method, path);
    }
    // A decoder that keeps a character split across chunks whole.
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        yield decoder.decode(chunk as Uint8Array, { stream: true });
      }
    } catch (cause) {
      if (signal?.aborted) return;
      // The connection broke mid-stream (the service died, a proxy reset it): unreachable now.
      throw new ApiError({
        kind: "network",
        message: `Lost the stream from ${this.shownBaseUrl} (${(cause as { code?: string }).code ?? (cause as Error).message}).`,
        cause,
      });
    }
  }

  private async wait(
    method: HttpMethod,
    path: string,
    attempt: number,
    retryAfter: number | null,
    reason: string,
  ) {
    const waitMs = retryDelayMs(this.retry, attempt, retryAfter);
    this.options.onRetry?.({ method, path, attempt, waitMs, reason });
    await (this.options.sleep ?? sleepFor)(waitMs);
  }

  private url(path: string, query: Record<string, QueryValue> = {}): string {
    const url = new URL(`${this.baseUrl}${path.startsWith("/") ? path : `/${path}`}`);
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
      else url.searchParams.set(key, String(value));
    }
    return url.toString();
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * The first request with this Idempotency-Key is still running elsewhere (a retry that came too
 * soon): asking again after Retry-After gets its answer, and never does the work twice.
 */
function stillRunning(status: number, json: unknown): boolean {
  return (
    status === 409 &&
    typeof json === "object" &&
    json !== null &&
    (json as { error_code?: unknown }).error_code === "idempotency_request_in_progress"
  );
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorFromResponse(
  status: number,
  json: unknown,
  requestId: string | null,
  retryAfter: number | null,
  method: HttpMethod,
  path: string,
): ApiError {
  const body = (typeof json === "object" && json !== null ? json : {}) as {
    message?: unknown;
    error_code?: unknown;
    details?: unknown;
  };
  // A 404 that is not the service's error envelope came from something else at that address.
  const elsewhere = status === 404 ? " No reseller service answered: is the base URL right?" : "";
  const message =
    typeof body.message === "string"
      ? body.message
      : `${method} ${path} failed with HTTP ${status}${typeof json === "string" && json ? `: ${json.slice(0, 200)}` : ""}.${elsewhere}`;
  return new ApiError({
    kind: "http",
    status,
    message,
    errorCode: typeof body.error_code === "string" ? body.error_code : null,
    details: Array.isArray(body.details) ? (body.details as ApiErrorDetail[]) : [],
    requestId,
    retryAfter,
  });
}

/** Whether `body` is the service's success envelope, whatever its data. */
function isSuccessEnvelope(body: unknown): boolean {
  return (
    typeof body === "object" && body !== null && (body as { status?: unknown }).status === "success"
  );
}
