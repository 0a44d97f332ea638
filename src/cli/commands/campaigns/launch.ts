import { ApiError } from "../../../client/api-error.js";
import {
  CampaignLaunchResponse,
  CampaignPreviewResponse,
  CampaignResponse,
} from "../../../contract/campaigns.js";
import { CliError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { count, counted } from "../../output/counts.js";
import { confirmOrYes } from "../../prompts.js";
import {
  audienceText,
  campaignLabel,
  campaignsPath,
  campaignView,
  noticeLines,
  toBeMessaged,
} from "./campaign-format.js";

/**
 * `reseller campaigns launch <id>`: starts a draft now. At a terminal it names the campaign,
 * says whom it will message (from a preview) and asks; without a terminal it needs --yes.
 */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const yes = booleanOption(options, "yes");
  const workspaceId = await ctx.workspaceId();
  let label = id;
  let question = `Launch campaign ${label} now?`;
  // Without --yes the campaign is read first: a question names it and its reach, so a mistyped
  // id cannot send the wrong one, and one that cannot be launched says so (exit 5) at a terminal
  // or not, rather than asking for --yes.
  const campaign = yes
    ? undefined
    : (await (await ctx.client()).get(campaignsPath(workspaceId, id), CampaignResponse)).body.data;
  const w = await ctx.workspaceArg();
  if (campaign) {
    label = campaignLabel(campaign);
    if (campaign.status !== "draft") {
      throw new CliError(
        "conflict",
        `Campaign ${label} is ${campaign.status}; only a draft can be launched.`,
        campaign.status === "scheduled"
          ? `It starts by itself at ${campaign.scheduled_at}.`
          : campaign.status === "paused"
            ? `Send the rest with \`reseller campaigns resume ${campaign.id}${w}\`.`
            : `See how it went with \`reseller campaigns stats ${campaign.id}${w}\`.`,
        [],
        // The service's own code for it: a script reads the same with or without --yes.
        "campaign_not_draft",
      );
    }
    question = `Launch campaign ${label} now?`;
  }
  if (campaign && ctx.canPrompt) {
    const client = await ctx.client();
    try {
      const preview = (
        await client.call("POST", campaignsPath(workspaceId, "preview"), CampaignPreviewResponse, {
          body: {
            name: campaign.name,
            channel_id: campaign.channel_id,
            template_name: campaign.template_name,
            template_language: campaign.template_language,
            audience: campaign.audience,
            variable_mapping: campaign.variable_mapping,
          },
        })
      ).body.data;
      const skipped = preview.skipped_no_consent + preview.skipped_opted_out;
      const unfilled =
        preview.missing_variable === 0
          ? ""
          : ` (${count(preview.missing_variable)} of them with a mapped field empty: missing_variable)`;
      ctx.info(
        `${campaign.template_name} (${campaign.template_language}) to ${audienceText(campaign.audience)}: ${count(preview.with_consent)} with consent${unfilled}, ${count(skipped)} skipped${preview.messages_left_this_month === null ? "" : `; ${count(preview.messages_left_this_month)} messages left this month`}.`,
      );
      question = `Launch campaign ${label} now, messaging ${counted(toBeMessaged(preview), "contact")}?`;
    } catch (error) {
      // The preview is for the question only; what it refuses the launch will report itself.
      if (!(error instanceof ApiError) || error.kind !== "http") throw error;
      ctx.info(`Preflight check: ${error.message}`);
    }
  }
  const confirmed = await confirmOrYes(ctx, yes, question);
  if (!confirmed) return { message: `Cancelled: campaign ${label} was not launched.` };
  const client = await ctx.client();
  const response = await client.call(
    "POST",
    campaignsPath(workspaceId, id, "launch"),
    CampaignLaunchResponse,
  );
  const launched = response.body.data;
  return {
    data: response.raw.data,
    view: campaignView(launched),
    message: `Launched campaign ${campaignLabel(launched)}: sending has started. Follow it with \`reseller campaigns stats ${launched.id}${w} --watch\`.`,
    warnings: noticeLines(response.body.meta.notices),
  };
};
