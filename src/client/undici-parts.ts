// undici's request API and its proxy-aware agent, taken from their own files: the package's
// index also loads fetch, WebSocket, caches and mocks (over 100 files), which the CLI never uses
// and which were a third of a command's start-up. Same package, same HTTP client layer.
import type {
  Agent as AgentClass,
  Dispatcher,
  EnvHttpProxyAgent as EnvHttpProxyAgentClass,
  Pool as PoolClass,
} from "undici";
import connectModule from "undici/lib/api/api-connect.js";
import requestModule from "undici/lib/api/api-request.js";
import AgentModule from "undici/lib/dispatcher/agent.js";
import DispatcherModule from "undici/lib/dispatcher/dispatcher.js";
import EnvHttpProxyAgentModule from "undici/lib/dispatcher/env-http-proxy-agent.js";
import PoolModule from "undici/lib/dispatcher/pool.js";

// The package's index gives every dispatcher its request/connect/… methods; ProxyAgent opens
// its tunnel with `connect` (HTTP CONNECT to the proxy), so without it HTTP_PROXY/HTTPS_PROXY
// fail with "connect is not a function". Installed here as the index would.
const dispatcherPrototype = (DispatcherModule as { prototype: Record<string, unknown> }).prototype;
dispatcherPrototype.connect ??= connectModule;

/** undici's Agent: direct connections, no proxy (what `reseller listen` forwards through). */
export const Agent = AgentModule as typeof AgentClass;

/** undici's EnvHttpProxyAgent: honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY. */
export const EnvHttpProxyAgent = EnvHttpProxyAgentModule as typeof EnvHttpProxyAgentClass;

/** undici's Pool: the connections to one origin (here: to a proxy). */
export const Pool = PoolModule as typeof PoolClass;

/**
 * `pool` (a proxy's connections), changed so that a tunnel the proxy closes instead of opening
 * fails the request waiting for it, and one it leaves unanswered is told as the proxy's
 * timeout. undici takes a closed socket for a passing fault and opens the tunnel again at once,
 * without end (a CPU-bound loop); any other error code fails the request, which the API client
 * then retries a bounded number of times.
 */
export function failingTunnels(pool: PoolClass): PoolClass {
  const connect = pool.connect.bind(pool) as (
    options: Dispatcher.ConnectOptions,
  ) => Promise<Dispatcher.ConnectData>;
  const tunnel = (options: Dispatcher.ConnectOptions) =>
    connect(options).catch((error: Error & { code?: string }) => {
      if (error.code === "UND_ERR_SOCKET") {
        throw Object.assign(new Error(`the proxy closed the tunnel (${error.message})`), {
          code: "ECONNRESET",
          cause: error,
        });
      }
      // Keeps its code (a timeout, retried as one) but says whose it is: undici's own message
      // would send the reader looking for a slow service.
      if (error.code?.includes("TIMEOUT")) {
        throw Object.assign(
          new Error(`the proxy did not open the tunnel in time (${error.message})`),
          { code: error.code, cause: error },
        );
      }
      throw error;
    });
  Object.assign(pool, { connect: tunnel });
  return pool;
}

const requestOn = requestModule as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** undici's `request(url, options)` on the given dispatcher. */
export function request(
  url: string,
  options: Omit<Dispatcher.RequestOptions, "origin" | "path"> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  const parsed = new URL(url);
  return requestOn.call(dispatcher, {
    ...rest,
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
  });
}
