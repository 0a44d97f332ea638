import { CampaignResponse } from "../../../contract/campaigns.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { confirmOrYes } from "../../prompts.js";
import { campaignLabel, campaignsPath } from "./campaign-format.js";
import { moveCampaign } from "./control.js";

/** `reseller campaigns cancel <id>`: asks at a terminal (naming the campaign); --yes otherwise. */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const yes = booleanOption(options, "yes");
  let label = id;
  if (!yes && ctx.canPrompt) {
    const client = await ctx.client();
    const campaign = (
      await client.get(campaignsPath(await ctx.workspaceId(), id), CampaignResponse)
    ).body.data;
    label = `${campaignLabel(campaign)}, ${campaign.status}`;
  }
  const question = `Cancel campaign ${label}? Recipients not yet sent will never get it.`;
  if (!(await confirmOrYes(ctx, yes, question))) {
    return { message: `Not cancelled: campaign ${label} is unchanged.` };
  }
  return moveCampaign(
    ctx,
    id,
    "cancel",
    (name) => `Cancelled campaign ${name}; its stats count the recipients not sent as cancelled.`,
  );
};
