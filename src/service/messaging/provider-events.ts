import type { Db } from "../db/database.js";
import { completeIfSettled, moveCampaignCounters } from "../domain/campaign-outcomes.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { ContactWriter } from "../domain/contact-store.js";
import { toContact } from "../domain/contacts.js";
import { recordConsentEvent } from "../domain/events.js";
import { applyInboundMessage } from "../domain/inbound-replies.js";
import { meterSent, monthOf } from "../domain/message-meter.js";
import { applyTemplateStatus } from "../domain/templates.js";
import { sendErrorMeaning } from "./graph-errors.js";
import type { MessageStatusReport } from "./message-sender.js";
import type { TemplateDecision } from "./provider.js";

/**
 * The one event path of the messaging operators. The sandbox (its delivery and read reports)
 * and the Cloud API's webhooks and template sync both turn what happened at the operator into
 * these events, so the funnel (sent → delivered → read), consent (STOP/START, stopped
 * marketing) and template decisions are applied by one piece of code.
 */
export type ProviderEvent =
  | { kind: "status"; report: MessageStatusReport }
  /** A contact wrote to one of the workspace's numbers; `from` in E.164. */
  | { kind: "message"; workspaceId: string; from: string; text: string }
  | {
      kind: "template_status";
      templateId: string;
      decision: TemplateDecision;
      /** When the operator made the report (a webhook's time); left out: now. */
      reportedAt?: Date;
    };

/** What applying events needs: the database (the caller's transaction) and the time. */
export interface EventPathDeps {
  db: Db;
  clock: Clock;
}

/**
 * Applies operator events in order inside the caller's transaction. Answers the message ids of
 * status reports no recipient holds yet (the sandbox tries those again a little later).
 */
export async function applyProviderEvents(
  deps: EventPathDeps,
  events: readonly ProviderEvent[],
): Promise<{ unmatched: string[] }> {
  const unmatched: string[] = [];
  let reports: MessageStatusReport[] = [];
  const flushReports = async () => {
    if (reports.length === 0) return;
    const result = await applyStatusReports(deps.db, deps.clock, reports);
    unmatched.push(...result.unmatched);
    reports = [];
  };
  for (const event of events) {
    if (event.kind === "status") {
      reports.push(event.report);
      continue;
    }
    await flushReports();
    if (event.kind === "message") {
      await applyInboundMessage(deps, event.workspaceId, event.from, event.text);
    } else {
      await applyTemplateStatus(
        deps.db,
        deps.clock,
        event.templateId,
        event.decision,
        reportTime(event.reportedAt, deps.clock.now()),
      );
    }
  }
  await flushReports();
  return { unmatched };
}

/** How far ahead of our clock Meta's may be before its webhooks' times are not taken as they are. */
const clockAheadMs = 60_000;

/**
 * When a template report counts as made: its own time (Meta's order among its webhooks), but no
 * later than a minute from now, so a clock far ahead cannot put a report past every later one
 * of ours; now when it has none.
 */
function reportTime(reportedAt: Date | undefined, now: Date): Date {
  if (!reportedAt) return now;
  const latest = now.getTime() + clockAheadMs;
  return reportedAt.getTime() > latest ? new Date(latest) : reportedAt;
}

/** A funnel position: states only move to a higher rank. */
const rank: Record<string, number> = {
  queued: 0,
  sending: 0,
  outcome_unknown: 0,
  sent: 1,
  delivered: 2,
  read: 3,
};

/** A campaign's counter changes from a run of reports (see moveCampaignCounters). */
interface Counters {
  /** Recipients counted as queued (their send had no recorded answer) that a report resolved. */
  settled: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  failures: Map<string, number>;
}

const emptyCounters = (): Counters => ({
  settled: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  failures: new Map(),
});

/**
 * Why a failed status fails its message, from the operator's error code: the reason the error
 * table gives a code that fails a message, a campaign or the channel (a paused template's
 * `template_paused` too). A status only reports the one message, so what a send's answer would
 * do besides (fail the campaign, disconnect the channel) is left to the next send, which meets
 * the same error. A rate-limit code, which the table retries, cannot be retried once Meta failed
 * the message: `provider_error_<code>`, as any code the table does not list.
 */
function failureReason(code: number | undefined): string {
  if (code === undefined) return "provider_error_unknown";
  const meaning = sendErrorMeaning(code);
  return meaning.kind === "backoff" ? `provider_error_${code}` : meaning.reason;
}

/**
 * Opts a contact out because the operator says the person stopped marketing messages, with its
 * `contact.opted_out` event, inside the caller's transaction.
 */
export async function optOutByProvider(
  deps: { db: Db; clock: Clock },
  workspaceId: string,
  contactId: string,
): Promise<void> {
  const writer = new ContactWriter(deps.db, workspaceId);
  const contact = await writer.byId(contactId);
  if (!contact || contact.opt_in_status === "opted_out") return;
  const updated = writer.update(
    contact,
    { opt_in_status: "opted_out", opt_in_source: "provider" },
    { now: isoSeconds(deps.clock.now()), source: "provider" },
  );
  if ("field" in updated) return;
  await writer.flush();
  await recordConsentEvent(
    deps.db,
    deps.clock,
    workspaceId,
    contact.opt_in_status,
    toContact(updated),
  );
}

/**
 * Applies status reports to recipients and campaign counters, forward only: a read that
 * arrives before its delivered counts both, a repeated or older report changes nothing, and a
 * report for a recipient whose send had no recorded answer (`sending`, `outcome_unknown`)
 * resolves it. Reports are matched by the operator's message id, or by the recipient id the
 * message carried. Answers the message ids no recipient holds yet.
 */
export async function applyStatusReports(
  db: Db,
  clock: Clock,
  reports: readonly MessageStatusReport[],
): Promise<{ unmatched: string[] }> {
  const now = isoSeconds(clock.now());
  const byCampaign = new Map<string, Counters>();
  // Sends confirmed only now (their answer was lost): the month's meter counts them here.
  const metered = new Map<string, number>();
  const unmatched: string[] = [];
  for (const report of reports) {
    let query = db
      .selectFrom("campaign_recipients as r")
      .innerJoin("campaigns as c", "c.id", "r.campaign_id")
      .select([
        "r.campaign_id",
        "r.contact_id",
        "r.state",
        "r.provider_message_id",
        "c.workspace_id",
      ]);
    const [campaignId, contactId] = (report.recipientId ?? "").split(":");
    query =
      campaignId && contactId
        ? query.where("r.campaign_id", "=", campaignId).where("r.contact_id", "=", contactId)
        : query.where("r.provider_message_id", "=", report.providerMessageId);
    if (report.channelId !== undefined) query = query.where("c.channel_id", "=", report.channelId);
    const recipient = await query.executeTakeFirst();
    if (!recipient) {
      unmatched.push(report.providerMessageId);
      continue;
    }
    const from = recipient.state;
    const before = rank[from];
    if (before === undefined) continue; // failed or skipped: final.
    const counts = byCampaign.get(recipient.campaign_id) ?? emptyCounters();
    const unresolved = from === "sending" || from === "outcome_unknown" || from === "queued";
    let to: string;
    let reason: string | null = null;
    if (report.status === "failed") {
      // A message already delivered or read does not fail afterwards.
      if (before > 1) continue;
      to = "failed";
      reason = failureReason(report.errorCode);
    } else {
      if ((rank[report.status] ?? 0) <= before) continue;
      to = report.status;
    }
    const updated = await db
      .updateTable("campaign_recipients")
      .set({
        state: to,
        failure_reason: reason,
        provider_message_id: recipient.provider_message_id ?? (report.providerMessageId || null),
        // A send whose answer was lost counts in the month it is confirmed, as the meter does.
        ...(unresolved ? { outcome_at: now } : {}),
        updated_at: now,
      })
      .where("campaign_id", "=", recipient.campaign_id)
      .where("contact_id", "=", recipient.contact_id)
      .where("state", "=", from)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) continue;
    if (unresolved) {
      counts.settled += 1;
      if (to !== "failed") {
        counts.sent += 1;
        metered.set(recipient.workspace_id, (metered.get(recipient.workspace_id) ?? 0) + 1);
      }
    }
    if (to === "failed") {
      // `sent` counts messages that did not end in failure: sent + failed = recipients with consent.
      if (from === "sent") counts.sent -= 1;
      counts.failed += 1;
      counts.failures.set(reason ?? "", (counts.failures.get(reason ?? "") ?? 0) + 1);
      const meaning = report.errorCode === undefined ? null : sendErrorMeaning(report.errorCode);
      if (meaning?.kind === "message" && meaning.optOut) {
        await optOutByProvider({ db, clock }, recipient.workspace_id, recipient.contact_id);
      }
    } else {
      const after = rank[to] ?? 0;
      if (before < 2 && after >= 2) counts.delivered += 1;
      if (after === 3) counts.read += 1;
    }
    byCampaign.set(recipient.campaign_id, counts);
  }
  for (const [campaignId, counts] of byCampaign) {
    await moveCampaignCounters(db, campaignId, counts, now);
    if (counts.settled > 0) {
      // In the caller's transaction when it has one (webhooks), else in one of its own.
      if (db.isTransaction) await completeIfSettled(db, clock, campaignId);
      else await db.transaction().execute((trx) => completeIfSettled(trx, clock, campaignId));
    }
  }
  const month = monthOf(clock.now());
  for (const [workspaceId, sent] of metered) await meterSent(db, workspaceId, month, sent);
  return { unmatched };
}
