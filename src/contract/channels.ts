import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope } from "./pagination.js";
import { channelStatuses } from "./vocabulary.js";

/** A connected number a workspace sends from. */
export const Channel = z
  .object({
    id: z.string(),
    phone: z.string().describe("The number messages are sent from, E.164."),
    name: z.string(),
    status: z.enum(channelStatuses),
    provider: z.string().describe("`sandbox` on the local service."),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Channel" });
export type Channel = z.infer<typeof Channel>;

export const CreateChannelBody = z.strictObject({
  phone: z.string({ error: "phone must be a string in E.164 form, e.g. +4915112345678" }),
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .min(1, { error: "name must not be empty" })
    .max(100, { error: "name must be at most 100 characters" }),
});
export type CreateChannelBody = z.infer<typeof CreateChannelBody>;

export const ChannelResponse = successEnvelope(Channel, EmptyMeta);
export const ChannelListResponse = listEnvelope(Channel);
