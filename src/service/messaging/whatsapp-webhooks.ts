import { createHmac, timingSafeEqual } from "node:crypto";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ChannelTable } from "../db/tables/campaigns.js";
import { completeIfSettled, moveCampaignCounters } from "../domain/campaign-outcomes.js";
import { disconnectChannel } from "../domain/channels.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { newId } from "../domain/ids.js";
import { consentKeyword } from "../domain/inbound-replies.js";
import { ensureJob } from "../jobs/ensure-job.js";
import { whatsappWebhooksJob } from "../jobs/job-kinds.js";
import type { JobHandler } from "../jobs/job-runner.js";
import type { JobScheduler, Services } from "../services.js";
import { templateDecisionFromGraph } from "./cloud-provider.js";
import { isTokenRefused } from "./graph-errors.js";
import type { MessagingProvider, TemplateStatusReport } from "./provider.js";
import { applyProviderEvents, type ProviderEvent } from "./provider-events.js";

/** How long a send without an answer may wait for a status webhook before it counts as failed. */
export const outcomeUnknownLimitMs = 24 * 3600 * 1000;

/**
 * Whether `header` is `sha256=<hex HMAC-SHA256 of the raw body with the app secret>`, compared
 * in constant time (https://developers.facebook.com/docs/graph-api/webhooks/getting-started,
 * "Validate Payloads").
 */
export function validSignature(
  rawBody: Buffer,
  header: string | undefined,
  appSecret: string,
): boolean {
  // Exactly 64 hex digits: Buffer.from(…, "hex") would silently drop anything after the first
  // non-hex character, so "sha256=<right digest>junk" must be refused before it is decoded.
  const hex = header?.startsWith("sha256=") ? header.slice("sha256=".length) : "";
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const given = Buffer.from(hex, "hex");
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** One event of a webhook, as stored before it is applied. */
export type StoredWebhookEvent =
  | {
      kind: "status";
      phone_number_id: string;
      id: string;
      status: string;
      timestamp: string;
      biz_opaque_callback_data: string | null;
      error_code: number | null;
    }
  | {
      kind: "message";
      phone_number_id: string;
      id: string;
      from: string;
      text: string;
      timestamp: string;
    }
  | {
      kind: "template_status";
      waba_id: string;
      template_id: string;
      event: string;
      reason: string | null;
      time: string;
    };

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json =>
  value && typeof value === "object" ? (value as Json) : {};
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : "";

/**
 * The events in a webhook body. Shapes: https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components
 * and https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples
 * (`entry[].changes[].value.{metadata.phone_number_id, statuses[], messages[]}`), and
 * https://developers.facebook.com/docs/whatsapp/business-management-api/webhooks/components
 * (`field: message_template_status_update`, `value.{event, message_template_id, reason}`).
 * Anything else in the body is ignored.
 */
export function webhookEvents(body: unknown): { dedupeKey: string; event: StoredWebhookEvent }[] {
  const out: { dedupeKey: string; event: StoredWebhookEvent }[] = [];
  for (const entry of asArray(asObject(body).entry)) {
    const wabaId = asText(asObject(entry).id);
    const time = asText(asObject(entry).time);
    for (const change of asArray(asObject(entry).changes)) {
      const field = asText(asObject(change).field);
      const value = asObject(asObject(change).value);
      if (field === "messages") {
        const phoneNumberId = asText(asObject(value.metadata).phone_number_id);
        for (const raw of asArray(value.statuses)) {
          const status = asObject(raw);
          const id = asText(status.id);
          const name = asText(status.status);
          if (!id || !name) continue;
          const code = asObject(asArray(status.errors)[0]).code;
          out.push({
            // Keyed by the number too: a status first received under a number it was not sent
            // from (ignored) still counts when it comes under its own.
            dedupeKey: `status:${phoneNumberId}:${id}:${name}`,
            event: {
              kind: "status",
              phone_number_id: phoneNumberId,
              id,
              status: name,
              timestamp: asText(status.timestamp),
              biz_opaque_callback_data: asText(status.biz_opaque_callback_data) || null,
              error_code: typeof code === "number" ? code : null,
            },
          });
        }
        for (const raw of asArray(value.messages)) {
          const message = asObject(raw);
          const id = asText(message.id);
          if (!id) continue;
          // A tapped quick-reply button arrives as `button.text` and is read as typed text: a
          // button saying STOP opts out. Meta's own "Stop promotions" button is no consent
          // keyword (two words): Meta then stops marketing messages to that person itself, and
          // the next send to them fails with 131050, which opts the contact out.
          const said = asText(asObject(message.text).body) || asText(asObject(message.button).text);
          // A reply is read for its consent keyword alone: any other text is a person's private
          // message, and is not stored.
          const text = consentKeyword(said) === null ? "" : said;
          out.push({
            dedupeKey: `message:${id}`,
            event: {
              kind: "message",
              phone_number_id: phoneNumberId,
              id,
              from: asText(message.from),
              text,
              timestamp: asText(message.timestamp),
            },
          });
        }
      } else if (field === "message_template_status_update") {
        const templateId = asText(value.message_template_id);
        const event = asText(value.event);
        if (!templateId || !event) continue;
        out.push({
          dedupeKey: `template:${templateId}:${event}:${time}`,
          event: {
            kind: "template_status",
            waba_id: wabaId,
            template_id: templateId,
            event,
            reason: asText(value.reason) || null,
            time,
          },
        });
      }
    }
  }
  return out;
}

/**
 * Stores a verified webhook's events (each once: a repeat of message id + status is dropped)
 * and makes sure the job that applies them runs; answers how many were new.
 */
export async function storeWebhook(
  deps: { db: Db; clock: Clock; jobs: JobScheduler },
  body: unknown,
): Promise<number> {
  const events = webhookEvents(body);
  const now = deps.clock.now();
  let stored = 0;
  await deps.db.transaction().execute(async (trx) => {
    for (const { dedupeKey, event } of events) {
      const result = await trx
        .insertInto("whatsapp_webhook_events")
        .values({
          id: newId("whe"),
          dedupe_key: dedupeKey,
          kind: event.kind,
          payload: JSON.stringify(event),
          received_at: now.toISOString(),
          applied_at: null,
        })
        .onConflict((oc) => oc.column("dedupe_key").doNothing())
        .executeTakeFirst();
      stored += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
    if (stored > 0) await ensureJob(trx, deps.jobs, whatsappWebhooksJob, now);
  });
  if (stored > 0) deps.jobs.poke();
  return stored;
}

const statusNames = new Set(["sent", "delivered", "read", "failed"]);

/**
 * A stored webhook event as an event of the operators' one event path, routed by
 * `metadata.phone_number_id` (statuses, messages) or by WABA and Graph template id (template
 * status); null for an unknown number or template, or a status that changes nothing.
 */
async function providerEvent(
  db: Db,
  clock: Clock,
  event: StoredWebhookEvent,
): Promise<ProviderEvent | null> {
  if (event.kind === "template_status") {
    const decision = templateDecisionFromGraph(event.event, event.reason);
    if (!decision) return null;
    const template = await db
      .selectFrom("templates as t")
      .innerJoin("channels as c", "c.workspace_id", "t.workspace_id")
      .select("t.id")
      .where("t.provider_template_id", "=", event.template_id)
      .where("c.waba_id", "=", event.waba_id)
      .executeTakeFirst();
    if (!template) return null;
    // entry.time (Unix seconds) orders Meta's reports: an older one changes nothing. Without a
    // readable one (milliseconds, 1e11 on, would sort as a year past 5000) the report counts as
    // made when it is applied; one ahead of our clock counts as made now (applyProviderEvents).
    const seconds = Number(event.time);
    return {
      kind: "template_status",
      templateId: template.id,
      decision,
      ...(Number.isFinite(seconds) && seconds > 0 && seconds < 1e11
        ? { reportedAt: new Date(seconds * 1000) }
        : {}),
    };
  }
  const channel = await db
    .selectFrom("channels")
    .select(["id", "workspace_id"])
    .where("provider", "=", "whatsapp_cloud")
    .where("phone_number_id", "=", event.phone_number_id)
    .executeTakeFirst();
  if (!channel) return null;
  if (event.kind === "message") {
    if (!event.from) return null;
    // Graph's `from` is the wa_id: the number in international form without the plus.
    return {
      kind: "message",
      workspaceId: channel.workspace_id,
      from: `+${event.from}`,
      text: event.text,
    };
  }
  if (!statusNames.has(event.status)) return null;
  const seconds = Number(event.timestamp);
  return {
    kind: "status",
    report: {
      providerMessageId: event.id,
      recipientId: event.biz_opaque_callback_data ?? undefined,
      channelId: channel.id,
      status: event.status as "sent" | "delivered" | "read" | "failed",
      errorCode: event.error_code ?? undefined,
      at: Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : clock.now(),
    },
  };
}

/** The `whatsapp.webhooks` job: applies stored events in the order they arrived, each once. */
export function whatsappWebhooksHandler(services: Services): JobHandler {
  return async (_job, ctx) => {
    for (;;) {
      if (ctx.signal.aborted) return { state: "interrupted" };
      const pending = await services.db
        .selectFrom("whatsapp_webhook_events")
        .selectAll()
        .where("applied_at", "is", null)
        .orderBy("received_at")
        .orderBy("id")
        .limit(200)
        .execute();
      if (pending.length === 0) return { state: "done" };
      await services.db.transaction().execute(async (trx) => {
        for (const row of pending) {
          const event = await providerEvent(
            trx,
            services.clock,
            JSON.parse(row.payload) as StoredWebhookEvent,
          );
          if (event) await applyProviderEvents({ ...services, db: trx }, [event]);
          await trx
            .updateTable("whatsapp_webhook_events")
            .set({ applied_at: isoSeconds(services.clock.now()) })
            .where("id", "=", row.id)
            .execute();
        }
      });
    }
  };
}

/**
 * Fails the recipients whose send had no answer and no status webhook within 24 h, with the
 * reason `outcome_unknown`.
 */
export async function expireUnknownOutcomes(db: Db, clock: Clock): Promise<number> {
  const now = clock.now();
  // Whole seconds, as sending_at is stored: compared as text, "…:05.123Z" sorts before "…:05Z".
  const limit = isoSeconds(new Date(now.getTime() - outcomeUnknownLimitMs));
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .selectFrom("campaign_recipients")
      .select(["campaign_id", sql<number>`count(*)`.as("n")])
      .where("state", "=", "outcome_unknown")
      .where("sending_at", "<=", limit)
      .groupBy("campaign_id")
      .execute();
    const at = isoSeconds(now);
    for (const { campaign_id: campaignId, n } of expired) {
      const count = Number(n);
      await trx
        .updateTable("campaign_recipients")
        .set({ state: "failed", failure_reason: "outcome_unknown", outcome_at: at, updated_at: at })
        .where("campaign_id", "=", campaignId)
        .where("state", "=", "outcome_unknown")
        .where("sending_at", "<=", limit)
        .execute();
      await moveCampaignCounters(
        trx,
        campaignId,
        { settled: count, failed: count, failures: new Map([["outcome_unknown", count]]) },
        at,
      );
      await completeIfSettled(trx, clock, campaignId);
    }
    return expired.reduce((sum, row) => sum + Number(row.n), 0);
  });
}

/**
 * The periodic `whatsapp.sync` job, while any cloud channel exists: reads every WABA's
 * templates (GET /<waba_id>/message_templates) to catch a missed status webhook, and expires
 * unknown outcomes older than 24 h.
 */
export function whatsappSyncHandler(
  services: Services,
  cloud: MessagingProvider,
  intervalMs: number,
): JobHandler {
  return async () => {
    const { db, clock } = services;
    const channels = await db
      .selectFrom("channels")
      .selectAll()
      .where("provider", "=", cloud.kind)
      .where("status", "=", "connected")
      .execute();
    // One listing per WABA; its templates may belong to any workspace whose number is on it.
    const byWaba = new Map<string, { channel: ChannelTable; workspaceIds: Set<string> }>();
    for (const channel of channels) {
      if (!channel.waba_id) continue;
      const waba = byWaba.get(channel.waba_id);
      if (waba) waba.workspaceIds.add(channel.workspace_id);
      else byWaba.set(channel.waba_id, { channel, workspaceIds: new Set([channel.workspace_id]) });
    }
    for (const { channel, workspaceIds } of byWaba.values()) {
      let listed: TemplateStatusReport[];
      // The listing tells Meta's state when asked: a webhook that arrives while it is read
      // reports a newer decision, and must not lose to it, nor tie (times are to the second).
      const askedAt = new Date(clock.now().getTime() - 1000);
      try {
        listed = await cloud.templateStatuses(channel);
      } catch (error) {
        // A refused token disconnects its channel (channel.disconnected tells the reseller), and
        // the WABA's next connected channel is asked next round; anything else is tried again.
        if (isTokenRefused(error)) {
          await disconnectChannel(db, clock, channel.id, channel.access_token_encrypted);
        }
        continue;
      }
      await db.transaction().execute(async (trx) => {
        const events: ProviderEvent[] = [];
        for (const { providerTemplateId, decision } of listed) {
          const template = await trx
            .selectFrom("templates")
            .select("id")
            .where("workspace_id", "in", [...workspaceIds])
            .where("provider_template_id", "=", providerTemplateId)
            .executeTakeFirst();
          if (template) {
            events.push({
              kind: "template_status",
              templateId: template.id,
              decision,
              reportedAt: askedAt,
            });
          }
        }
        await applyProviderEvents({ ...services, db: trx }, events);
      });
    }
    await expireUnknownOutcomes(db, clock);
    const anyCloud = await db
      .selectFrom("channels")
      .select("id")
      .where("provider", "=", "whatsapp_cloud")
      .executeTakeFirst();
    const unknown = await db
      .selectFrom("campaign_recipients")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("sending_at").as("first")])
      .where("state", "=", "outcome_unknown")
      .executeTakeFirst();
    if (!anyCloud && Number(unknown?.n ?? 0) === 0) return { state: "done" };
    // Next round in an interval, or sooner when an unknown outcome reaches its 24 h then: it
    // fails at 24 h, as running-for-real.md says, not up to an interval later. A second past
    // it, as times are stored in whole seconds; never sooner than a second from now.
    const now = clock.now().getTime();
    const first = unknown?.first ? Date.parse(unknown.first) : Number.NaN;
    const due = Number.isNaN(first)
      ? Number.POSITIVE_INFINITY
      : first + outcomeUnknownLimitMs + 1000;
    return { state: "retry", at: new Date(Math.max(now + 1000, Math.min(now + intervalMs, due))) };
  };
}
