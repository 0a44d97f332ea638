import type { z } from "zod";
import type {
  Audience,
  Campaign,
  CampaignPreview,
  CampaignStats,
} from "../../../contract/campaigns.js";
import type { Notice } from "../../../contract/envelope.js";
import { replaceVariables } from "../../../contract/template-rules.js";
import { count, counted } from "../../output/counts.js";
import { when } from "../../output/time.js";
import type { Column, Paint, View } from "../../output/view.js";
import { recordView, tableView, textView } from "../../output/view.js";

export type Preview = z.infer<typeof CampaignPreview>;

/** Who a campaign would really message: consenting contacts whose message can be filled. */
export function toBeMessaged(preview: Preview): number {
  return preview.with_consent - preview.missing_variable;
}

/** `/api/v1/workspaces/<id>/campaigns`, or below it (`preview`, `<id>/stats`, …). */
export function campaignsPath(workspaceId: string, ...rest: string[]): string {
  const base = `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/campaigns`;
  return [base, ...rest.map((part) => encodeURIComponent(part))].join("/");
}

/** `cmp_01… (Spring launch)`: how messages name a campaign. */
export function campaignLabel(c: { id: string; name: string }): string {
  return `${c.id} (${c.name})`;
}

/** `all contacts`, `tags vip, gold`, `3 contacts: ct_1, ct_2, ct_3`. */
export function audienceText(audience: Audience): string {
  if ("all" in audience) return "all contacts";
  if ("tags" in audience) {
    return `${audience.tags.length === 1 ? "tag" : "tags"} ${audience.tags.join(", ")}`;
  }
  const ids = audience.contact_ids;
  const shown = ids.slice(0, 5).join(", ");
  return `${counted(ids.length, "contact")}: ${shown}${ids.length > 5 ? ", …" : ""}`;
}

/** The audience as one raw cell: `all`, `tags:vip,gold`, `contacts:ct_1,ct_2`. */
function audienceRaw(audience: Audience): string {
  if ("all" in audience) return "all";
  if ("tags" in audience) return `tags:${audience.tags.join(",")}`;
  return `contacts:${audience.contact_ids.join(",")}`;
}

function mappingEntries(mapping: Record<string, string>): [string, string][] {
  return Object.entries(mapping).sort(([a], [b]) => Number(a) - Number(b));
}

/** `{{1}}→first_name, {{2}}→custom.city`; a dash for none. */
export function mappingText(mapping: Record<string, string>): string {
  const entries = mappingEntries(mapping);
  return entries.length === 0 ? "—" : entries.map(([n, f]) => `{{${n}}}→${f}`).join(", ");
}

/** `1=first_name,2=custom.city`, as --var takes them. */
function mappingRaw(mapping: Record<string, string>): string {
  return mappingEntries(mapping)
    .map(([n, f]) => `${n}=${f}`)
    .join(",");
}

function statusText(c: Campaign, paint: Paint): string {
  const word = paint.status(c.status);
  return c.failure_reason ? `${word} ${paint.bad(`(${c.failure_reason})`)}` : word;
}

/** Columns of a campaign list; CSV headers are the wire's field names. */
export const campaignColumns: Column<Campaign>[] = [
  { header: "Id", key: "id", value: (c) => c.id },
  { header: "Name", key: "name", value: (c) => c.name, display: (c, paint) => paint.bold(c.name) },
  { header: "Status", key: "status", value: (c) => c.status, display: statusText },
  { header: "Template", key: "template_name", value: (c) => c.template_name },
  { header: "Language", key: "template_language", value: (c) => c.template_language },
  { header: "Channel", key: "channel_id", value: (c) => c.channel_id },
  {
    header: "Audience",
    key: "audience",
    value: (c) => audienceRaw(c.audience),
    display: (c) => audienceText(c.audience),
  },
  {
    header: "Scheduled",
    key: "scheduled_at",
    value: (c) => c.scheduled_at,
    display: (c) => (c.scheduled_at ? when(c.scheduled_at) : ""),
  },
  {
    header: "Created",
    key: "created_at",
    value: (c) => c.created_at,
    display: (c) => when(c.created_at),
  },
];

/** The fields of one campaign, in reading order. */
export const campaignFields: Column<Campaign>[] = [
  { header: "Id", key: "id", value: (c) => c.id },
  { header: "Name", key: "name", value: (c) => c.name, display: (c, paint) => paint.bold(c.name) },
  {
    header: "Status",
    key: "status",
    value: (c) => c.status,
    display: (c, paint) => paint.status(c.status),
  },
  {
    header: "Failure reason",
    key: "failure_reason",
    value: (c) => c.failure_reason,
    display: (c, paint) => (c.failure_reason ? paint.bad(c.failure_reason) : "—"),
  },
  { header: "Channel", key: "channel_id", value: (c) => c.channel_id },
  { header: "Template", key: "template_name", value: (c) => c.template_name },
  { header: "Language", key: "template_language", value: (c) => c.template_language },
  {
    header: "Audience",
    key: "audience",
    value: (c) => audienceRaw(c.audience),
    display: (c) => audienceText(c.audience),
  },
  {
    header: "Variables",
    key: "variable_mapping",
    value: (c) => mappingRaw(c.variable_mapping),
    display: (c) => mappingText(c.variable_mapping),
  },
  {
    header: "Scheduled",
    key: "scheduled_at",
    value: (c) => c.scheduled_at,
    display: (c) => when(c.scheduled_at),
  },
  {
    header: "Started",
    key: "started_at",
    value: (c) => c.started_at,
    display: (c) => when(c.started_at),
  },
  {
    header: "Completed",
    key: "completed_at",
    value: (c) => c.completed_at,
    display: (c) => when(c.completed_at),
  },
  {
    header: "Created",
    key: "created_at",
    value: (c) => c.created_at,
    display: (c) => when(c.created_at),
  },
  {
    header: "Updated",
    key: "updated_at",
    value: (c) => c.updated_at,
    display: (c) => when(c.updated_at),
  },
];

/** A list of campaigns. */
export function campaignTable(rows: readonly Campaign[]): View {
  return tableView(rows, campaignColumns, {
    empty: "No campaigns match. Create one with `reseller campaigns create`.",
  });
}

/** One campaign. */
export function campaignView(campaign: Campaign): View {
  return recordView(campaign, campaignFields);
}

// ---------------------------------------------------------------------------------------------
// Preflight: what a campaign would send, before it is created.

/** What the preflight summary says about the campaign being created. */
export interface PreflightInput {
  name: string;
  channel_id: string;
  audience: Audience;
  variable_mapping: Record<string, string>;
  scheduled_at?: string | undefined;
}

/** The template text with each variable shown as `{{1}}→first_name`. */
export function filledTemplate(text: string, mapping: Record<string, string>, paint: Paint) {
  return replaceVariables(text, (n, raw) => {
    const field = mapping[n];
    return field === undefined ? paint.warn(raw) : paint.bold(`${raw}→${field}`);
  });
}

/** Lines for people: who gets the message, who is skipped, the quota, and the text. */
export function preflightText(preview: Preview, input: PreflightInput, paint: Paint): string {
  const skipped = preview.skipped_no_consent + preview.skipped_opted_out;
  const left = preview.messages_left_this_month;
  const lines = [
    paint.bold(`Campaign "${input.name}"`),
    `  Template     ${preview.template.name} (${preview.template.language}) via channel ${input.channel_id}`,
    `  Audience     ${audienceText(input.audience)}: ${counted(preview.audience_total, "contact")}`,
    preview.missing_variable === 0
      ? `  Recipients   ${paint.good(count(preview.with_consent))} with consent (opted_in) will be messaged`
      : `  Recipients   ${count(preview.with_consent)} with consent (opted_in): ${paint.good(count(toBeMessaged(preview)))} will be messaged, ${paint.warn(count(preview.missing_variable))} cannot be (a mapped field is empty: missing_variable)`,
    `  Skipped      ${count(skipped)}: ${count(preview.skipped_no_consent)} not_set, ${count(preview.skipped_opted_out)} opted_out (never messaged)`,
    `  Quota        ${left === null ? "no monthly message quota" : `${counted(left, "message")} left this month`}`,
    `  Start        ${input.scheduled_at ? `scheduled for ${when(input.scheduled_at)}` : "a draft: starts with `reseller campaigns launch`"}`,
  ];
  if (preview.with_consent === 0) {
    lines.push(
      paint.warn("  Nobody in this audience has opted in: the campaign would message no one."),
    );
  } else if (toBeMessaged(preview) === 0) {
    lines.push(
      paint.warn(
        "  No contact with consent has every mapped field: the campaign would message no one.",
      ),
    );
  } else if (left !== null && preview.with_consent > left) {
    lines.push(
      paint.warn(
        input.scheduled_at
          ? `  The quota cannot carry ${count(preview.with_consent)} messages: those past it would fail with quota_exceeded.`
          : `  The quota cannot carry ${count(preview.with_consent)} messages: launching would be refused (plan_limit_exceeded).`,
      ),
    );
  }
  lines.push("", paint.dim("  Message:"));
  for (const line of filledTemplate(preview.template.body, input.variable_mapping, paint).split(
    "\n",
  )) {
    lines.push(`  ${paint.dim("│")} ${line}`.trimEnd());
  }
  // The rest of what a phone shows: the footer, then a row per button, as WhatsApp lays them out.
  const { footer, buttons } = preview.template;
  if (footer) lines.push(`  ${paint.dim("│")} ${paint.dim(footer)}`);
  for (const label of buttons) lines.push(`  ${paint.dim("│")} [ ${label} ]`);
  return lines.join("\n");
}

/** The preview as a result (--dry-run): the summary at a terminal, `key<TAB>value` piped. */
export function previewView(preview: Preview, input: PreflightInput, table: boolean): View {
  if (table) return textView((paint) => preflightText(preview, input, paint));
  return recordView(preview, [
    { header: "Audience", key: "audience_total", value: (p) => p.audience_total },
    { header: "With consent", key: "with_consent", value: (p) => p.with_consent },
    { header: "Not set", key: "skipped_no_consent", value: (p) => p.skipped_no_consent },
    { header: "Opted out", key: "skipped_opted_out", value: (p) => p.skipped_opted_out },
    { header: "Missing variable", key: "missing_variable", value: (p) => p.missing_variable },
    {
      header: "Messages left",
      key: "messages_left_this_month",
      value: (p) => p.messages_left_this_month,
    },
    { header: "Template", key: "template.name", value: (p) => p.template.name },
    { header: "Language", key: "template.language", value: (p) => p.template.language },
    { header: "Body", key: "template.body", value: (p) => p.template.body },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Statistics: the delivery funnel.

/** A rate (0..1) as a percentage: `100%`, `66.7%`. */
export function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

function bar(rate: number, width = 20): string {
  const full = Math.round(Math.min(1, Math.max(0, rate)) * width);
  return `${"█".repeat(full)}${"░".repeat(width - full)}`;
}

/** Recipients with consent: those messaged or still to be. */
export function withConsent(stats: CampaignStats): number {
  return Math.max(0, stats.audience_total - stats.skipped_no_consent - stats.skipped_opted_out);
}

/** `undeliverable 2, spam_rate_limited 1`. */
function failuresText(stats: CampaignStats): string {
  return stats.failures.map((f) => `${f.reason} ${count(f.count)}`).join(", ");
}

/** The campaign's funnel for people: sent → delivered → read with rates, failures, skipped. */
export function funnelText(campaign: Campaign, stats: CampaignStats, paint: Paint): string {
  const recipients = withConsent(stats);
  const sentRate = recipients === 0 ? 0 : stats.sent / recipients;
  const n = (value: number) => count(value).padStart(7);
  const row = (label: string, value: number, rate: number, of: string) =>
    `  ${label.padEnd(10)}${n(value)}  ${paint.good(bar(rate))} ${percent(rate).padStart(6)} ${paint.dim(of)}`;
  const skipped = stats.skipped_no_consent + stats.skipped_opted_out;
  const lines = [
    `${paint.bold(campaign.name)} ${paint.dim(campaign.id)} · ${statusText(campaign, paint)}`,
    `  ${"Audience".padEnd(10)}${n(stats.audience_total)}  ${paint.dim(`${count(recipients)} with consent`)}`,
    row("Sent", stats.sent, sentRate, "of recipients with consent"),
    row("Delivered", stats.delivered, stats.delivery_rate, "of sent"),
    row("Read", stats.read, stats.read_rate, "of delivered"),
    `  ${"Failed".padEnd(10)}${stats.failed === 0 ? n(0) : paint.bad(n(stats.failed))}${stats.failures.length > 0 ? `  ${failuresText(stats)}` : ""}`,
    `  ${"Skipped".padEnd(10)}${n(skipped)}  ${paint.dim(`${count(stats.skipped_no_consent)} not_set, ${count(stats.skipped_opted_out)} opted_out`)}`,
  ];
  if (stats.queued > 0) lines.push(`  ${"Queued".padEnd(10)}${n(stats.queued)}`);
  if (stats.cancelled > 0) {
    lines.push(`  ${"Cancelled".padEnd(10)}${n(stats.cancelled)}  ${paint.dim("never sent")}`);
  }
  lines.push(paint.dim(`  Updated ${when(stats.updated_at)}`));
  return lines.join("\n");
}

/** The stats as a result: the funnel at a terminal, `key<TAB>value` piped (status first). */
export function statsView(campaign: Campaign, stats: CampaignStats, table: boolean): View {
  if (table) return textView((paint) => funnelText(campaign, stats, paint), [campaign.id]);
  const field = (key: keyof CampaignStats): Column<CampaignStats> => ({
    header: key,
    key,
    value: (s) => s[key] as number | string,
  });
  return recordView(
    stats,
    [
      { header: "status", key: "status", value: () => campaign.status },
      field("audience_total"),
      field("skipped_no_consent"),
      field("skipped_opted_out"),
      field("queued"),
      field("sent"),
      field("delivered"),
      field("read"),
      field("failed"),
      field("cancelled"),
      field("delivery_rate"),
      field("read_rate"),
      {
        header: "failures",
        key: "failures",
        value: (s) => s.failures.map((f) => `${f.reason}=${f.count}`).join(","),
      },
      field("updated_at"),
    ],
    [campaign.id],
  );
}

/**
 * The service's notices as the CLI says them (a button left out of the mapping sends the
 * template's example; a launch that messages no one): on stderr in every output mode.
 */
export function noticeLines(notices: readonly Notice[] | undefined): string[] {
  return (notices ?? []).map(
    (n) => `${n.field.replace(/^variable_mapping\./, "--var ")}: ${n.message}`,
  );
}
