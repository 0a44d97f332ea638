import type { Campaign, CampaignStats, CreateCampaignBody } from "../../contract/campaigns.js";
import type { ErrorDetail, Notice } from "../../contract/envelope.js";
import { quoted } from "../../contract/errors.js";
import { type TemplateComponent, variableNumbers } from "../../contract/template-rules.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import type { PageRequest } from "../db/keyset-paging.js";
import { paginate } from "../db/keyset-paging.js";
import type { CampaignTable } from "../db/tables/campaigns.js";
import type { TemplateTable } from "../db/tables/templates.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import { campaignRunJob } from "../jobs/job-kinds.js";
import type { JobScheduler } from "../services.js";
import { countAudience, countConsentingWhere, unknownContactIds } from "./campaign-audience.js";
import { messagesLeft, requireQuotaFor } from "./campaign-quota.js";
import {
  buttonKey,
  type ContactFields,
  type MediaHeader,
  mappingKeys,
  renderMessage,
  type TemplateTexts,
  unmappedButtons,
  unmappedVariables,
  type VariableButton,
} from "./campaign-rendering.js";
import { loadChannel } from "./channels.js";
import { type Clock, isoSeconds } from "./clock.js";
import { recordWorkspaceEvent } from "./events.js";
import { newId } from "./ids.js";
import { invalidField, invalidFields, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { loadActiveWorkspaceFor, loadWorkspaceFor, type WorkspaceRow } from "./workspace-access.js";

export interface CampaignServices {
  db: Db;
  clock: Clock;
  jobs: JobScheduler;
}

/** A campaign as the API shows it. */
export function toCampaign(row: CampaignTable): Campaign {
  return {
    id: row.id,
    name: row.name,
    channel_id: row.channel_id,
    template_name: row.template_name,
    template_language: row.template_language,
    audience: parseJson(row.audience),
    variable_mapping: parseJson(row.variable_mapping),
    status: row.status as Campaign["status"],
    scheduled_at: row.scheduled_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    failure_reason: row.failure_reason,
  };
}

const mediaFormats = new Set(["IMAGE", "VIDEO", "DOCUMENT"]);

/** The per-message parts of stored template components: texts, variable buttons, media header. */
export function templateTexts(componentsJson: TemplateTable["components"]): TemplateTexts {
  const components = parseJson(componentsJson);
  let header: string | null = null;
  let body = "";
  const buttons: VariableButton[] = [];
  let media: MediaHeader | null = null;
  for (const component of components) {
    if (component.type === "HEADER" && component.format === "TEXT") header = component.text ?? null;
    if (component.type === "HEADER" && mediaFormats.has(component.format)) {
      // A link example is what each message sends; an upload handle cannot be sent.
      const example = component.example?.header_handle?.[0] ?? "";
      media = {
        format: component.format.toLowerCase() as MediaHeader["format"],
        link: /^https?:\/\//.test(example) ? example : null,
      };
    }
    if (component.type === "BODY") body = component.text ?? "";
    if (component.type === "BUTTONS") {
      component.buttons.forEach((button, index) => {
        if (button.type === "URL" && variableNumbers(button.url).length > 0) {
          buttons.push({ index, subType: "url", example: button.example?.[0] ?? null });
        }
        if (button.type === "COPY_CODE") {
          buttons.push({ index, subType: "copy_code", example: button.example });
        }
      });
    }
  }
  return { header, body, buttons, media };
}

/** The approved template of that name and language, or 422 template_not_approved. */
async function approvedTemplate(db: Db, workspaceId: string, name: string, language: string) {
  const template = await db
    .selectFrom("templates")
    .select(["id", "status", "components"])
    .where("workspace_id", "=", workspaceId)
    .where("name", "=", name)
    .where("language", "=", language)
    .executeTakeFirst();
  if (template?.status === "approved") return template;
  if (template) {
    throw new ServiceError(
      "template_not_approved",
      `Template ${quoted(name)} (${quoted(language)}) is ${template.status}, not approved; a campaign can only use an approved template.`,
      { details: [{ field: "template_name", message: `is ${template.status}` }] },
    );
  }
  // The name alone may be right: then the language is what the client got wrong.
  const languages = (
    await db
      .selectFrom("templates")
      .select("language")
      .where("workspace_id", "=", workspaceId)
      .where("name", "=", name)
      .orderBy("language")
      .execute()
  ).map((row) => row.language);
  const pair = `No template ${quoted(name)} in language ${quoted(language)} exists in this workspace; a campaign needs an approved one.`;
  throw new ServiceError(
    "template_not_approved",
    languages.length > 0 ? `${pair} Its languages: ${languages.join(", ")}.` : pair,
    {
      details: [
        languages.length > 0
          ? {
              field: "template_language",
              message: `the template has no language ${quoted(language)}; its languages: ${languages.join(", ")}`,
            }
          : { field: "template_name", message: "no such template in this workspace" },
      ],
    },
  );
}

/**
 * Every check of a campaign body against the workspace: channel, template, variables, audience,
 * time. Every field's problem is named at once; a template that is not approved keeps its own
 * code (template_not_approved), with the other fields' problems in its details.
 */
async function checkCampaign(
  db: Db,
  clock: Clock,
  workspace: WorkspaceRow,
  body: CreateCampaignBody,
) {
  const problems: ErrorDetail[] = [];
  const channelKnown = await loadChannel(db, workspace.id, body.channel_id).then(
    () => true,
    () => false,
  );
  if (!channelKnown) {
    problems.push({
      field: "channel_id",
      message: `no channel ${quoted(body.channel_id)} in this workspace (see GET …/channels)`,
    });
  }
  if ("contact_ids" in body.audience) {
    const unknown = await unknownContactIds(db, workspace.id, body.audience.contact_ids);
    if (unknown.length > 0) {
      problems.push({
        field: "audience.contact_ids",
        message: `not contacts of this workspace: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}`,
      });
    }
  }
  let scheduledAt: string | null = null;
  if (body.scheduled_at !== undefined && body.scheduled_at !== null) {
    const when = new Date(body.scheduled_at);
    if (when.getTime() <= clock.now().getTime()) {
      problems.push({
        field: "scheduled_at",
        message: `must be in the future (now is ${isoSeconds(clock.now())})`,
      });
    }
    scheduledAt = isoSeconds(when);
  }
  const template = await approvedTemplate(
    db,
    workspace.id,
    body.template_name,
    body.template_language,
  ).catch((error: unknown) => {
    if (!(error instanceof ServiceError) || problems.length === 0) throw error;
    throw new ServiceError(error.code, error.message, {
      details: [...(error.details ?? []), ...problems],
    });
  });
  const mapping = body.variable_mapping ?? {};
  const texts = templateTexts(template.components);
  const buttons = unmappedButtons(texts, mapping);
  const missing = [
    ...unmappedVariables(texts, mapping),
    // A button with no example to fall back on must be mapped as the texts are.
    ...buttons.filter((b) => !b.example).map((b) => buttonKey(b.index)),
  ];
  if (missing.length > 0) {
    problems.push({
      field: "variable_mapping",
      message: `must map every variable of the template; missing ${missing.join(", ")}`,
    });
  }
  const notices: Notice[] = buttons.map((b) => ({
    field: `variable_mapping.${buttonKey(b.index)}`,
    message: `not mapped: every message's ${b.subType === "url" ? "URL button ends in" : "code to copy is"} the template's example ${quoted(b.example ?? "")}; map it to a contact field to send each contact their own`,
  }));
  // A key the template lacks is a typo or a stale mapping: refused rather than silently unused.
  const keys = mappingKeys(texts);
  const stray = Object.keys(mapping).filter((key) => !keys.includes(key));
  if (stray.length > 0) {
    const quoted = (list: string[]) => list.map((key) => `"${key}"`).join(", ");
    problems.push({
      field: "variable_mapping",
      message: `the template has no ${quoted(stray)}; its keys: ${keys.length > 0 ? quoted(keys) : "none (it has no variables)"}`,
    });
  }
  if (texts.media && !texts.media.link) {
    problems.push({
      field: "template_name",
      message: `the template's ${texts.media.format} header example is an upload handle, not an http(s) link; a campaign can only send a media header whose example is a link`,
    });
  }
  const [only, ...more] = problems;
  if (only)
    throw more.length === 0 ? invalidField(only.field, only.message) : invalidFields(problems);
  return { template, mapping, scheduledAt, notices };
}

/**
 * What a message shows around its text, for a preview: the footer, and each button's label (a
 * code button without its own is WhatsApp's "Copy code").
 */
function messageFrame(components: TemplateComponent[]): {
  footer: string | null;
  buttons: string[];
} {
  let footer: string | null = null;
  const buttons: string[] = [];
  for (const component of components) {
    if (component.type === "FOOTER") {
      const minutes = component.code_expiration_minutes;
      footer = component.text ?? (minutes ? `This code expires in ${minutes} minutes.` : null);
    }
    if (component.type === "BUTTONS") {
      for (const button of component.buttons) {
        if (button.type === "COPY_CODE") buttons.push("Copy code");
        else if (button.type === "OTP") buttons.push(button.text ?? "Copy code");
        else buttons.push(button.text);
      }
    }
  }
  return { footer, buttons };
}

/**
 * Creates a campaign: scheduled (and queued to start then) with scheduled_at, else a draft; with
 * what it will send other than its mapping says (a button's template example).
 */
export async function createCampaign(
  services: CampaignServices,
  principal: Principal,
  workspaceId: string,
  body: CreateCampaignBody,
): Promise<{ campaign: Campaign; notices: Notice[] }> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const { template, mapping, scheduledAt, notices } = await checkCampaign(
    db,
    clock,
    workspace,
    body,
  );
  const now = isoSeconds(clock.now());
  const row: CampaignTable = {
    id: newId("cmp"),
    workspace_id: workspace.id,
    name: body.name,
    channel_id: body.channel_id,
    template_id: template.id,
    template_name: body.template_name,
    template_language: body.template_language,
    audience: JSON.stringify(body.audience),
    variable_mapping: JSON.stringify(mapping),
    status: scheduledAt ? "scheduled" : "draft",
    scheduled_at: scheduledAt,
    started_at: null,
    completed_at: null,
    failure_reason: null,
    audience_total: 0,
    skipped_no_consent: 0,
    skipped_opted_out: 0,
    queued: 0,
    sent: 0,
    delivered: 0,
    read: 0,
    failed: 0,
    cancelled: 0,
    stats_updated_at: now,
    created_at: now,
    updated_at: now,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("campaigns").values(row).execute();
    if (scheduledAt) {
      await services.jobs.enqueue(trx, {
        kind: campaignRunJob,
        payload: { campaign_id: row.id },
        runAt: new Date(scheduledAt),
      });
    }
  });
  if (scheduledAt) services.jobs.poke();
  return { campaign: toCampaign(row), notices };
}

/**
 * What a campaign body would send now: the audience by consent and the template's text, with what
 * it would send other than its mapping says (as its creation would answer).
 */
export async function previewCampaign(
  services: CampaignServices,
  principal: Principal,
  workspaceId: string,
  body: CreateCampaignBody,
) {
  const { db, clock } = services;
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const { template, notices } = await checkCampaign(db, clock, workspace, body);
  const counts = await countAudience(db, workspace.id, body.audience);
  const texts = templateTexts(template.components);
  const mapping = body.variable_mapping ?? {};
  const fails = (contact: ContactFields) => !renderMessage(texts, mapping, contact).ok;
  // A message a contact with nothing but a phone can fill, every contact can: no need to read them.
  const bare = {
    phone: "+10000000000",
    first_name: null,
    last_name: null,
    email: null,
    custom_fields: {},
  };
  const preview = {
    ...counts,
    missing_variable: fails(bare)
      ? await countConsentingWhere(db, workspace.id, body.audience, fails)
      : 0,
    template: {
      name: body.template_name,
      language: body.template_language,
      body: texts.header ? `${texts.header}\n\n${texts.body}` : texts.body,
      ...messageFrame(parseJson(template.components)),
    },
    messages_left_this_month: await messagesLeft(db, clock, workspace),
  };
  return { preview, notices };
}

/** The workspace's campaign of that id, or 404 not_found. */
export async function loadCampaign(
  db: Db,
  workspaceId: string,
  campaignId: string,
): Promise<CampaignTable> {
  const row = await db
    .selectFrom("campaigns")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", campaignId)
    .executeTakeFirst();
  if (!row) throw new ServiceError("not_found", `Campaign ${quoted(campaignId)} was not found.`);
  return row;
}

/** One campaign. */
export async function getCampaign(
  db: Db,
  principal: Principal,
  workspaceId: string,
  campaignId: string,
) {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  return toCampaign(await loadCampaign(db, workspace.id, campaignId));
}

/** The workspace's campaigns, newest first, optionally of one status. */
export async function listCampaigns(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: PageRequest & { status?: string | undefined },
) {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  let select = db.selectFrom("campaigns").selectAll().where("workspace_id", "=", workspace.id);
  if (query.status) select = select.where("status", "=", query.status);
  const page = await paginate(select, "id", query);
  return { ...page, rows: page.rows.map(toCampaign) };
}

/** Launches a draft now: it becomes running and its run job is queued (409 campaign_not_draft otherwise). */
export async function launchCampaign(
  services: CampaignServices,
  principal: Principal,
  workspaceId: string,
  campaignId: string,
): Promise<{ campaign: Campaign; notices: Notice[] }> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const campaign = await loadCampaign(db, workspace.id, campaignId);
  if (campaign.status !== "draft") {
    throw new ServiceError(
      "campaign_not_draft",
      `Campaign '${campaign.id}' is ${campaign.status}; only a draft can be launched.`,
    );
  }
  // The template may have been paused or rejected since the campaign was created.
  await approvedTemplate(db, workspace.id, campaign.template_name, campaign.template_language);
  const counts = await countAudience(db, workspace.id, parseJson(campaign.audience));
  const now = isoSeconds(clock.now());
  const launched = await db.transaction().execute(async (trx) => {
    // Checked under the workspace's lock, with the write: two launches at once would otherwise
    // both count the other as not yet running and together overspend the month's quota.
    await lockWorkspaceRow(trx, workspace.id);
    await requireQuotaFor(trx, clock, workspace, counts.with_consent, campaign.id);
    // The status guard makes two racing launches start the campaign once.
    const updated = await trx
      .updateTable("campaigns")
      .set({ status: "running", started_at: now, updated_at: now })
      .where("id", "=", campaign.id)
      .where("status", "=", "draft")
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    // Told with the status it reports (running from now on), before the run job counts the
    // audience: a pause or cancel that comes first then follows a campaign.started too.
    await recordCampaignEvent(trx, clock, campaign.id, "campaign.started");
    await services.jobs.enqueue(trx, {
      kind: campaignRunJob,
      payload: { campaign_id: campaign.id },
    });
    return true;
  });
  if (!launched) {
    throw new ServiceError("campaign_not_draft", `Campaign '${campaign.id}' was launched already.`);
  }
  services.jobs.poke();
  const notices = counts.with_consent === 0 ? [noOneToMessage(counts.audience_total)] : [];
  return { campaign: toCampaign(await loadCampaign(db, workspace.id, campaign.id)), notices };
}

/**
 * Said when a launch will message no one: a script launching with --yes sees no preview, and
 * "sending has started" would hide that the campaign ends at once with nothing sent.
 */
function noOneToMessage(audienceTotal: number): Notice {
  return {
    field: "audience",
    message:
      audienceTotal === 0
        ? "has no contacts, so the campaign messages no one."
        : `none of its ${audienceTotal.toLocaleString("en-US")} contacts has opted in, so the campaign messages no one (only opted_in contacts are messaged).`,
  };
}

/** Rates as fractions, 0 when nothing was sent or delivered yet. */
function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

/**
 * Recipients of a cancelled campaign still waiting to be sent: the run job settles them as
 * cancelled right after the batch in flight at the cancel (see campaign-control.ts), which may be
 * a second later. The stats count them as cancelled at once, so a cancel's answer is followed by
 * stats that add up; one of that last batch then moves from cancelled to sent or failed.
 */
async function stillQueued(db: Db, campaign: CampaignTable): Promise<number> {
  if (campaign.queued === 0) return 0;
  const row = await db
    .selectFrom("campaign_recipients")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("campaign_id", "=", campaign.id)
    .where("state", "=", "queued")
    .executeTakeFirstOrThrow();
  return Math.min(campaign.queued, Number(row.n));
}

/** The campaign's delivery figures from its counters (a cancelled one's may read its queue). */
export async function campaignStats(
  db: Db,
  principal: Principal,
  workspaceId: string,
  campaignId: string,
): Promise<CampaignStats> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const campaign = await loadCampaign(db, workspace.id, campaignId);
  const failures = await db
    .selectFrom("campaign_failures")
    .select(["reason", "count"])
    .where("campaign_id", "=", campaign.id)
    .where("count", ">", 0)
    .orderBy("count", "desc")
    .orderBy("reason")
    .execute();
  const unsettled = campaign.status === "cancelled" ? await stillQueued(db, campaign) : 0;
  return {
    audience_total: campaign.audience_total,
    skipped_no_consent: campaign.skipped_no_consent,
    skipped_opted_out: campaign.skipped_opted_out,
    queued: campaign.queued - unsettled,
    sent: campaign.sent,
    delivered: campaign.delivered,
    read: campaign.read,
    failed: campaign.failed,
    cancelled: campaign.cancelled + unsettled,
    delivery_rate: rate(campaign.delivered, campaign.sent),
    read_rate: rate(campaign.read, campaign.delivered),
    failures,
    updated_at: campaign.stats_updated_at,
  };
}

/** Records a campaign event with the campaign as it is in `trx` (launch, the engine, outcomes). */
export async function recordCampaignEvent(
  trx: Db,
  clock: Clock,
  campaignId: string,
  type: "campaign.started" | "campaign.completed" | "campaign.failed",
): Promise<void> {
  const row = await trx
    .selectFrom("campaigns")
    .selectAll()
    .where("id", "=", campaignId)
    .executeTakeFirst();
  if (row) await recordWorkspaceEvent(trx, clock, row.workspace_id, type, toCampaign(row));
}
