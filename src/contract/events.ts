import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope, PageQuery } from "./pagination.js";
import { eventTypes } from "./vocabulary.js";

export const EventType = z.enum(eventTypes);
export type EventType = z.infer<typeof EventType>;

/** Something that happened, as the event log, webhook deliveries and the stream carry it. */
export const Event = z
  .object({
    id: z.string().describe("`evt_…`; receivers deduplicate deliveries by it."),
    type: EventType,
    created_at: z.string(),
    workspace_id: z.string().nullable(),
    data: z
      .record(z.string(), z.unknown())
      .describe("The resource the event is about, as the API shows it."),
  })
  .meta({ id: "Event" });
export type Event = z.infer<typeof Event>;

export const EventListQuery = PageQuery.extend({
  type: z
    .enum(eventTypes, { error: `type must be one of ${eventTypes.join(", ")}` })
    .optional()
    .describe("Only events of this type."),
  workspace_id: z.string().min(1).optional().describe("Only events of this workspace."),
});

export const EventStreamQuery = z.object({
  types: z
    .string()
    .optional()
    .describe("Comma-separated event types to stream (default: every type)."),
});

export const EventIdParams = z.object({ id: z.string().describe("The event's id (evt_…).") });

export const RedeliverBody = z
  .strictObject({
    endpoint_id: z
      .string()
      .min(1)
      .optional()
      .describe("Only to this endpoint (default: every enabled endpoint subscribed to the type)."),
  })
  // No body at all is the usual call; fastify hands a missing body to validation as null.
  .nullish();

export const Redelivery = z
  .object({
    event_id: z.string(),
    deliveries: z.array(z.object({ id: z.string(), endpoint_id: z.string() })),
  })
  .meta({ id: "Redelivery" });
export type Redelivery = z.infer<typeof Redelivery>;

export const EventResponse = successEnvelope(Event, EmptyMeta);
export const EventListResponse = listEnvelope(Event);
export const RedeliveryResponse = successEnvelope(Redelivery, EmptyMeta);
