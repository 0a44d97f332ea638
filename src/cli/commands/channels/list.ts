import { ChannelListResponse } from "../../../contract/channels.js";
import type { Handler } from "../../command-spec.js";
import { fetchList } from "../../paged-list.js";
import { channelsPath, channelTable } from "./channel-format.js";

/** `reseller channels list`: the workspace's connected numbers, one page or --all. */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const list = await fetchList(
    client,
    channelsPath(workspaceId),
    ChannelListResponse,
    options,
    {},
    "channels",
  );
  return { data: list.data, view: channelTable(list.rows), message: list.message };
};
