import { isUnlimited } from "../../../contract/vocabulary.js";
import type { UsageLimit, Workspace, WorkspaceWithUsage } from "../../../contract/workspaces.js";
import { ceilingText, count } from "../../output/counts.js";
import { when } from "../../output/time.js";
import type { Column, Paint, View } from "../../output/view.js";
import { recordView, stackView, tableView } from "../../output/view.js";

function planText(ws: Workspace, paint: Paint): string {
  if (ws.plan) return `${ws.plan.name} ${paint.dim(`(id ${ws.plan.id}, ${ws.plan.slug})`)}`;
  return ws.plan_id === null ? paint.dim("no plan") : ws.plan_id;
}

/** Columns of a workspace list; CSV headers are the wire's field names. */
export const workspaceColumns: Column<Workspace>[] = [
  { header: "Id", key: "id", value: (w) => w.id },
  { header: "Name", key: "name", value: (w) => w.name, display: (w, paint) => paint.bold(w.name) },
  {
    header: "Status",
    key: "status",
    value: (w) => w.status,
    display: (w, paint) => paint.status(w.status),
  },
  {
    header: "Plan",
    key: "plan_id",
    value: (w) => w.plan_id,
    display: (w, paint) => (w.plan ? w.plan.name : planText(w, paint)),
  },
  { header: "Contact", key: "contact_email", value: (w) => w.contact_email },
  {
    header: "Trial ends",
    key: "trial_ends_at",
    value: (w) => w.trial_ends_at,
    display: (w) => (w.trial_ends_at ? when(w.trial_ends_at).slice(0, 10) : ""),
  },
  {
    header: "Created",
    key: "created_at",
    value: (w) => w.created_at,
    display: (w) => when(w.created_at).slice(0, 10),
  },
];

/** The fields of one workspace, in reading order. */
export const workspaceFields: Column<Workspace>[] = [
  { header: "Id", key: "id", value: (w) => w.id },
  { header: "Name", key: "name", value: (w) => w.name, display: (w, paint) => paint.bold(w.name) },
  {
    header: "Status",
    key: "status",
    value: (w) => w.status,
    display: (w, paint) => paint.status(w.status),
  },
  {
    // Whether a script can tell a trial that ran out from a suspension by the reseller.
    header: "Suspended because",
    key: "suspended_reason",
    value: (w) => w.suspended_reason,
    display: (w) => w.suspended_reason?.replaceAll("_", " ") ?? "—",
  },
  { header: "Plan", key: "plan_id", value: (w) => w.plan_id, display: planText },
  { header: "Contact email", key: "contact_email", value: (w) => w.contact_email },
  {
    header: "Trial ends",
    key: "trial_ends_at",
    value: (w) => w.trial_ends_at,
    display: (w) => when(w.trial_ends_at),
  },
  {
    header: "Invitation",
    key: "invitation.sent",
    value: (w) => w.invitation.sent,
    display: (w, paint) =>
      w.invitation.sent ? `sent ${when(w.invitation.sent_at)}` : paint.dim("not sent"),
  },
  {
    header: "Invitation sent",
    key: "invitation.sent_at",
    value: (w) => w.invitation.sent_at,
    terminal: false,
  },
  {
    header: "Created",
    key: "created_at",
    value: (w) => w.created_at,
    display: (w) => when(w.created_at),
  },
  {
    header: "Updated",
    key: "updated_at",
    value: (w) => w.updated_at,
    display: (w) => when(w.updated_at),
  },
];

/** `1,234 / 5,000`, `12 / unlimited`; `this month` for a quota. */
export function allowance(limit: UsageLimit): string {
  return `${count(limit.used)} / ${ceilingText(limit.limit)}${limit.type === "quota" ? " this month" : ""}`;
}

/** Red at or over the ceiling, yellow from 80 %, plain below or without one. */
function paintAllowance(limit: UsageLimit, paint: Paint): string {
  const text = allowance(limit);
  if (isUnlimited(limit.limit)) return text;
  if (limit.used >= limit.limit) return paint.bad(text);
  return limit.used >= limit.limit * 0.8 ? paint.warn(text) : text;
}

/** `12 total · 10 opted_in · 2 not_set · 0 opted_out`, zero counts dimmed at a terminal. */
function countsLine(counts: Record<string, number>, paint: Paint): string {
  const { total = 0, ...byStatus } = counts;
  const parts = Object.entries(byStatus).map(([status, n]) =>
    n === 0 ? paint.dim(`0 ${status}`) : `${count(n)} ${paint.status(status)}`,
  );
  return [`${count(total)} total`, ...parts].join(" · ");
}

/** `total=12 opted_in=10 …` for piped output. */
function countsRaw(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([status, n]) => `${status}=${n}`)
    .join(" ");
}

/**
 * One workspace with its usage: the record, then each plan limit as `used / limit`, then the
 * counts per status. Piped, every line is `key<TAB>value` with keys named after the JSON paths.
 */
export function workspaceWithUsageView(ws: WorkspaceWithUsage): View {
  const { usage } = ws;
  const countFields: Column<WorkspaceWithUsage["usage"]>[] = [
    {
      header: "Contacts",
      key: "usage.contacts",
      value: (u) => countsRaw(u.contacts),
      display: (u, paint) => countsLine(u.contacts, paint),
    },
    {
      header: "Templates",
      key: "usage.templates",
      value: (u) => countsRaw(u.templates),
      display: (u, paint) => countsLine(u.templates, paint),
    },
    {
      header: "Campaigns",
      key: "usage.campaigns",
      value: (u) => countsRaw(u.campaigns),
      display: (u, paint) => countsLine(u.campaigns, paint),
    },
    {
      header: "Messages sent this month",
      key: "usage.messages_sent_this_month",
      value: (u) => u.messages_sent_this_month,
      display: (u) => count(u.messages_sent_this_month),
    },
  ];
  const limitFields: Column<UsageLimit[]>[] = usage.limits.map((limit) => ({
    header: limit.name,
    key: `usage.limits.${limit.key}`,
    value: () => `${limit.used}/${ceilingText(limit.limit, String)}`,
    display: (_, paint) => paintAllowance(limit, paint),
  }));
  return stackView(
    { view: recordView<Workspace>(ws, workspaceFields) },
    {
      title: ws.plan ? `Usage against the ${ws.plan.name} plan` : "Usage (no plan, no limits)",
      view: recordView(usage.limits, limitFields),
    },
    { title: "Counts", view: recordView(usage, countFields) },
  );
}

/** A list of workspaces. */
export function workspaceTable(rows: readonly Workspace[]): View {
  return tableView(rows, workspaceColumns, {
    empty:
      "No workspaces match (archived ones are listed with --status archived). Create one with `reseller workspaces create`.",
  });
}
