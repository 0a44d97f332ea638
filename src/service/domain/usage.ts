import type { Feature } from "../../contract/plans.js";
import { campaignStatuses, optInStatuses, templateStatuses } from "../../contract/vocabulary.js";
import type { UsageLimit, WorkspaceUsage } from "../../contract/workspaces.js";
import type { Db } from "../db/database.js";
import type { Clock } from "./clock.js";
import { meteredSent, monthOf } from "./message-meter.js";

/** What a usage counter needs: the database, the workspace, and the current month. */
export interface UsageSubject {
  db: Db;
  workspaceId: string;
  /** The current calendar month (UTC), `YYYY-MM`. */
  month: string;
}

/** Per-status counts of one vocabulary plus their total. */
export type StatusCounts<S extends readonly string[]> = { total: number } & Record<
  S[number],
  number
>;

/** Counts of every status at zero: what a counter returns before its table exists. */
export function emptyCounts<const S extends readonly string[]>(values: S): StatusCounts<S> {
  const counts: Record<string, number> = { total: 0 };
  for (const value of values) counts[value] = 0;
  return counts as StatusCounts<S>;
}

/** Per-status counts from the `(status, count)` rows of a GROUP BY query; unknown statuses are ignored. */
export function countsFrom<const S extends readonly string[]>(
  values: S,
  rows: readonly { status: string; count: number | string | bigint }[],
): StatusCounts<S> {
  const counts: Record<string, number> = emptyCounts(values);
  for (const row of rows) {
    if (!(values as readonly string[]).includes(row.status)) continue;
    counts[row.status] = Number(row.count);
    counts.total = (counts.total ?? 0) + Number(row.count);
  }
  return counts as StatusCounts<S>;
}

// The counters. Contacts, templates, campaigns and messages arrive with later features; until
// their tables exist each counter answers zeros, and the feature that adds a table replaces its
// counter's body with a GROUP BY count of that workspace's rows (see countsFrom). Nothing else
// changes: the usage response and plan-limit enforcement both read these counters.

async function contactCounts(subject: UsageSubject): Promise<StatusCounts<typeof optInStatuses>> {
  // contact_counts holds the per-status counts, kept exact by triggers on contacts (a count of
  // a million contacts' rows would cost every upsert that checks the plan's limit).
  const rows = await subject.db
    .selectFrom("contact_counts")
    .select((eb) => ["opt_in_status as status", eb.fn.sum<number>("count").as("count")])
    .where("workspace_id", "=", subject.workspaceId)
    .groupBy("opt_in_status")
    .execute();
  return countsFrom(optInStatuses, rows);
}

async function templateCounts(
  subject: UsageSubject,
): Promise<StatusCounts<typeof templateStatuses>> {
  const rows = await subject.db
    .selectFrom("templates")
    .select((eb) => ["status", eb.fn.countAll<number>().as("count")])
    .where("workspace_id", "=", subject.workspaceId)
    .groupBy("status")
    .execute();
  return countsFrom(templateStatuses, rows);
}

async function campaignCounts(
  subject: UsageSubject,
): Promise<StatusCounts<typeof campaignStatuses>> {
  const rows = await subject.db
    .selectFrom("campaigns")
    .select((eb) => ["status", eb.fn.countAll<number>().as("count")])
    .where("workspace_id", "=", subject.workspaceId)
    .groupBy("status")
    .execute();
  return countsFrom(campaignStatuses, rows);
}

async function messagesSentThisMonth(subject: UsageSubject): Promise<number> {
  return meteredSent(subject.db, subject.workspaceId, subject.month);
}

/**
 * How each metered plan feature (by key) is measured. A limit or quota feature of a plan that is
 * not listed here is not metered yet and reports 0 used.
 */
const meters: Record<string, (subject: UsageSubject) => Promise<number>> = {
  contacts: async (subject) => (await contactCounts(subject)).total,
  templates: async (subject) => (await templateCounts(subject)).total,
  messages_per_month: messagesSentThisMonth,
};

function subjectOf(db: Db, clock: Clock, workspaceId: string): UsageSubject {
  return { db, workspaceId, month: monthOf(clock.now()) };
}

/** Whether a plan feature has a ceiling to meter (limit or quota), as opposed to a boolean. */
export function isMetered(feature: Feature): feature is Feature & { type: "limit" | "quota" } {
  return feature.type === "limit" || feature.type === "quota";
}

/** How much of one plan feature a workspace uses now: what plan-limit checks compare. */
export async function meteredUsage(
  db: Db,
  clock: Clock,
  workspaceId: string,
  featureKey: string,
): Promise<number> {
  const meter = meters[featureKey];
  return meter ? meter(subjectOf(db, clock, workspaceId)) : 0;
}

/** The usage of a workspace: its counts, and each metered feature of its plan against its ceiling. */
export async function computeUsage(
  db: Db,
  clock: Clock,
  workspaceId: string,
  planFeatures: readonly Feature[],
): Promise<WorkspaceUsage> {
  const subject = subjectOf(db, clock, workspaceId);
  const [contacts, templates, campaigns, messages] = await Promise.all([
    contactCounts(subject),
    templateCounts(subject),
    campaignCounts(subject),
    messagesSentThisMonth(subject),
  ]);
  const limits: UsageLimit[] = [];
  for (const feature of planFeatures.filter(isMetered)) {
    const meter = meters[feature.key];
    limits.push({
      key: feature.key,
      name: feature.name,
      type: feature.type,
      limit: feature.value ?? -1,
      used: meter ? await meter(subject) : 0,
    });
  }
  return { contacts, templates, campaigns, messages_sent_this_month: messages, limits };
}
