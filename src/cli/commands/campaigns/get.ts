import { CampaignResponse } from "../../../contract/campaigns.js";
import type { Handler } from "../../command-spec.js";
import { campaignsPath, campaignView } from "./campaign-format.js";

/** `reseller campaigns get <id>`: one campaign. */
export const run: Handler = async (ctx, { args }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.get(campaignsPath(workspaceId, args[0] ?? ""), CampaignResponse);
  const campaign = response.body.data;
  const w = await ctx.workspaceArg();
  const hint =
    campaign.status === "draft"
      ? `Draft: start it with \`reseller campaigns launch ${campaign.id}${w}\`.`
      : campaign.status === "running"
        ? `Follow it with \`reseller campaigns stats ${campaign.id}${w} --watch\`.`
        : undefined;
  return { data: response.raw.data, view: campaignView(campaign), message: hint };
};
