import { CampaignResponse } from "../../../contract/campaigns.js";
import type { CommandResult } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { campaignLabel, campaignsPath, campaignView } from "./campaign-format.js";

/** POSTs a pause, resume or cancel and shows the campaign as the service answers it. */
export async function moveCampaign(
  ctx: Context,
  id: string,
  move: "pause" | "resume" | "cancel",
  message: (label: string, status: string) => string,
): Promise<CommandResult> {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.call(
    "POST",
    campaignsPath(workspaceId, id, move),
    CampaignResponse,
  );
  const campaign = response.body.data;
  return {
    data: response.raw.data,
    view: campaignView(campaign),
    message: message(campaignLabel(campaign), campaign.status),
  };
}
