import type { Dispatcher } from "undici";
import { Agent, request } from "../../../client/undici-parts.js";
import { deliveryTimeoutMs, signedDeliveryHeaders } from "../../../contract/webhook-signature.js";

/** How the local receiver answered one forwarded event. */
export interface Forwarded {
  status: number | null;
  durationMs: number;
  /** Why no status came (a refused connection, no answer within 10 s). */
  error: string | null;
}

/** POSTs events to the local receiver, each signed as a real delivery is. */
export interface Forwarder {
  /** POSTs one event, signed, and says how the receiver answered; `stop` abandons it. */
  send(eventId: string, body: string, now: Date, stop: AbortSignal): Promise<Forwarded>;
  /** Closes the connections to the receiver. */
  close(): Promise<void>;
}

/**
 * A forwarder to `target` over undici, as the API client sends. Without a dispatcher (tests hand
 * in one) it connects directly: the receiver is local, and HTTP_PROXY, which the API client
 * honours, would send it to a proxy that cannot reach it.
 */
export function forwarder(target: URL, secret: string, dispatcher?: Dispatcher): Forwarder {
  const via = dispatcher ?? new Agent();
  return {
    async send(eventId, body, now, stop) {
      const started = performance.now();
      const took = () => Math.round(performance.now() - started);
      try {
        // undici's request follows no redirect: a 3xx is the receiver's answer, as for deliveries.
        const response = await request(target.href, {
          method: "POST",
          headers: signedDeliveryHeaders(secret, eventId, body, Math.floor(now.getTime() / 1000)),
          body,
          dispatcher: via,
          // Ctrl-C ends a forward at once: a receiver that hangs must not hold listen.
          signal: AbortSignal.any([stop, AbortSignal.timeout(deliveryTimeoutMs)]),
        });
        // The answer's body is not needed; reading it frees the connection.
        await response.body.dump().catch(() => undefined);
        return { status: response.statusCode, durationMs: took(), error: null };
      } catch (error) {
        const why = stop.aborted
          ? "interrupted"
          : (error as Error).name === "TimeoutError"
            ? `no answer within ${deliveryTimeoutMs / 1000} s`
            : `error ${(error as { code?: string }).code ?? (error as Error).message}`;
        return { status: null, durationMs: took(), error: why };
      }
    },
    close: async () => {
      if (via !== dispatcher) await via.close();
    },
  };
}
