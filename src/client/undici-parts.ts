// undici's request API and its proxy-aware agent, taken from their own files: the package's
// index also loads fetch, WebSocket, caches and mocks (over 100 files), which the CLI never uses
// and which were a third of a command's start-up. Same package, same HTTP client layer.
import type {
  Dispatcher,
  EnvHttpProxyAgent as EnvHttpProxyAgentClass,
  Pool as PoolClass,
} from "undici";
import connectModule from "undici/lib/api/api-connect.js";
import requestModule from "undici/lib/api/api-request.js";
import DispatcherModule from "undici/lib/dispatcher/dispatcher.js";
import EnvHttpProxyAgentModule from "undici/lib/dispatcher/env-http-proxy-agent.js";
import PoolModule from "undici/lib/dispatcher/pool.js";

// The package's index gives every dispatcher its request/connect/… methods; ProxyAgent opens
// its tunnel with `connect` (HTTP CONNECT to the proxy), so without it HTTP_PROXY/HTTPS_PROXY
// fail with "connect is not a function". Installed here as the index would.
const dispatcherPrototype = (DispatcherModule as { prototype: Record<string, unknown> }).prototype;
dispatcherPrototype.connect ??= connectModule;

/** undici's EnvHttpProxyAgent: honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY. */
export const EnvHttpProxyAgent = EnvHttpProxyAgentModule as typeof EnvHttpProxyAgentClass;

/** undici's Pool: the connections to one origin (here: to a proxy). */
export const Pool = PoolModule as typeof PoolClass;

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
