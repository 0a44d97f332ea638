import { type SelectQueryBuilder, sql } from "kysely";
import type {
  MessageCounts,
  MessagesByCategory,
  UsageMeta,
  UsageQuery,
  WorkspaceMonthUsage,
} from "../../contract/usage.js";
import { templateCategories } from "../../contract/vocabulary.js";
import type { Db } from "../db/database.js";
import { paginate } from "../db/keyset-paging.js";
import type { Database } from "../db/schema.js";
import type { Clock } from "./clock.js";
import { monthOf } from "./message-meter.js";
import { invalidField } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { requireResellerToken } from "./workspace-access.js";

function zeroCounts(): MessageCounts {
  return { sent: 0, delivered: 0, read: 0, failed: 0 };
}

function emptyMessages(): MessagesByCategory {
  return {
    marketing: zeroCounts(),
    utility: zeroCounts(),
    authentication: zeroCounts(),
    total: zeroCounts(),
  };
}

function addState(counts: MessageCounts, state: string, n: number): void {
  if (state === "failed") counts.failed += n;
  if (state === "sent" || state === "delivered" || state === "read") counts.sent += n;
  if (state === "delivered" || state === "read") counts.delivered += n;
  if (state === "read") counts.read += n;
}

/** `[first instant of the month, first instant of the next]` as ISO text. */
function monthBounds(month: string): [string, string] {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  const next = mon === 12 ? `${year + 1}-01` : `${year}-${String(mon + 1).padStart(2, "0")}`;
  return [`${month}-01T00:00:00Z`, `${next}-01T00:00:00Z`];
}

/**
 * The month's usage of every workspace of the reseller, what it bills clients from: messages by
 * template category (sent or failed that month), contacts at the month's end, templates
 * approved by then and still approved, and the plan as it is now, with totals.
 */
export async function monthlyUsage(
  db: Db,
  clock: Clock,
  principal: Principal,
  query: UsageQuery,
): Promise<{ data: WorkspaceMonthUsage[]; meta: UsageMeta }> {
  requireResellerToken(principal, "read the reseller's usage report");
  const current = monthOf(clock.now());
  const asked = query.month ?? current;
  // YYYY-MM compares as text: a month to come has no usage, and "now" counts would read as its.
  if (asked > current) {
    throw invalidField("month", `is still to come; the latest month with usage is ${current}`);
  }
  const [from, to] = monthBounds(asked);
  const inReport = db
    .selectFrom("workspaces")
    .where("workspaces.reseller_id", "=", principal.resellerId)
    .where("workspaces.created_at", "<", to);
  // The page is a list like any other, newest first; the counts and totals cover the report.
  const page = await paginate(
    inReport
      .leftJoin("plans", "plans.id", "workspaces.plan_id")
      .select([
        "workspaces.id",
        "workspaces.name",
        "workspaces.status",
        "workspaces.plan_id",
        "plans.name as plan_name",
        "plans.slug as plan_slug",
      ]),
    "workspaces.id",
    query,
  );
  const reportIds = inReport.select("workspaces.id");
  // A message counts in the month it was sent or failed, as the quota's meter counts it; rows
  // from before that was recorded count in the month their campaign started.
  const billedAt = sql<string>`coalesce(r.outcome_at, c.started_at)`;
  const messages = await db
    .selectFrom("campaign_recipients as r")
    .innerJoin("campaigns as c", "c.id", "r.campaign_id")
    .leftJoin("templates as t", "t.id", "c.template_id")
    .select((eb) => ["c.workspace_id", "t.category", "r.state", eb.fn.countAll<number>().as("n")])
    .where("c.workspace_id", "in", reportIds)
    // Only campaigns that can have an outcome in the month: started before its end, and counted
    // something since its start (every outcome moves stats_updated_at).
    .where("c.started_at", "<", to)
    .where("c.stats_updated_at", ">=", from)
    .where(billedAt, ">=", from)
    .where(billedAt, "<", to)
    .groupBy(["c.workspace_id", "t.category", "r.state"])
    .execute();
  const contacts = await db
    .selectFrom("contacts")
    .select((eb) => ["workspace_id", eb.fn.countAll<number>().as("n")])
    .where("workspace_id", "in", reportIds)
    .where("created_at", "<", to)
    .groupBy("workspace_id")
    .execute();
  const templates = await approvedAtMonthEnd(db, reportIds, to);

  const totals: UsageMeta["totals"] = {
    workspaces: page.pagination.total,
    messages: emptyMessages(),
    contacts: 0,
    active_templates: 0,
  };
  const messagesOf = new Map<string, MessagesByCategory>();
  for (const row of messages) {
    let byCategory = messagesOf.get(row.workspace_id);
    if (!byCategory) {
      byCategory = emptyMessages();
      messagesOf.set(row.workspace_id, byCategory);
    }
    const category = (templateCategories as readonly string[]).includes(row.category ?? "")
      ? (row.category as (typeof templateCategories)[number])
      : "marketing";
    for (const counts of [byCategory[category], byCategory.total, totals.messages[category]]) {
      addState(counts, row.state, Number(row.n));
    }
    addState(totals.messages.total, row.state, Number(row.n));
  }
  const contactsOf = new Map(contacts.map((c) => [c.workspace_id, Number(c.n)]));
  const templatesOf = new Map(templates.map((t) => [t.workspace_id, Number(t.n)]));
  for (const n of contactsOf.values()) totals.contacts += n;
  for (const n of templatesOf.values()) totals.active_templates += n;

  // A workspace created after the counts were read has none yet: zeros, never a missing row.
  const data = page.rows.map(
    (w): WorkspaceMonthUsage => ({
      workspace_id: w.id,
      workspace_name: w.name,
      status: w.status,
      plan:
        w.plan_id === null || w.plan_name === null || w.plan_slug === null
          ? null
          : { id: w.plan_id, name: w.plan_name, slug: w.plan_slug },
      messages: messagesOf.get(w.id) ?? emptyMessages(),
      contacts: contactsOf.get(w.id) ?? 0,
      active_templates: templatesOf.get(w.id) ?? 0,
    }),
  );
  return { data, meta: { pagination: page.pagination, month: asked, totals } };
}

/**
 * How many templates of each workspace were approved at `to` (a month's end), from their
 * approval periods. Two cases are read from the template itself, for a version of the service
 * before migration 0022 still running beside this one during an upgrade (it changes a template
 * without a period): an approved template with no open period counts from its last review, and
 * an open period of a template no longer approved counts no more.
 */
async function approvedAtMonthEnd(
  db: Db,
  workspaceIds: SelectQueryBuilder<Database, "workspaces", { id: string }>,
  to: string,
) {
  const periods = db
    .selectFrom("template_approvals as a")
    .leftJoin("templates as t", "t.id", "a.template_id")
    .select(["a.workspace_id", "a.template_id as id"])
    .where("a.workspace_id", "in", workspaceIds)
    .where("a.approved_from", "<", to)
    .where((eb) =>
      eb.or([
        eb("a.approved_until", ">=", to),
        eb.and([eb("a.approved_until", "is", null), eb("t.status", "=", "approved")]),
      ]),
    );
  const unrecorded = db
    .selectFrom("templates as t")
    .select(["t.workspace_id", "t.id"])
    .where("t.workspace_id", "in", workspaceIds)
    .where("t.status", "=", "approved")
    .where(sql<string>`coalesce(t.reviewed_at, t.updated_at)`, "<", to)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("template_approvals as o")
            .select("o.template_id")
            .whereRef("o.template_id", "=", "t.id")
            .where("o.approved_until", "is", null),
        ),
      ),
    );
  return db
    .selectFrom(periods.union(unrecorded).as("approved"))
    .select((eb) => ["approved.workspace_id", eb.fn.countAll<number>().as("n")])
    .groupBy("approved.workspace_id")
    .execute();
}
