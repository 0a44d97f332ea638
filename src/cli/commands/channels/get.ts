import { ChannelResponse } from "../../../contract/channels.js";
import type { Handler } from "../../command-spec.js";
import { recordView } from "../../output/view.js";
import { channelDetailColumns, channelsPath } from "./channel-format.js";

/** `reseller channels get <id>`: one channel, with Meta's verified name and quality rating. */
export const run: Handler = async (ctx, { args }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.get(
    `${channelsPath(workspaceId)}/${encodeURIComponent(args[0] ?? "")}`,
    ChannelResponse,
  );
  return { data: response.raw.data, view: recordView(response.body.data, channelDetailColumns) };
};
