import type { App } from "../app-types.js";
import { ServiceError } from "../domain/service-error.js";

/**
 * Once a graceful stop has begun, a request that still arrives (on a connection kept open) is a
 * 503 `service_unavailable` with Retry-After and `Connection: close`, so clients and load
 * balancers move to another instance; the requests in flight finish.
 */
export function refuseWhileStopping(app: App): void {
  let stopping = false;
  app.addHook("preClose", async () => {
    stopping = true;
  });
  app.addHook("onRequest", async () => {
    if (!stopping) return;
    throw new ServiceError(
      "service_unavailable",
      "This instance is stopping; send the request again (to another instance).",
      { headers: { "retry-after": "1", connection: "close" } },
    );
  });
}
