import { type Dispatcher, fetch } from "undici";
import { quoted } from "../../contract/errors.js";
import type { Redelivery } from "../../contract/events.js";
import { deliveryTimeoutMs, signedDeliveryHeaders } from "../../contract/webhook-signature.js";
import { defaultWebhookRetryBaseMs } from "../config.js";
import type { Db } from "../db/database.js";
import type { Clock } from "./clock.js";
import { loadEvent, queueDelivery, subscribes } from "./events.js";
import type { SecretBox } from "./secret-box.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import type { Resolver } from "./webhook-url-guard.js";
import { requireResellerToken } from "./workspace-access.js";

/** How deliveries are made: retry base, the private-address guard and the answer timeout. */
export interface WebhookSettings {
  /** First retry delay; each further one doubles (`serve --webhook-retry-base`, default 60 s). */
  retryBaseMs: number;
  /** Refuse hosts that resolve to loopback, private or link-local addresses. */
  blockPrivate: boolean;
  /** How long a receiver has to answer with a 2xx. */
  timeoutMs: number;
  /** Tests only: how host names resolve for the private-address guard. */
  resolver?: Resolver;
  /**
   * Seals endpoints' signing secrets at rest (RESELLER_SECRET_KEY), as channels' access tokens
   * are; null keeps them as they are (a database without the key).
   */
  secrets?: SecretBox | null;
}

export const defaultWebhookSettings: WebhookSettings = {
  retryBaseMs: defaultWebhookRetryBaseMs,
  blockPrivate: false,
  timeoutMs: deliveryTimeoutMs,
};

/** How long a delivery is retried before it is given up. */
export const retryWindowMs = 3 * 86_400_000;

/** The longest wait between two attempts, so the last days still see a few tries. */
const maxRetryDelayMs = 6 * 3_600_000;

/** The wait before attempt `attempt + 1`: base × 2^(attempt−1), at most six hours. */
export function retryDelayMs(baseMs: number, attempt: number): number {
  return Math.min(maxRetryDelayMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** POSTs a signed event to a URL and says how it went (2xx within the timeout is delivered). */
export async function postSigned(
  url: string,
  secret: string,
  eventId: string,
  body: string,
  unixSeconds: number,
  timeoutMs: number,
  dispatcher?: Dispatcher,
): Promise<AttemptOutcome> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      ...(dispatcher ? { dispatcher } : {}),
      method: "POST",
      headers: {
        ...signedDeliveryHeaders(secret, eventId, body, unixSeconds),
        "user-agent": "reseller-webhooks/1",
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer's body is not needed; reading it frees the connection.
    await response.arrayBuffer().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return {
      statusCode: response.status,
      error: ok ? null : `the receiver answered ${response.status}`,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const name = (error as Error).name;
    return {
      statusCode: null,
      error:
        name === "TimeoutError" || name === "AbortError"
          ? `no answer within ${timeoutMs / 1000} s`
          : cause?.code === "EPRIVATEADDRESS"
            ? `not sent: ${cause.message}`
            : (cause?.code ?? cause?.message ?? (error as Error).message),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

/**
 * Sends an event again: a new delivery to every enabled endpoint subscribed to its type, or to
 * the one endpoint named (even when it does not subscribe to the type). Reseller tokens only.
 */
export async function redeliverEvent(
  deps: { db: Db; clock: Clock; poke: () => void },
  principal: Principal,
  eventId: string,
  endpointId: string | undefined,
): Promise<Redelivery> {
  const { db, clock } = deps;
  // Endpoints are the reseller's systems: a client's workspace token reads its own events but
  // may not make the reseller's receivers take them again (nor learn their ids from the answer).
  requireResellerToken(principal, "redeliver events");
  const event = await loadEvent(db, clock, principal, eventId);
  let select = db
    .selectFrom("webhook_endpoints")
    .select(["id", "events", "enabled"])
    .where("reseller_id", "=", principal.resellerId);
  if (endpointId !== undefined) select = select.where("id", "=", endpointId);
  const endpoints = await select.execute();
  if (endpointId !== undefined && endpoints.length === 0) {
    throw new ServiceError("not_found", `Webhook endpoint ${quoted(endpointId)} was not found.`);
  }
  if (endpointId !== undefined && endpoints[0]?.enabled !== 1) {
    throw invalidField(
      "endpoint_id",
      `names endpoint ${quoted(endpointId)}, which is disabled: enable it first (PATCH /api/v1/webhook-endpoints/${endpointId} with "enabled": true)`,
    );
  }
  const targets = endpoints.filter(
    (e) => e.enabled === 1 && (endpointId !== undefined || subscribes(e.events, event.type)),
  );
  const deliveries = await db.transaction().execute(async (trx) => {
    const queued: Redelivery["deliveries"] = [];
    for (const endpoint of targets) {
      queued.push({
        id: await queueDelivery(trx, clock, event.id, endpoint.id),
        endpoint_id: endpoint.id,
      });
    }
    return queued;
  });
  deps.poke();
  return { event_id: event.id, deliveries };
}
