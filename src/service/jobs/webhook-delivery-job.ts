import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { deliverySerialKey, toEvent } from "../domain/events.js";
import { newId } from "../domain/ids.js";
import {
  type AttemptOutcome,
  postSigned,
  retryDelayMs,
  retryWindowMs,
  type WebhookSettings,
} from "../domain/webhook-delivery.js";
import { openSigningSecret } from "../domain/webhook-secrets.js";
import { privateAddressGuardAgent, privateUrlReason } from "../domain/webhook-url-guard.js";
import { keyJob } from "./job-queue.js";
import type { JobHandler } from "./job-runner.js";

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
