import { type Dispatcher, fetch } from "undici";
import { quoted } from "../../contract/errors.js";
import type { Redelivery } from "../../contract/events.js";
import { deliveryTimeoutMs, signedDeliveryHeaders } from "../../contract/webhook-signature.js";
import { defaultWebhookRetryBaseMs } from "../config.js";
import type { Db } from "../db/database.js";
import { keyJob } from "../jobs/job-queue.js";
import type { JobHandler } from "../jobs/job-runner.js";
import type { SecretBox } from "../messaging/token-crypto.js";
import { type Clock, isoSeconds } from "./clock.js";
import { deliverySerialKey, loadEvent, queueDelivery, subscribes, toEvent } from "./events.js";
import { newId } from "./ids.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { openSigningSecret } from "./webhook-secrets.js";
import { privateAddressGuardAgent, privateUrlReason, type Resolver } from "./webhook-url-guard.js";
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

interface AttemptOutcome {
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
 * The `webhook.deliver` job: one POST of its event to its endpoint per run. A 2xx marks the
 * delivery done; anything else is recorded as an attempt and retried with exponential backoff
 * until three days after the delivery was queued. The job row is the retry schedule, so
 * deliveries survive restarts.
 */
export function webhookDeliveryHandler(deps: {
  db: Db;
  clock: Clock;
  settings: WebhookSettings;
}): JobHandler {
  const { db, clock, settings } = deps;
  // Checked again as each connection resolves its host (see guardedLookup): DNS may change.
  const guard = settings.blockPrivate ? privateAddressGuardAgent(settings.resolver) : undefined;
  return async (job) => {
    const { delivery_id: deliveryId } = job.payload as { delivery_id: string };
    const delivery = await db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("id", "=", deliveryId)
      .executeTakeFirst();
    if (delivery?.state !== "pending") return { state: "done" };
    if (job.serialKey === null) await keyJob(db, job.id, deliverySerialKey(delivery.endpoint_id));
    const event = await db
      .selectFrom("events")
      .selectAll()
      .where("id", "=", delivery.event_id)
      .executeTakeFirst();
    const endpoint = await db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", delivery.endpoint_id)
      .executeTakeFirst();
    const now = clock.now();
    if (!event || !endpoint || endpoint.enabled !== 1) {
      await db
        .updateTable("webhook_deliveries")
        .set({ state: "failed", updated_at: isoSeconds(now) })
        .where("id", "=", delivery.id)
        .execute();
      return { state: "done" };
    }
    const body = JSON.stringify(toEvent(event));
    const signing = openSigningSecret(endpoint.secret, settings.secrets ?? null);
    const refused =
      "problem" in signing
        ? signing.problem
        : settings.blockPrivate
          ? await privateUrlReason(endpoint.url, settings.resolver)
          : null;
    const outcome: AttemptOutcome =
      refused !== null || "problem" in signing
        ? { statusCode: null, error: `not sent: ${refused}`, durationMs: 0 }
        : await postSigned(
            endpoint.url,
            signing.secret,
            event.id,
            body,
            Math.floor(now.getTime() / 1000),
            settings.timeoutMs,
            guard,
          );
    const delivered = outcome.error === null;
    const attempt = delivery.attempts + 1;
    // The wait runs from the answer (or the timeout), so a slow receiver still gets all of it.
    const answeredAt = clock.now();
    const nextAt = new Date(answeredAt.getTime() + retryDelayMs(settings.retryBaseMs, attempt));
    const giveUp =
      !delivered && nextAt.getTime() > new Date(delivery.created_at).getTime() + retryWindowMs;
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto("webhook_attempts")
        .values({
          id: newId("wa"),
          delivery_id: delivery.id,
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_type: event.type,
          attempt,
          status_code: outcome.statusCode,
          duration_ms: outcome.durationMs,
          error: outcome.error,
          delivered: delivered ? 1 : 0,
          // When the attempt began; its duration says when it ended.
          created_at: isoSeconds(now),
        })
        .execute();
      await trx
        .updateTable("webhook_deliveries")
        .set({
          attempts: attempt,
          state: delivered ? "delivered" : giveUp ? "failed" : "pending",
          updated_at: isoSeconds(answeredAt),
        })
        .where("id", "=", delivery.id)
        .execute();
    });
    if (delivered || giveUp) return { state: "done" };
    return { state: "retry", at: nextAt };
  };
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
