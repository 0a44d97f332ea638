import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { writeRecipientOutcomes } from "../db/recipient-outcomes/recipient-outcomes.js";
import type { CampaignTable } from "../db/tables/campaigns.js";
import type { JobResult } from "../jobs/job-runner.js";
import type { MessageSender, OutboundMessage, SendOutcome } from "../messaging/message-sender.js";
import { optOutByProvider } from "../messaging/provider-events.js";
import { countAudience, snapshotRecipients } from "./campaign-audience.js";
import { moveCampaignCounters, settleUnansweredSends } from "./campaign-outcomes.js";
import { type ContactFields, contactFieldsOf, renderMessage } from "./campaign-rendering.js";
import { recordCampaignEvent, templateTexts } from "./campaigns.js";
import type { ChannelThroughput } from "./channel-throughput.js";
import { disconnectChannel } from "./channels.js";
import { type Clock, isoSeconds } from "./clock.js";
import { meterSent, monthOf } from "./message-meter.js";
import { currentPlanId, planAllowance } from "./plan-limits.js";
import { applyTemplateStatus } from "./templates.js";

/** What the engine needs: the database, time, the operator, and per-channel throughput. */
export interface CampaignEngineDeps {
  db: Db;
  clock: Clock;
  sender: MessageSender;
  /** Per-channel throughput: in this process, or shared by every instance on the database. */
  throttles: ChannelThroughput;
  /** Recipients handed to the operator per batch (and per transaction). */
  batchSize?: number;
  /** Waits for the throttle; tests replace it. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** First wait after the operator's rate-limit answer; doubles up to 30 s (default 1 s). */
  backoffBaseMs?: number;
  /** Sends in flight at once to a provider without idempotency (default `defaultSendLanes`). */
  sendLanes?: number;
}

/**
 * Sends in flight at once to a provider without idempotency keys (the Cloud API): one at a time,
 * a channel sends one message per round trip (4 a second at Meta's 250 ms), not the 80 a second
 * its throughput allows. Each in-flight send is one recipient a crash can leave `outcome_unknown`.
 */
export const defaultSendLanes = 16;

/** How a batch ended: all answered, or the operator asked to wait, or the campaign must fail. */
export type BatchEnd =
  | { kind: "empty" }
  /** The channel's throughput is spent for now. */
  | { kind: "wait"; waitMs: number }
  | { kind: "sent" }
  /** The operator refused some of the batch for now; `answered` of it went out (or failed for good). */
  | { kind: "backoff"; answered: number }
  | { kind: "failed"; reason: string };

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

/**
 * Waits `ms`, or less when the job is stopped. Leaves no listener on the job's signal: a campaign
 * waits between batches for its whole run, and each wait's listener used to stay (a leak, and
 * Node's MaxListenersExceededWarning after ten).
 */
export function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

export async function failCampaign(
  db: Db,
  clock: Clock,
  campaignId: string,
  reason: string,
): Promise<JobResult> {
  const now = isoSeconds(clock.now());
  await db.transaction().execute(async (trx) => {
    // Only a campaign still sending (or about to): a pause or cancel committed meanwhile stands.
    const failed = await trx
      .updateTable("campaigns")
      .set({ status: "failed", failure_reason: reason, completed_at: now, updated_at: now })
      .where("id", "=", campaignId)
      .where("status", "in", ["running", "scheduled"])
      .executeTakeFirst();
    if (Number(failed.numUpdatedRows) === 0) return;
    // Recipients it will never send to fail with the campaign's reason, so sent + failed is
    // still every recipient with consent (sends whose answer was lost are settled later).
    const unsent = await trx
      .updateTable("campaign_recipients")
      .set({ state: "failed", failure_reason: reason, outcome_at: now, updated_at: now })
      .where("campaign_id", "=", campaignId)
      .where("state", "=", "queued")
      .executeTakeFirst();
    const count = Number(unsent.numUpdatedRows);
    // A send begun and never answered (a run that threw mid-send) may have reached Meta.
    await settleUnansweredSends(trx, campaignId, now);
    await moveCampaignCounters(
      trx,
      campaignId,
      { settled: count, failed: count, failures: new Map([[reason, count]]) },
      now,
    );
    await recordCampaignEvent(trx, clock, campaignId, "campaign.failed");
  });
  return { state: "done" };
}

/** Why a campaign cannot send at all right now, or null when it can. */
export async function blocker(db: Db, campaign: CampaignTable): Promise<string | null> {
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

/** Thrown inside start()'s transaction when the campaign was paused or cancelled meanwhile. */
export class CampaignMovedError extends Error {}

/** Starts a campaign: snapshots its audience into recipient rows and sets its first counters. */
export async function start(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  checkpoint: (trx: Db) => Promise<void>,
) {
  const { db, clock } = deps;
  const audience = parseJson(campaign.audience);
  const now = isoSeconds(clock.now());
  await db.transaction().execute(async (trx) => {
    const counts = await countAudience(trx, campaign.workspace_id, audience);
    await snapshotRecipients(trx, campaign.id, campaign.workspace_id, audience, now);
    const queued = await trx
      .selectFrom("campaign_recipients")
      .select(sql<number>`count(*)`.as("n"))
      .where("campaign_id", "=", campaign.id)
      .executeTakeFirstOrThrow();
    const started = await trx
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
      // A pause or cancel that committed since the campaign was read wins: nothing starts.
      .where("status", "in", ["scheduled", "running"])
      .executeTakeFirst();
    if (Number(started.numUpdatedRows) === 0) throw new CampaignMovedError();
    // A launched campaign was told as started at its launch; a scheduled one starts now.
    if (campaign.started_at === null) {
      await recordCampaignEvent(trx, clock, campaign.id, "campaign.started");
    }
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
    ...contactFieldsOf(r),
    contact_id: r.contact_id,
    opt_in_status: r.opt_in_status,
  }));
}

/** When an outcome counts as sent or failed: now, but for a send whose answer was lost. */
function outcomeAt(outcome: Outcome, now: string): string | null {
  return outcome.state === "outcome_unknown" ? null : now;
}

/**
 * Writes a batch's outcomes and answers the contacts whose row it changed. `sending` rows are
 * this batch's own; a status webhook (or, after a takeover, another instance) may have resolved
 * one meanwhile, and then that count stands and this outcome is not counted again.
 */
async function writeOutcomes(
  trx: Db,
  campaignId: string,
  outcomes: readonly Outcome[],
  now: string,
): Promise<Set<string>> {
  const rows = outcomes.map((o) => ({
    contactId: o.contactId,
    state: o.state,
    providerMessageId: o.providerMessageId ?? null,
    failureReason: o.reason ?? null,
    outcomeAt: outcomeAt(o, now),
  }));
  return writeRecipientOutcomes(trx, campaignId, rows, now);
}

/** Records one batch's outcomes: recipient rows, counters, failure reasons and the month's meter. */
async function record(deps: CampaignEngineDeps, campaign: CampaignTable, outcomes: Outcome[]) {
  const now = isoSeconds(deps.clock.now());
  const tally: Tally = {
    sent: 0,
    failed: 0,
    skippedOptedOut: 0,
    skippedNoConsent: 0,
    failures: new Map(),
  };
  await deps.db.transaction().execute(async (trx) => {
    const changed = await writeOutcomes(trx, campaign.id, outcomes, now);
    for (const outcome of outcomes) {
      if (!changed.has(outcome.contactId)) continue;
      if (outcome.state === "sent") tally.sent += 1;
      else if (outcome.state === "failed") {
        tally.failed += 1;
        const reason = outcome.reason ?? "unknown";
        tally.failures.set(reason, (tally.failures.get(reason) ?? 0) + 1);
        if (outcome.optOut) {
          await optOutByProvider(
            { db: trx, clock: deps.clock },
            campaign.workspace_id,
            outcome.contactId,
          );
        }
      } else if (outcome.state === "skipped") {
        if (outcome.noConsent) tally.skippedNoConsent += 1;
        else tally.skippedOptedOut += 1;
      }
      // outcome_unknown stays counted as queued until a status webhook or the 24 h limit decides.
    }
    const settled = tally.sent + tally.failed + tally.skippedNoConsent + tally.skippedOptedOut;
    await moveCampaignCounters(
      trx,
      campaign.id,
      {
        settled,
        sent: tally.sent,
        failed: tally.failed,
        skipped_no_consent: tally.skippedNoConsent,
        skipped_opted_out: tally.skippedOptedOut,
        failures: tally.failures,
      },
      now,
      { touchCampaign: true },
    );
    if (tally.sent > 0) {
      await meterSent(trx, campaign.workspace_id, monthOf(deps.clock.now()), tally.sent);
    }
  });
}

/** One recipient's outcome in a batch. */
interface Outcome {
  contactId: string;
  state: string;
  providerMessageId?: string;
  reason?: string;
  /** The operator says the person stopped marketing messages: opt the contact out. */
  optOut?: boolean;
  /** A skip for a contact who never gave consent (rather than one who opted out). */
  noConsent?: boolean;
}

/**
 * Marks the recipients about to go to a provider without idempotency as `sending`, committed
 * before the call: after a crash these are never sent again by themselves. Answers the ones this
 * call marked: a recipient another instance marked or resolved meanwhile is not sent again, and
 * none is marked once the campaign stopped running (paused or cancelled mid-batch).
 */
async function markSending(
  deps: CampaignEngineDeps,
  campaignId: string,
  contactIds: readonly string[],
): Promise<Set<string>> {
  const now = isoSeconds(deps.clock.now());
  const rows = await deps.db
    .updateTable("campaign_recipients")
    .set({ state: "sending", sending_at: now, updated_at: now })
    .where("campaign_id", "=", campaignId)
    .where("contact_id", "in", contactIds)
    .where("state", "=", "queued")
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("campaigns")
          .select("campaigns.id")
          .where("campaigns.id", "=", campaignId)
          .where("campaigns.status", "=", "running"),
      ),
    )
    .returning("contact_id")
    .execute();
  return new Set(rows.map((r) => r.contact_id));
}

/** Whether the campaign still runs (a pause or a cancel may land while its batch is sent). */
async function stillRunning(deps: CampaignEngineDeps, campaignId: string): Promise<boolean> {
  const row = await deps.db
    .selectFrom("campaigns")
    .select("status")
    .where("id", "=", campaignId)
    .executeTakeFirst();
  return row?.status === "running";
}

/** A recipient of a batch and the message to send them. */
interface BatchItem {
  recipient: PendingRecipient;
  message: OutboundMessage;
}

/** A provider with idempotency keys: the batch in one call (a repeat after a crash is harmless). */
async function sendAll(deps: CampaignEngineDeps, items: BatchItem[]): Promise<SendOutcome[]> {
  return items.length > 0 ? deps.sender.send(items.map((s) => s.message)) : [];
}

/**
 * A provider without idempotency: each recipient is marked `sending` (committed) just before
 * its own send, and its answer is recorded (committed, with the `wamid`) as soon as it comes,
 * so a crash leaves at most the sends in flight `outcome_unknown`, never the rest of the batch,
 * and a status webhook naming only the `wamid` finds its recipient.
 *
 * `sendLanes` sends are in flight at once, each lane taking the batch's next recipient when its
 * answer is recorded. Until Meta has taken or refused one of the run's messages (`lanesOpen`),
 * one lane goes alone, so a sender failing before it reaches Meta costs one recipient at a time,
 * not one per lane; unknown outcomes (no answer from Meta) three in a row, or one while alone,
 * close the lanes again and end the batch to wait.
 *
 * Every lane stops at a rate limit or a campaign-wide refusal, as the provider does within a
 * call; when the campaign is paused or cancelled (recipients a cancel counted as `cancelled` must
 * not be messaged after it: the sends in flight finish, none starts); and when the service stops
 * (`signal`), which must hand the job over within its grace period, not after the batch. The
 * recipients after the stop stay queued, as does one marked while the stop came.
 *
 * Answers the items tried, in the batch's order, with their outcomes (those answered already
 * recorded); when a lane throws, the others are waited for and the tried recipients the operator
 * did not take go back to the queue before the error goes on.
 */
async function sendEachMarked(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  items: BatchItem[],
  signal: AbortSignal,
  lanesOpen: LanesOpen,
): Promise<SentItems> {
  const tried: { index: number; item: BatchItem; result: SendOutcome }[] = [];
  let next = 0;
  let stopped = false;
  let outage = false;
  let open: (wide: boolean) => void = () => {};
  const opening = lanesOpen.open
    ? Promise.resolve(true)
    : new Promise<boolean>((resolve) => (open = resolve));
  const lane = async (first: boolean) => {
    if (!first && !(await opening)) return;
    while (!stopped && !signal.aborted) {
      const index = next++;
      const item = items[index];
      if (!item) return;
      const contactId = item.recipient.contact_id;
      const marked = await markSending(deps, campaign.id, [contactId]);
      if (!marked.has(contactId)) {
        // Another instance marked or resolved it meanwhile (not sent again), or the campaign
        // stopped running: the rest of the batch stays queued for the run job to settle.
        if (await stillRunning(deps, campaign.id)) continue;
        stopped = true;
        return;
      }
      // Another lane met a rate limit, or the service began to stop, while this mark waited
      // for the database: nothing went out, so the recipient goes back to the queue.
      if (stopped || signal.aborted) {
        await requeue(deps, campaign.id, [contactId]);
        return;
      }
      const [result] = await deps.sender.send([item.message]);
      if (!result) {
        stopped = true;
        return;
      }
      tried.push({ index, item, result });
      const answer = answeredOutcome(contactId, result);
      if (!answer) {
        stopped = true;
        return;
      }
      await record(deps, campaign, [answer]);
      if (result.status === "unknown") {
        // A 5xx or a broken connection. One now and then (a timeout) is passed over; several in
        // a row, or one while the lanes are closed, say Meta is out of reach, and every send into
        // that costs its recipient for good: the batch ends (the run waits, sendBatch), and the
        // next goes alone until Meta answers again.
        lanesOpen.unknownInARow += 1;
        if (!lanesOpen.open || lanesOpen.unknownInARow >= unknownsToClose) {
          lanesOpen.open = false;
          outage = true;
          stopped = true;
          return;
        }
        continue;
      }
      // Meta took it or refused it: the sender reaches Meta (unless an answer coming late,
      // after the batch was stopped, would reopen the lanes into an outage).
      lanesOpen.unknownInARow = 0;
      if (!stopped) {
        lanesOpen.open = true;
        open(true);
      }
    }
  };
  const lanes = Math.max(1, Math.min(deps.sendLanes ?? defaultSendLanes, items.length));
  // Every lane is waited for, a failing one included: none may go on sending once the job ends.
  const ends = await Promise.allSettled(
    Array.from({ length: lanes }, (_, i) =>
      lane(i === 0)
        .catch((error: unknown) => {
          stopped = true;
          throw error;
        })
        .finally(() => {
          if (i === 0) open(false);
        }),
    ),
  );
  const failure = ends.find((end) => end.status === "rejected");
  if (failure) {
    const untaken = tried.filter((t) => !answeredOutcome(t.item.recipient.contact_id, t.result));
    if (untaken.length > 0) {
      await requeue(
        deps,
        campaign.id,
        untaken.map((t) => t.item.recipient.contact_id),
      );
    }
    throw failure.reason;
  }
  tried.sort((a, b) => a.index - b.index);
  return {
    items: tried.map((t) => t.item),
    results: tried.map((t) => t.result),
    answersRecorded: true,
    outage,
  };
}

/**
 * Whether a run's sends may use every lane (Meta has taken or refused one of its messages since
 * it last seemed out of reach), and how many unknown outcomes came since its last answer.
 */
export interface LanesOpen {
  open: boolean;
  unknownInARow: number;
}

/** Unknown outcomes in a row, with no answer from Meta between, that close the lanes. */
export const unknownsToClose = 3;

/** The items a batch tried, their outcomes, and whether the answered ones are recorded already. */
interface SentItems {
  items: BatchItem[];
  results: SendOutcome[];
  answersRecorded: boolean;
  /** Meta stopped answering (unknown outcomes): the batch ended to wait. */
  outage?: boolean;
}

/** A recipient's outcome from the provider's answer; undefined when the send was not taken. */
function answeredOutcome(contactId: string, result: SendOutcome): Outcome | undefined {
  switch (result.status) {
    case "accepted":
      return { contactId, state: "sent", providerMessageId: result.providerMessageId };
    case "failed":
      return {
        contactId,
        state: "failed",
        reason: result.reason,
        ...(result.optOut ? { optOut: true } : {}),
      };
    case "unknown":
      return { contactId, state: "outcome_unknown" };
    default:
      return undefined;
  }
}

/** Sends one batch of queued recipients and says how it ended. */
export async function sendBatch(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  size: number,
  exactlyOnce: boolean,
  signal: AbortSignal,
  lanesOpen: LanesOpen,
): Promise<BatchEnd> {
  const { db, clock } = deps;
  const queued = await pendingRecipients(db, campaign.id, size);
  if (queued.length === 0) return { kind: "empty" };
  // Claimed once there is someone to send to, so a finished campaign takes none of the budget.
  const grant = await deps.throttles.take(campaign.channel_id, queued.length);
  if (grant.granted === 0) return { kind: "wait", waitMs: grant.waitMs };
  const recipients = queued.slice(0, grant.granted);
  const texts = templateTexts(
    (
      await db
        .selectFrom("templates")
        .select("components")
        .where("id", "=", campaign.template_id)
        .executeTakeFirstOrThrow()
    ).components,
  );
  const mapping = parseJson(campaign.variable_mapping);
  const allowance = await planAllowance(
    db,
    clock,
    { id: campaign.workspace_id, plan_id: await currentPlanId(db, campaign.workspace_id) },
    "messages_per_month",
  );
  let quotaLeft = allowance
    ? Math.max(0, allowance.limit - allowance.used)
    : Number.POSITIVE_INFINITY;

  const outcomes: Outcome[] = [];
  const fail = (contactId: string, reason: string) => {
    outcomes.push({ contactId, state: "failed", reason });
  };
  let toSend: BatchItem[] = [];
  for (const recipient of recipients) {
    // Consent is checked again at send time: a STOP since the snapshot is honoured.
    if (recipient.opt_in_status !== "opted_in") {
      outcomes.push({
        contactId: recipient.contact_id,
        state: "skipped",
        noConsent: recipient.opt_in_status === "not_set",
      });
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
        recipientId: `${campaign.id}:${recipient.contact_id}`,
        channelId: campaign.channel_id,
        to: recipient.phone,
        templateName: campaign.template_name,
        templateLanguage: campaign.template_language,
        body: rendered.body,
        parameters: rendered.parameters,
      },
    });
  }
  const sent: SentItems = exactlyOnce
    ? { items: toSend, results: await sendAll(deps, toSend), answersRecorded: false }
    : await sendEachMarked(deps, campaign, toSend, signal, lanesOpen);
  toSend = sent.items;
  const results = sent.results;
  await grant.settle?.(toSend.length);
  let failure: string | undefined;
  const notSent: string[] = [];
  results.forEach((result, i) => {
    const contactId = toSend[i]?.recipient.contact_id ?? "";
    const answer = answeredOutcome(contactId, result);
    if (answer) {
      if (!sent.answersRecorded) outcomes.push(answer);
      return;
    }
    notSent.push(contactId);
    if (result.status === "campaign_failed") failure ??= result.reason;
  });
  // Meta out of reach (unknown outcomes in a row) is waited out as a rate limit is: sends into an
  // outage would each be lost as outcome_unknown.
  const outage = sent.outage === true;
  const end: BatchEnd =
    failure !== undefined
      ? { kind: "failed", reason: failure }
      : notSent.length > 0 || outage
        ? { kind: "backoff", answered: results.length - notSent.length }
        : { kind: "sent" };
  await record(deps, campaign, outcomes);
  if (notSent.length > 0) await requeue(deps, campaign.id, notSent);
  const wall = results.find((r) => r.status === "campaign_failed");
  if (wall?.status === "campaign_failed") await applyCampaignWall(deps, campaign, wall);
  return end;
}

/** Puts recipients the operator did not take (rate limit, campaign failure) back in the queue. */
async function requeue(
  deps: CampaignEngineDeps,
  campaignId: string,
  contactIds: readonly string[],
) {
  await deps.db
    .updateTable("campaign_recipients")
    .set({ state: "queued", sending_at: null })
    .where("campaign_id", "=", campaignId)
    .where("contact_id", "in", contactIds)
    .where("state", "=", "sending")
    .execute();
}

/** What a campaign-wide refusal says about the template or the channel, recorded as such. */
async function applyCampaignWall(
  deps: CampaignEngineDeps,
  campaign: CampaignTable,
  wall: Extract<SendOutcome, { status: "campaign_failed" }>,
) {
  if (wall.disconnectChannel) await disconnectChannel(deps.db, deps.clock, campaign.channel_id);
  if (wall.templateStatus) {
    // The same rule (and template.status_changed event) as the operator's status webhooks.
    await applyTemplateStatus(deps.db, deps.clock, campaign.template_id, {
      status: wall.templateStatus,
    });
  }
}
