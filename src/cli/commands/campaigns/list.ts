import { CampaignListResponse } from "../../../contract/campaigns.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { fetchList } from "../../paged-list.js";
import { campaignsPath, campaignTable } from "./campaign-format.js";

/** `reseller campaigns list [--status S]`: the workspace's campaigns, newest first. */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const list = await fetchList(
    client,
    campaignsPath(workspaceId),
    CampaignListResponse,
    options,
    { status: stringOption(options, "status") },
    "campaigns",
  );
  return { data: list.data, view: campaignTable(list.rows), message: list.message };
};
