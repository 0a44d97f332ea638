import { ChannelResponse, type CreateChannelBody } from "../../../contract/channels.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { stringOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { channelColumns, channelsPath } from "./channel-format.js";

type Options = Readonly<Record<string, unknown>>;

/** Flags that are missing (empty counts as missing). */
function missingFlags(options: Options): string[] {
  return (["phone", "name"] as const)
    .filter((key) => (stringOption(options, key) ?? "").trim() === "")
    .map((key) => `--${key}`);
}

async function flagOrAsk(ctx: Context, options: Options, key: string, question: string) {
  const given = stringOption(options, key)?.trim();
  if (given) return given;
  const answer = await ctx.prompter.input({
    message: question,
    validate: (v) => (v.trim() === "" ? "A value is required." : true),
  });
  return answer.trim();
}

/** `reseller channels add --phone +E164 --name N`: connects a number to the workspace. */
export const run: Handler = async (ctx, { options }) => {
  const missing = missingFlags(options);
  if (missing.length > 0 && !ctx.canPrompt) {
    throw usageError(
      `Missing ${missing.join(" and ")}.`,
      "Pass --phone +E164 and --name N (or run at a terminal to be asked).",
    );
  }
  const workspaceId = await ctx.workspaceId();
  const body: CreateChannelBody = {
    phone: await flagOrAsk(ctx, options, "phone", "Number to connect (E.164, e.g. +4915112340000)"),
    name: await flagOrAsk(ctx, options, "name", "Name of the channel"),
  };
  const client = await ctx.client();
  const response = await client.call("POST", channelsPath(workspaceId), ChannelResponse, { body });
  const channel = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(channel, channelColumns),
    message: `Connected ${channel.phone} as channel ${channel.id} (${channel.name}, ${channel.status}). Use it with \`reseller campaigns create --channel ${channel.id} …\`.`,
  };
};
