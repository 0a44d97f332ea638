import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope } from "./pagination.js";
import { channelStatuses } from "./vocabulary.js";

/** Who carries a channel's messages: the simulated operator or Meta's WhatsApp Cloud API. */
export const channelProviders = ["sandbox", "whatsapp_cloud"] as const;
export type ChannelProvider = (typeof channelProviders)[number];

/** A connected number a workspace sends from. The access token of a cloud channel is never shown. */
export const Channel = z
  .object({
    id: z.string(),
    phone: z.string().describe("The number messages are sent from, E.164."),
    name: z.string(),
    status: z
      .enum(channelStatuses)
      .describe(
        "`disconnected` when Meta refused the channel's access token (Graph error 190): add the channel again with a fresh token.",
      ),
    provider: z
      .enum(channelProviders)
      .describe("`sandbox` (the simulated operator) or `whatsapp_cloud` (Meta's Cloud API)."),
    phone_number_id: z
      .string()
      .nullable()
      .describe("whatsapp_cloud: the number's Graph id (WhatsApp Manager, API Setup)."),
    waba_id: z.string().nullable().describe("whatsapp_cloud: the WhatsApp Business Account id."),
    verified_name: z
      .string()
      .nullable()
      .describe("whatsapp_cloud: the business name Meta verified for the number."),
    quality_rating: z
      .string()
      .nullable()
      .describe(
        "whatsapp_cloud: Meta's quality rating of the number (GREEN, YELLOW, RED, UNKNOWN).",
      ),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Channel" });
export type Channel = z.infer<typeof Channel>;

/** The fields each provider needs and those it takes from elsewhere. */
const cloudFields = ["phone_number_id", "waba_id", "access_token"] as const;

/** The fields a channel request lacks or should not have for its provider, with why. */
function providerFieldProblems(body: {
  provider: string;
  phone?: string | undefined;
  phone_number_id?: string | undefined;
  waba_id?: string | undefined;
  access_token?: string | undefined;
}): [string, string][] {
  const problems: [string, string][] = [];
  if (body.provider === "whatsapp_cloud") {
    for (const field of cloudFields) {
      if (body[field] === undefined)
        problems.push([field, "is required with provider whatsapp_cloud"]);
    }
    if (body.phone !== undefined) {
      problems.push(["phone", "comes from Meta for a whatsapp_cloud channel; leave it out"]);
    }
  } else {
    if (body.phone === undefined) problems.push(["phone", "is required for a sandbox channel"]);
    for (const field of cloudFields) {
      if (body[field] !== undefined) {
        problems.push([field, "is accepted only with provider whatsapp_cloud"]);
      }
    }
  }
  return problems;
}

export const CreateChannelBody = z
  .strictObject({
    provider: z
      .enum(channelProviders, { error: `provider must be one of ${channelProviders.join(", ")}` })
      .default("sandbox")
      .describe("`sandbox` (default) or `whatsapp_cloud`."),
    phone: z
      .string({ error: "phone must be a string in E.164 form, e.g. +4915112345678" })
      .optional()
      .describe(
        "sandbox: the number, E.164 (required). whatsapp_cloud: taken from Meta (display_phone_number).",
      ),
    name: z
      .string({ error: "name must be a string" })
      .trim()
      .min(1, { error: "name must not be empty" })
      .max(100, { error: "name must be at most 100 characters" })
      .optional()
      .describe(
        "What the channel is called in lists. Default: Meta's verified name (whatsapp_cloud), or the number.",
      ),
    phone_number_id: z
      .string({ error: "phone_number_id must be a string of digits" })
      .regex(/^\d{1,30}$/, { error: "phone_number_id must be the number's Graph id (digits)" })
      .optional()
      .describe("whatsapp_cloud (required): the phone number id from WhatsApp Manager, API Setup."),
    waba_id: z
      .string({ error: "waba_id must be a string of digits" })
      .regex(/^\d{1,30}$/, { error: "waba_id must be the WhatsApp Business Account id (digits)" })
      .optional()
      .describe("whatsapp_cloud (required): the WhatsApp Business Account id."),
    access_token: z
      .string({ error: "access_token must be a string" })
      // A token pasted or read from a file often ends with a newline; none has spaces inside.
      .trim()
      .min(1, { error: "access_token must not be empty" })
      .max(4096, { error: "access_token must be at most 4096 characters" })
      .regex(/^[\x21-\x7E]+$/, {
        error:
          "access_token must be the token Meta gave: letters, digits and punctuation, no spaces",
      })
      .optional()
      .describe(
        "whatsapp_cloud (required): a system user's permanent access token with whatsapp_business_messaging and whatsapp_business_management. Write-only: stored encrypted, never returned.",
      ),
  })
  // Checked with the other fields, so one answer names every field missing or out of place.
  .superRefine((body, ctx) => {
    for (const [field, message] of providerFieldProblems(body)) {
      ctx.addIssue({ code: "custom", path: [field], message });
    }
  });
export type CreateChannelBody = z.infer<typeof CreateChannelBody>;
/** The create body as a client writes it (provider may be left out for a sandbox number). */
export type CreateChannelInput = z.input<typeof CreateChannelBody>;

export const ChannelIdParams = z.object({
  id: z.string().describe("The workspace's id."),
  channel_id: z.string().describe("The channel's id."),
});

export const ChannelResponse = successEnvelope(Channel, EmptyMeta);
export const ChannelListResponse = listEnvelope(Channel);

/** Meta's webhook verification request (GET /webhooks/whatsapp). */
// A repeated parameter arrives as an array: read as one text that matches nothing, so the
// handshake answers it with its 403, as any other wrong value.
const handshakeText = z.preprocess(
  (v) => (Array.isArray(v) ? v.join(",") : v),
  z.string().optional(),
);

export const WhatsappVerifyQuery = z.object({
  "hub.mode": handshakeText.describe("`subscribe`."),
  "hub.verify_token": handshakeText.describe("Must equal RESELLER_WHATSAPP_VERIFY_TOKEN."),
  "hub.challenge": handshakeText.describe("Echoed back as plain text when verified."),
});

/** The answer to a verified webhook: how many of its events were new (repeats are dropped). */
export const WhatsappWebhookResponse = successEnvelope(
  z.object({ stored: z.number().int().describe("New events stored for the apply job.") }),
  EmptyMeta,
);
