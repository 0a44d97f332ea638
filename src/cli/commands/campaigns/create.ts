import { CampaignCreateResponse, CampaignPreviewResponse } from "../../../contract/campaigns.js";
import { isVariableField } from "../../../contract/contact-rules.js";
import { variableNumbers } from "../../../contract/template-rules.js";
import { TemplateListResponse } from "../../../contract/templates.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { booleanOption, listOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { createPaint } from "../../output/paint.js";
import { when } from "../../output/time.js";
import { askForMissing } from "../../prompts.js";
import { templatesPath } from "../templates/template-actions.js";
import {
  campaignLabel,
  campaignsPath,
  campaignView,
  noticeLines,
  type PreflightInput,
  preflightText,
  previewView,
  toBeMessaged,
} from "./campaign-format.js";
import { campaignBodyFromFlags, variableFieldList } from "./campaign-input.js";

/**
 * `reseller campaigns create`: builds the campaign from flags (every flag checked before any
 * request), and at a terminal first asks the service for a preview (audience by consent, quota,
 * template text), shows it on stderr and asks unless --yes. Without a terminal it creates at
 * once. --dry-run prints the preview as the result and creates nothing.
 */
export const run: Handler = async (ctx, given) => {
  // Known to be missing before any question: nothing is asked in vain.
  const workspaceId = await ctx.workspaceId();
  const asked = await askForAudience(
    ctx,
    await askForMissing(ctx, given.options, [
      { key: "name", message: "Campaign name" },
      { key: "channel", message: "Channel id (ch_…, see `reseller channels list`)" },
      {
        key: "template",
        message: "Template name (an approved one, see `reseller templates list`)",
      },
      { key: "language", message: "Template language (e.g. en_US)" },
    ]),
  );
  const options = await askForVariables(ctx, workspaceId, asked);
  const body = campaignBodyFromFlags(options, ctx.now());
  const dryRun = booleanOption(options, "dryRun");
  const yes = booleanOption(options, "yes");
  const client = await ctx.client();
  const input: PreflightInput = {
    name: body.name,
    channel_id: body.channel_id,
    audience: body.audience,
    variable_mapping: body.variable_mapping ?? {},
    scheduled_at: body.scheduled_at ?? undefined,
  };

  if (dryRun || ctx.canPrompt) {
    const preview = await client.call(
      "POST",
      campaignsPath(workspaceId, "preview"),
      CampaignPreviewResponse,
      { body },
    );
    const warnings = noticeLines(preview.body.meta.notices);
    if (dryRun) {
      return {
        data: preview.raw.data,
        view: previewView(preview.body.data, input, ctx.output === "table"),
        message: "Dry run: the service checked the campaign; nothing was created.",
        warnings,
      };
    }
    ctx.info(`${preflightText(preview.body.data, input, createPaint(ctx.color))}\n`);
    // Before the question: the answer may change once a button's example is known to go out.
    for (const warning of warnings) ctx.info(warning);
    if (!yes) {
      const question = body.scheduled_at
        ? `Schedule "${body.name}" to message ${counted(toBeMessaged(preview.body.data), "contact")} at ${when(body.scheduled_at)}?`
        : `Create "${body.name}" as a draft (${counted(preview.body.data.with_consent, "recipient")} now)?`;
      const confirmed = await ctx.prompter.confirm({
        message: question,
        default: body.scheduled_at === undefined,
      });
      if (!confirmed) return { message: "Cancelled: no campaign was created." };
    }
  }

  const response = await client.call("POST", campaignsPath(workspaceId), CampaignCreateResponse, {
    body,
  });
  // Said again after the preflight: a script without a terminal saw none.
  const warnings = ctx.canPrompt ? [] : noticeLines(response.body.meta.notices);
  const campaign = response.body.data;
  const w = await ctx.workspaceArg();
  const message =
    campaign.status === "scheduled"
      ? `Scheduled campaign ${campaignLabel(campaign)} to start at ${when(campaign.scheduled_at)}; follow it with \`reseller campaigns stats ${campaign.id}${w} --watch\`.`
      : `Created draft campaign ${campaignLabel(campaign)}. Launch it with \`reseller campaigns launch ${campaign.id}${w}\`.`;
  return { data: response.raw.data, view: campaignView(campaign), message, warnings };
};

/**
 * At a terminal, with no --var: the contact field of each variable of the template's header and
 * body, asked as --var would say it. A template not found is left for the service to name.
 */
async function askForVariables(
  ctx: Context,
  workspaceId: string,
  options: Readonly<Record<string, unknown>>,
): Promise<Readonly<Record<string, unknown>>> {
  if (!ctx.canPrompt || listOption(options, "var").length > 0) return options;
  const client = await ctx.client();
  const found = await client.get(templatesPath(workspaceId), TemplateListResponse, {
    name: String(options.template ?? "").trim(),
    language: String(options.language ?? "").trim(),
    per_page: 1,
  });
  const texts = (found.body.data[0]?.components ?? []).flatMap((c) =>
    (c.type === "HEADER" || c.type === "BODY") && c.text !== undefined ? [c.text] : [],
  );
  const numbers = [...new Set(texts.flatMap(variableNumbers))].sort((a, b) => a - b);
  const vars: string[] = [];
  for (const n of numbers) {
    const field = await ctx.prompter.input({
      message: `Contact field for {{${n}}} (${variableFieldList})`,
      validate: (v) => (isVariableField(v.trim()) ? true : `Name ${variableFieldList}.`),
    });
    vars.push(`${n}=${field.trim()}`);
  }
  return vars.length === 0 ? options : { ...options, var: vars };
}

/** At a terminal, with no audience flag: who gets the campaign, asked as the flags would say it. */
async function askForAudience(
  ctx: Context,
  options: Readonly<Record<string, unknown>>,
): Promise<Readonly<Record<string, unknown>>> {
  const given =
    options.all === true ||
    listOption(options, "tag").length > 0 ||
    listOption(options, "contacts").length > 0;
  if (given || !ctx.canPrompt) return options;
  const audience = await ctx.prompter.select({
    message: "Audience",
    choices: [
      { name: "every contact (--all)", value: "all" },
      { name: "contacts with any of some tags (--tag)", value: "tag" },
      { name: "some contacts by id (--contacts)", value: "contacts" },
    ],
  });
  if (audience === "all") return { ...options, all: true };
  const list = await ctx.prompter.input({
    message:
      audience === "tag" ? "Tags, separated by commas" : "Contact ids (ct_…), separated by commas",
    validate: (v) => {
      const items = v
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== "");
      if (items.length === 0) return "Name at least one.";
      const notIds = audience === "contacts" ? items.filter((x) => !x.startsWith("ct_")) : [];
      return notIds.length === 0 ? true : `Not a contact id (ct_…): ${notIds.join(", ")}.`;
    },
  });
  const items = list
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  return audience === "tag"
    ? { ...options, tag: items }
    : { ...options, contacts: [items.join(",")] };
}
