import type BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import type { Audience } from "../../contract/campaigns.js";
import type { Db } from "../db/database.js";
import type { CampaignTable } from "../db/tables/campaigns.js";
import type { JobHandler, JobResult } from "../jobs/job-runner.js";
import type {
  MessageSender,
  MessageStatusReport,
  OutboundMessage,
  SendOutcome,
} from "../messaging/message-sender.js";
import { countAudience, snapshotRecipients } from "./campaign-audience.js";
import { type ContactFields, renderMessage } from "./campaign-rendering.js";
import { templateTexts } from "./campaigns.js";
import { type Clock, isoSeconds } from "./clock.js";
import { planAllowance } from "./plan-limits.js";
import type { ChannelThrottles } from "./throttle.js";

/** What the engine needs: the database, time, the operator, and per-channel throughput. */
export interface CampaignEngineDeps {
  db: Db;
  /** The raw handle of `db`'s connection, for the one statement per recipient. */
  sqlite: BetterSqlite3.Database;
  clock: Clock;
  sender: MessageSender;
  throttles: ChannelThrottles;
  /** Recipients handed to the operator per batch (and per transaction). */
  batchSize?: number;
  /** Waits for the throttle; tests replace it. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

interface RunCheckpoint {
  snapshotted: boolean;
}

/** A recipient ready to be messaged, with the contact's fields as they are now. */
interface PendingRecipient extends ContactFields {
  contact_id: string;
  opt_in_status: string | null;
}

/** Per-batch changes, applied to the counters in one statement. */
interface Tally {
  sent: number;
  failed: number;
  skippedOptedOut: number;
  skippedNoConsent: number;
  failures: Map<string, number>;
}

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

async function failCampaign(
  db: Db,
  clock: Clock,
  campaignId: string,
  reason: string,
): Promise<JobResult> {
  const now = isoSeconds(clock.now());
  await db
    .updateTable("campaigns")
    .set({
      status: "failed",
      failure_reason: reason,
      completed_at: now,
      updated_at: now,
      stats_updated_at: now,
    })
    .where("id", "=", campaignId)
    .execute();
  return { state: "done" };
}

/** Why a campaign cannot send at all right now, or null when it can. */
async function blocker(db: Db, campaign: CampaignTable): Promise<string | null> {
  const workspace = await db
    .selectFrom("workspaces")
    .select("status")
    .where("id", "=", campaign.workspace_id)
    .executeTakeFirst();
  if (!workspace || (workspace.status !== "active" && workspace.status !== "trial")) {
    return `workspace_${workspace?.status ?? "missing"}`;
  }
  const channel = await db
    .selectFrom("channels")
    .select("status")
    .where("id", "=", campaign.channel_id)
    .executeTakeFirst();
  if (!channel) return "channel_missing";
  if (channel.status !== "connected") return `channel_${channel.status}`;
  const template = await db
    .selectFrom("templates")
    .select("status")
    .where("id", "=", campaign.template_id)
    .executeTakeFirst();
  if (template?.status !== "approved") return `template_${template?.status ?? "missing"}`;
  return null;
}

/** Starts a campaign: snapshots its audience into recipient rows and sets its first counters. */
async function start(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  checkpoint: (trx: Db) => Promise<void>,
) {
  const { db, clock } = deps;
  const audience = JSON.parse(campaign.audience) as Audience;
  const now = isoSeconds(clock.now());
  await db.transaction().execute(async (trx) => {
    const counts = await countAudience(trx, campaign.workspace_id, audience);
    await snapshotRecipients(trx, campaign.id, campaign.workspace_id, audience, now);
    const queued = await trx
      .selectFrom("campaign_recipients")
      .select(sql<number>`count(*)`.as("n"))
      .where("campaign_id", "=", campaign.id)
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("campaigns")
      .set({
        status: "running",
        started_at: campaign.started_at ?? now,
        audience_total: Number(queued.n) + counts.skipped_no_consent + counts.skipped_opted_out,
        skipped_no_consent: counts.skipped_no_consent,
        skipped_opted_out: counts.skipped_opted_out,
        queued: Number(queued.n),
        updated_at: now,
        stats_updated_at: now,
      })
      .where("id", "=", campaign.id)
      .execute();
    await checkpoint(trx);
  });
}

async function pendingRecipients(
  db: Db,
  campaignId: string,
  limit: number,
): Promise<PendingRecipient[]> {
  const rows = await db
    .selectFrom("campaign_recipients as r")
    .leftJoin("contacts as c", "c.id", "r.contact_id")
    .select([
      "r.contact_id",
      "r.phone",
      "c.first_name",
      "c.last_name",
      "c.email",
      "c.custom_fields",
      "c.opt_in_status",
    ])
    .where("r.campaign_id", "=", campaignId)
    .where("r.state", "=", "queued")
    .orderBy("r.contact_id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    contact_id: r.contact_id,
    phone: r.phone,
    first_name: r.first_name,
    last_name: r.last_name,
    email: r.email,
    custom_fields: r.custom_fields ? (JSON.parse(r.custom_fields) as Record<string, unknown>) : {},
    opt_in_status: r.opt_in_status,
  }));
}

/** Records one batch's outcomes: recipient rows, counters, failure reasons and the month's meter. */
async function record(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  outcomes: { contactId: string; state: string; providerMessageId?: string; reason?: string }[],
  tally: Tally,
) {
  const now = isoSeconds(deps.clock.now());
  const update = deps.sqlite.prepare(
    `UPDATE campaign_recipients SET state = ?, provider_message_id = ?, failure_reason = ?, updated_at = ?
     WHERE campaign_id = ? AND contact_id = ? AND state = 'queued'`,
  );
  await deps.db.transaction().execute(async (trx) => {
    for (const outcome of outcomes) {
      update.run(
        outcome.state,
        outcome.providerMessageId ?? null,
        outcome.reason ?? null,
        now,
        campaign.id,
        outcome.contactId,
      );
    }
    const done = tally.sent + tally.failed + tally.skippedNoConsent + tally.skippedOptedOut;
    await trx
      .updateTable("campaigns")
      .set((eb) => ({
        queued: eb("queued", "-", done),
        sent: eb("sent", "+", tally.sent),
        failed: eb("failed", "+", tally.failed),
        skipped_no_consent: eb("skipped_no_consent", "+", tally.skippedNoConsent),
        skipped_opted_out: eb("skipped_opted_out", "+", tally.skippedOptedOut),
        stats_updated_at: now,
        updated_at: now,
      }))
      .where("id", "=", campaign.id)
      .execute();
    for (const [reason, count] of tally.failures) {
      await trx
        .insertInto("campaign_failures")
        .values({ campaign_id: campaign.id, reason, count })
        .onConflict((oc) =>
          oc
            .columns(["campaign_id", "reason"])
            .doUpdateSet((eb) => ({ count: eb("campaign_failures.count", "+", count) })),
        )
        .execute();
    }
    if (tally.sent > 0) {
      await trx
        .insertInto("message_counts")
        .values({
          workspace_id: campaign.workspace_id,
          month: monthOf(deps.clock.now()),
          sent: tally.sent,
        })
        .onConflict((oc) =>
          oc
            .columns(["workspace_id", "month"])
            .doUpdateSet((eb) => ({ sent: eb("message_counts.sent", "+", tally.sent) })),
        )
        .execute();
    }
  });
}

/** Sends one batch of queued recipients; false when none were left. */
async function sendBatch(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  size: number,
): Promise<boolean> {
  const { db, clock } = deps;
  const recipients = await pendingRecipients(db, campaign.id, size);
  if (recipients.length === 0) return false;
  const texts = templateTexts(
    (
      await db
        .selectFrom("templates")
        .select("components")
        .where("id", "=", campaign.template_id)
        .executeTakeFirstOrThrow()
    ).components,
  );
  const mapping = JSON.parse(campaign.variable_mapping) as Record<string, string>;
  const allowance = await planAllowance(
    db,
    clock,
    { id: campaign.workspace_id, plan_id: await planOf(db, campaign.workspace_id) },
    "messages_per_month",
  );
  let quotaLeft =
    allowance && allowance.limit !== -1
      ? Math.max(0, allowance.limit - allowance.used)
      : Number.POSITIVE_INFINITY;

  const tally: Tally = {
    sent: 0,
    failed: 0,
    skippedOptedOut: 0,
    skippedNoConsent: 0,
    failures: new Map(),
  };
  const outcomes: {
    contactId: string;
    state: string;
    providerMessageId?: string;
    reason?: string;
  }[] = [];
  const fail = (contactId: string, reason: string) => {
    outcomes.push({ contactId, state: "failed", reason });
    tally.failed += 1;
    tally.failures.set(reason, (tally.failures.get(reason) ?? 0) + 1);
  };
  const toSend: { recipient: PendingRecipient; message: OutboundMessage }[] = [];
  for (const recipient of recipients) {
    // Consent is checked again at send time: a STOP since the snapshot is honoured.
    if (recipient.opt_in_status !== "opted_in") {
      outcomes.push({ contactId: recipient.contact_id, state: "skipped" });
      if (recipient.opt_in_status === "not_set") tally.skippedNoConsent += 1;
      else tally.skippedOptedOut += 1;
      continue;
    }
    const rendered = renderMessage(texts, mapping, recipient);
    if (!rendered.ok) {
      fail(recipient.contact_id, rendered.reason);
      continue;
    }
    if (quotaLeft <= 0) {
      fail(recipient.contact_id, "quota_exceeded");
      continue;
    }
    quotaLeft -= 1;
    toSend.push({
      recipient,
      message: {
        idempotencyKey: `${campaign.id}:${recipient.contact_id}`,
        channelId: campaign.channel_id,
        to: recipient.phone,
        templateName: campaign.template_name,
        templateLanguage: campaign.template_language,
        body: rendered.body,
      },
    });
  }
  const results: SendOutcome[] =
    toSend.length > 0 ? await deps.sender.send(toSend.map((s) => s.message)) : [];
  results.forEach((result, i) => {
    const contactId = toSend[i]?.recipient.contact_id ?? "";
    if (result.status === "accepted") {
      outcomes.push({ contactId, state: "sent", providerMessageId: result.providerMessageId });
      tally.sent += 1;
    } else {
      fail(contactId, result.reason);
    }
  });
  await record(deps, campaign, outcomes, tally);
  return true;
}

async function planOf(db: Db, workspaceId: string): Promise<number | null> {
  const row = await db
    .selectFrom("workspaces")
    .select("plan_id")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  return row?.plan_id ?? null;
}

/**
 * The `campaign.run` job: starts a scheduled or launched campaign (audience snapshot), sends it
 * in batches at the channel's throughput, and completes it once no recipient is queued. Every
 * batch commits its outcomes at once, and each message carries a per-recipient idempotency key,
 * so a crash at any point resumes without messaging anyone twice or forgetting anyone.
 */
export function campaignRunHandler(deps: CampaignEngineDeps): JobHandler {
  const batchSize = deps.batchSize ?? 500;
  const sleep = deps.sleep ?? sleepFor;
  return async (job, ctx) => {
    const { campaign_id: campaignId } = job.payload as { campaign_id: string };
    const load = () =>
      deps.db.selectFrom("campaigns").selectAll().where("id", "=", campaignId).executeTakeFirst();
    let campaign = await load();
    if (
      !campaign ||
      campaign.status === "completed" ||
      campaign.status === "failed" ||
      campaign.status === "draft"
    ) {
      return { state: "done" };
    }
    const checkpoint = job.checkpoint as RunCheckpoint | null;
    if (!checkpoint?.snapshotted) {
      const reason = await blocker(deps.db, campaign);
      if (reason) return failCampaign(deps.db, deps.clock, campaignId, reason);
      await start(deps, campaign, (trx) =>
        ctx.checkpoint(trx, { snapshotted: true } satisfies RunCheckpoint),
      );
      campaign = await load();
      if (!campaign) return { state: "done" };
    }
    for (;;) {
      if (ctx.signal.aborted) return { state: "interrupted" };
      const reason = await blocker(deps.db, campaign);
      if (reason) return failCampaign(deps.db, deps.clock, campaignId, reason);
      const { granted, waitMs } = deps.throttles.take(campaign.channel_id, batchSize, Date.now());
      if (granted === 0) {
        await sleep(waitMs, ctx.signal);
        continue;
      }
      if (!(await sendBatch(deps, campaign, granted))) break;
    }
    const now = isoSeconds(deps.clock.now());
    await deps.db
      .updateTable("campaigns")
      .set({ status: "completed", completed_at: now, updated_at: now, stats_updated_at: now })
      .where("id", "=", campaignId)
      .where("status", "=", "running")
      .execute();
    return { state: "done" };
  };
}

/**
 * Applies the operator's delivery and read reports to recipients and campaign counters. Each
 * report moves a recipient one step (sent → delivered → read) and is ignored when it was already
 * applied, so a repeated report never counts twice.
 */
export async function recordStatusReports(
  db: Db,
  clock: Clock,
  reports: readonly MessageStatusReport[],
): Promise<{ unmatched: string[] }> {
  const now = isoSeconds(clock.now());
  const byCampaign = new Map<string, { delivered: number; read: number }>();
  const unmatched: string[] = [];
  for (const report of reports) {
    const from = report.status === "delivered" ? ["sent"] : ["delivered"];
    const row = await db
      .updateTable("campaign_recipients")
      .set({ state: report.status, updated_at: now })
      .where("provider_message_id", "=", report.providerMessageId)
      .where("state", "in", from)
      .returning("campaign_id")
      .executeTakeFirst();
    if (!row) {
      // No recipient holds this message id yet: its batch is still being recorded (or resumed).
      const known = await db
        .selectFrom("campaign_recipients")
        .select("campaign_id")
        .where("provider_message_id", "=", report.providerMessageId)
        .executeTakeFirst();
      if (!known) unmatched.push(report.providerMessageId);
      continue;
    }
    const counts = byCampaign.get(row.campaign_id) ?? { delivered: 0, read: 0 };
    counts[report.status] += 1;
    byCampaign.set(row.campaign_id, counts);
  }
  for (const [campaignId, counts] of byCampaign) {
    await db
      .updateTable("campaigns")
      .set((eb) => ({
        delivered: eb("delivered", "+", counts.delivered),
        read: eb("read", "+", counts.read),
        stats_updated_at: now,
      }))
      .where("id", "=", campaignId)
      .execute();
  }
  return { unmatched };
}
