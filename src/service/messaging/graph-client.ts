import { type Dispatcher, request } from "undici";

/** The Graph API version the adapter speaks; payload shapes below are those of this version. */
export const graphApiVersion = "v21.0";

/** `serve --graph-url` default: Meta's Graph API with the pinned version. */
export const defaultGraphUrl = `https://graph.facebook.com/${graphApiVersion}`;

/**
 * A Graph API error answer, as documented at
 * https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes :
 * `{"error": {"message", "type", "code", "error_data": {"details"}, "fbtrace_id"}}`.
 */
export class GraphError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    message: string,
    readonly details: string | undefined,
  ) {
    super(message);
    this.name = "GraphError";
  }
}

/**
 * The request never got an answer (timeout, refused connection): it may or may not have arrived.
 * Its message names no address: it reaches API clients, and `--graph-url` is the operator's.
 */
export class GraphUnreachable extends Error {
  constructor(
    message: string,
    /** True when the request may have been received (it was written before the failure). */
    readonly mayHaveArrived: boolean,
  ) {
    super(message);
    this.name = "GraphUnreachable";
  }
}

/** How the service calls the Graph API: base URL, time limits, an optional dispatcher for tests. */
export interface GraphClientOptions {
  baseUrl: string;
  /** Time to wait for the answer's headers and body; a send past it counts as maybe arrived. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

/** The one HTTP client the service uses to reach Meta; the access token travels only in a header. */
export class GraphClient {
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: GraphClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** The base URL calls go to (without trailing slash). */
  get baseUrl(): string {
    return this.base;
  }

  /** GET `path` (with `query`) as the holder of `token`. */
  get<T>(token: string, path: string, query: Record<string, string> = {}): Promise<T> {
    const search = new URLSearchParams(query).toString();
    return this.call<T>("GET", token, `${path}${search ? `?${search}` : ""}`, undefined);
  }

  /** POST a JSON body to `path` as the holder of `token`. */
  post<T>(token: string, path: string, body: unknown): Promise<T> {
    return this.call<T>("POST", token, path, body);
  }

  private async call<T>(
    method: "GET" | "POST",
    token: string,
    path: string,
    body: unknown,
  ): Promise<T> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.base}/${path.replace(/^\/+/, "")}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? "";
      // A refused or unresolvable connection never carried the request; anything later might have.
      const neverSent = [
        "ECONNREFUSED",
        "ENOTFOUND",
        "EAI_AGAIN",
        "UND_ERR_CONNECT_TIMEOUT",
      ].includes(code);
      throw new GraphUnreachable(
        `Graph API did not answer (${code || (error as Error).message})`,
        !neverSent,
      );
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw new GraphUnreachable(
        `Graph API broke off its answer (${(error as Error).message})`,
        true,
      );
    }
    let parsed: unknown;
    try {
      parsed = text === "" ? {} : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.statusCode >= 200 && response.statusCode < 300 && parsed !== undefined) {
      return parsed as T;
    }
    const error = (
      parsed as
        | { error?: { code?: unknown; message?: unknown; error_data?: { details?: unknown } } }
        | undefined
    )?.error;
    throw new GraphError(
      response.statusCode,
      typeof error?.code === "number" ? error.code : 0,
      typeof error?.message === "string" ? error.message : `HTTP ${response.statusCode}`,
      typeof error?.error_data?.details === "string" ? error.error_data.details : undefined,
    );
  }
}
