import { ChannelResponse, type CreateChannelInput } from "../../../contract/channels.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { e164Answer, e164Flag, flagName, missingFlags, stringOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { flagOrAsk } from "../../prompts.js";
import { readStdin } from "../../read-stdin.js";
import { channelDetailColumns, channelsPath } from "./channel-format.js";

type Options = Readonly<Record<string, unknown>>;

/**
 * `--name`, or at a terminal the answer to a question that Enter skips: without a name the
 * service names the channel by `fallback`.
 */
async function optionalName(ctx: Context, options: Options, fallback: string): Promise<string> {
  const given = stringOption(options, "name")?.trim();
  if (given || !ctx.canPrompt) return given ?? "";
  return (await ctx.prompter.input({ message: `Name of the channel (Enter: ${fallback})` })).trim();
}

/** The body of a WhatsApp Cloud API channel: Graph ids from flags, the token from stdin or a hidden prompt. */
async function cloudBody(ctx: Context, options: Options): Promise<CreateChannelInput> {
  const missing = missingFlags(options, ["phoneNumberId", "wabaId"]);
  const tokenFromStdin = options.accessTokenStdin === true;
  if (stringOption(options, "phone") !== undefined) {
    throw usageError(
      "--phone is not used with --provider whatsapp_cloud.",
      "Meta tells the service the number; pass --phone-number-id and --waba-id.",
    );
  }
  const hint =
    "Pass --phone-number-id, --waba-id and the token on standard input with --access-token-stdin (or run at a terminal to be asked).";
  // Every missing flag named at once, before the first question.
  if ((missing.length > 0 || !tokenFromStdin) && !ctx.canPrompt) {
    throw usageError(
      `Missing ${[...missing, ...(tokenFromStdin ? [] : ["--access-token-stdin"])].join(", ")}.`,
      hint,
    );
  }
  const phoneNumberId = await flagOrAsk(
    ctx,
    stringOption(options, "phoneNumberId"),
    { message: "Phone number id (WhatsApp Manager, API Setup)" },
    { flag: "--phone-number-id", hint },
  );
  const wabaId = await flagOrAsk(
    ctx,
    stringOption(options, "wabaId"),
    { message: "WhatsApp Business Account id" },
    { flag: "--waba-id", hint },
  );
  const name = await optionalName(ctx, options, "Meta's verified name");
  const token = tokenFromStdin
    ? (await readStdin(ctx.io.stdin)).trim()
    : (
        await ctx.prompter.password({ message: "Access token (system user, never shown again)" })
      ).trim();
  if (token === "") {
    throw usageError(
      "The access token is empty.",
      "Pipe the token in: … --access-token-stdin < token.txt",
    );
  }
  return {
    provider: "whatsapp_cloud",
    ...(name ? { name } : {}),
    phone_number_id: phoneNumberId,
    waba_id: wabaId,
    access_token: token,
  };
}

/**
 * `reseller channels add`: connects a number to the workspace, a sandbox number by `--phone`, a
 * WhatsApp Cloud API number by `--provider whatsapp_cloud --phone-number-id --waba-id
 * --access-token-stdin`.
 */
export const run: Handler = async (ctx, { options }) => {
  const provider = stringOption(options, "provider") ?? "sandbox";
  let body: CreateChannelInput;
  if (provider === "whatsapp_cloud") {
    body = await cloudBody(ctx, options);
  } else {
    // A cloud number's flags on a sandbox number would be dropped without a word.
    const cloudOnly = ["phoneNumberId", "wabaId", "accessTokenStdin"].filter(
      (key) => options[key] !== undefined && options[key] !== false,
    );
    if (cloudOnly.length > 0) {
      throw usageError(
        `${cloudOnly.map(flagName).join(", ")} ${cloudOnly.length === 1 ? "is" : "are"} for --provider whatsapp_cloud only.`,
        "A sandbox number takes --phone; a WhatsApp Cloud API number takes --provider whatsapp_cloud.",
      );
    }
    const phone = e164Flag(
      await flagOrAsk(
        ctx,
        stringOption(options, "phone"),
        {
          message: "Number to connect (E.164, e.g. +4915112340000)",
          validate: e164Answer,
        },
        { flag: "--phone", hint: "Pass --phone +E164 (or run at a terminal to be asked)." },
      ),
      "--phone",
    );
    const name = await optionalName(ctx, options, "the number");
    body = { phone, ...(name ? { name } : {}) };
  }
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.call("POST", channelsPath(workspaceId), ChannelResponse, { body });
  const channel = response.body.data;
  const verified = channel.verified_name ? `, verified as ${channel.verified_name}` : "";
  return {
    data: response.raw.data,
    view: recordView(channel, channelDetailColumns),
    message: `Connected ${channel.phone} as channel ${channel.id} (${channel.name}, ${channel.provider}${verified}). Use it with \`reseller campaigns create --channel ${channel.id} …\`.`,
  };
};
