import { z } from "zod";
import { isVariableField } from "./contact-rules.js";
import { EmptyMeta, Notice, successEnvelope } from "./envelope.js";
import { listEnvelope, PageQuery } from "./pagination.js";
import { timestampField } from "./timestamps.js";
import { campaignStatuses } from "./vocabulary.js";

export const CampaignStatus = z.enum(campaignStatuses);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

const AudienceAll = z.strictObject({
  all: z.literal(true, { error: 'all must be true: {"all": true}' }),
});
const AudienceTags = z.strictObject({
  tags: z
    .array(
      z
        .string({ error: 'each tag must be a string, e.g. "vip"' })
        .trim()
        .min(1, { error: "each tag must have a character besides spaces" })
        .max(100, { error: "each tag must be at most 100 characters" }),
      { error: 'tags must be a list of tags, e.g. ["vip"]' },
    )
    .min(1, { error: "tags must name at least one tag" })
    .max(100, { error: "tags must name at most 100 tags" }),
});
const AudienceContacts = z.strictObject({
  contact_ids: z
    .array(
      z
        .string({ error: "each contact id must be a string (ct_…)" })
        .min(1, { error: "each contact id must be a contact id (ct_…)" }),
      { error: 'contact_ids must be a list of contact ids, e.g. ["ct_…"]' },
    )
    .min(1, { error: "contact_ids must name at least one contact" })
    .max(10_000, { error: "contact_ids must name at most 10,000 contacts" }),
});
const audienceOptions = { all: AudienceAll, tags: AudienceTags, contact_ids: AudienceContacts };

/** The option an audience object names when it names exactly one, by its key. */
function namedOption(value: unknown) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const named = Object.entries(audienceOptions).filter(([key]) => Object.hasOwn(value, key));
  return named.length === 1 ? named[0]?.[1] : undefined;
}

/**
 * Who a campaign goes to: exactly one of the three options. A union alone reports any failure
 * as "not one of the options", which misleads a client whose audience names one: its problems
 * (101 tags, a tag that is a number) are reported as that option's own, at their fields.
 */
export const Audience = z
  .preprocess(
    (value, ctx) => {
      for (const issue of namedOption(value)?.safeParse(value).error?.issues ?? []) {
        ctx.addIssue({ ...issue });
      }
      return value;
    },
    z.union([AudienceAll, AudienceTags, AudienceContacts], {
      error: (issue) =>
        issue.code === "invalid_union"
          ? 'audience must be exactly one of {"all": true}, {"tags": ["vip", …]} or {"contact_ids": ["ct_…", …]}'
          : undefined,
    }),
  )
  .describe(
    'Exactly one of `{"all": true}`, `{"tags": ["vip", …]}` (at most 100; contacts with any of them, whatever its case) or `{"contact_ids": ["ct_…", …]}` (at most 10,000).',
  )
  .meta({ id: "Audience" });
export type Audience = z.infer<typeof Audience>;

const VariableMapping = z
  .record(
    z.string().regex(/^([1-9]\d*|header\.1|button\.\d)$/, {
      error:
        "keys are variable numbers (1, 2, …), header.1 for a header {{1}} that differs from the body's, or button.<index> for a URL or COPY_CODE button",
    }),
    z.string().refine(isVariableField, {
      error:
        "values name a contact field: first_name, last_name, phone, email or custom.<key> (a key a contact may hold)",
    }),
    {
      // zod reports a bad key as "Invalid key in record" unless the record itself says more.
      error: (issue) =>
        issue.code === "invalid_key"
          ? "keys are variable numbers (1, 2, …), header.1 for a header {{1}} that differs from the body's, or button.<index> for a URL or COPY_CODE button"
          : undefined,
    },
  )
  .describe(
    'Template variable → contact field, e.g. `{"1": "first_name", "button.0": "custom.order_id"}`. Keys: a variable number of the header or body text (`{{1}}`; Meta numbers the two apart, so `header.1` gives the header\'s `{{1}}` its own field, and without it `1` fills both), or `button.<index>` (index from 0 among the template\'s buttons) for a URL button whose URL ends in `{{1}}` or a COPY_CODE button (the code to copy); a button left out sends the template\'s example, and the create answer\'s `meta.notices` says so. An IMAGE, VIDEO or DOCUMENT header sends the template\'s example link and needs no key.',
  );

export const CreateCampaignBody = z.strictObject({
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .min(1, { error: "name must not be empty" })
    .max(200, { error: "name must be at most 200 characters" }),
  channel_id: z.string({ error: "channel_id must be a channel id (ch_…)" }).min(1),
  template_name: z
    .string({ error: "template_name must be a string" })
    .min(1, { error: "template_name must not be empty" }),
  template_language: z
    .string({ error: "template_language must be a language code, e.g. en_US" })
    .min(2),
  audience: Audience,
  scheduled_at: timestampField("scheduled_at", "2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00")
    // null as omitted: a client that always sends the field says "not scheduled" so.
    .nullish()
    .describe("When the campaign starts by itself; omitted or null: a draft, started by launch."),
  variable_mapping: VariableMapping.optional(),
});
export type CreateCampaignBody = z.infer<typeof CreateCampaignBody>;

export const Campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    channel_id: z.string(),
    template_name: z.string(),
    template_language: z.string(),
    audience: Audience,
    variable_mapping: z.record(z.string(), z.string()),
    status: CampaignStatus,
    scheduled_at: z.string().nullable(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    failure_reason: z.string().nullable().describe("Why a failed campaign could not send."),
  })
  .meta({ id: "Campaign" });
export type Campaign = z.infer<typeof Campaign>;

const Count = z.number().int().min(0);

/** Delivery figures, kept as outcomes arrive. */
export const CampaignStats = z
  .object({
    audience_total: Count.describe("Contacts the audience matched when the campaign started."),
    skipped_no_consent: Count.describe(
      "Audience members with opt-in status not_set: never messaged.",
    ),
    skipped_opted_out: Count.describe("Audience members who opted out: never messaged."),
    queued: Count.describe("Recipients not yet handed to the channel."),
    sent: Count.describe("Messages the channel accepted (a delivered or read one counts too)."),
    delivered: Count.describe("Messages delivered (a read one counts too)."),
    read: Count,
    failed: Count.describe("Messages that ended in failure."),
    cancelled: Count.default(0).describe(
      "Recipients not yet sent when the campaign was cancelled (its consenting audience when it never started).",
    ),
    delivery_rate: z
      .number()
      .min(0)
      .max(1)
      .describe("delivered / sent; 0 before anything is sent."),
    read_rate: z
      .number()
      .min(0)
      .max(1)
      .describe("read / delivered; 0 before anything is delivered."),
    failures: z.array(z.object({ reason: z.string(), count: Count })),
    updated_at: z.string(),
  })
  .meta({ id: "CampaignStats" });
export type CampaignStats = z.infer<typeof CampaignStats>;

/** What a campaign would send, without creating it (the CLI's preflight summary). */
export const CampaignPreview = z
  .object({
    audience_total: Count,
    with_consent: Count,
    skipped_no_consent: Count,
    skipped_opted_out: Count,
    // Default: answers of services from before the field.
    missing_variable: Count.default(0).describe(
      "Of `with_consent`, the contacts whose message cannot be filled now (a mapped field empty): each fails `missing_variable` rather than receive a blank. The rest will be messaged.",
    ),
    template: z.object({
      name: z.string(),
      language: z.string(),
      body: z.string().describe("The header's text, a blank line, then the body's."),
      // Defaults: answers of services from before the fields.
      footer: z.string().nullable().default(null).describe("The footer's text; null without one."),
      buttons: z
        .array(z.string())
        .default([])
        .describe("Each button's label, in order (a COPY_CODE button's is `Copy code`)."),
    }),
    messages_left_this_month: z
      .number()
      .int()
      .nullable()
      .describe("Null when the plan sets no quota."),
  })
  .meta({ id: "CampaignPreview" });

export const CampaignListQuery = PageQuery.extend({ status: CampaignStatus.optional() });
/** `meta` of a campaign's creation or preview: what it will send other than the mapping says. */
export const CampaignNoticesMeta = z
  .object({
    notices: z
      .array(Notice)
      .optional()
      .describe(
        "Present when a variable button (`button.<index>`) is left out of variable_mapping: every message will carry the template's example for it.",
      ),
  })
  .strict();

/** `meta` of a launch: said when no contact of the audience will be messaged. */
export const CampaignLaunchMeta = z
  .object({
    notices: z
      .array(Notice)
      .optional()
      .describe(
        "Present when no contact of the audience has opted in (field `audience`): the campaign messages no one and completes at once.",
      ),
  })
  .strict();

export const CampaignResponse = successEnvelope(Campaign, EmptyMeta);
export const CampaignCreateResponse = successEnvelope(Campaign, CampaignNoticesMeta);
export const CampaignLaunchResponse = successEnvelope(Campaign, CampaignLaunchMeta);
export const CampaignListResponse = listEnvelope(Campaign);
export const CampaignStatsResponse = successEnvelope(CampaignStats, EmptyMeta);
export const CampaignPreviewResponse = successEnvelope(CampaignPreview, CampaignNoticesMeta);

export const InboundMessageBody = z.strictObject({
  workspace_id: z.string().min(1),
  from: z.string({ error: "from must be the sender's number in E.164 form" }),
  text: z.string().max(4096),
});
export const InboundResult = z
  .object({
    contact_id: z.string().nullable(),
    action: z.enum(["opted_out", "opted_in", "none"]),
    opt_in_status: z.string().nullable(),
  })
  .meta({ id: "InboundResult" });
export const InboundResponse = successEnvelope(InboundResult, EmptyMeta);
