import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { quoted } from "./errors.js";
import { listEnvelope, PageQuery } from "./pagination.js";
import { eventTypes } from "./vocabulary.js";

/** The prefix of webhook signing secrets, so a leaked one is recognisable. */
export const webhookSecretPrefix = "whsec_";

/** The URL itself when it is an http(s) URL with a host, else null. */
function httpUrl(text: string): URL | null {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
      ? url
      : null;
  } catch {
    return null;
  }
}

/**
 * An endpoint's URL: http(s) with a host, no spaces, no credentials, no port 0. The CLI checks
 * `listen --forward-to` and the `webhooks create` prompt with it too.
 */
export const WebhookUrl = z
  .string({ error: "url must be an http or https URL" })
  .trim()
  .max(2048, { error: "url must be at most 2048 characters" })
  .refine((text) => httpUrl(text) !== null, {
    error: "url must be an http or https URL such as https://crm.example.com/hooks",
  })
  // The URL parser drops line breaks and encodes spaces: the endpoint would show one address
  // and be called at another.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  .refine((text) => !/[\s\u0000-\u001f\u007f]/.test(text), {
    error: "url must not hold spaces or control characters (encode a space as %20)",
  })
  // A delivery cannot carry them (fetch refuses such a URL), so every attempt would fail for
  // three days; the receiver checks the signature instead.
  .refine(
    (text) => {
      const url = httpUrl(text);
      return url === null || (url.username === "" && url.password === "");
    },
    {
      error:
        "url must not hold a user name or password (user:pass@): deliveries are signed (Reseller-Signature) for the receiver to check",
    },
  )
  .refine((text) => httpUrl(text)?.port !== "0", { error: "url must not use port 0" });

const subscribable = ["*", ...eventTypes] as const;

const EventSelection = z
  .array(
    z.enum(subscribable, {
      error: (issue) =>
        `${typeof issue.input === "string" ? quoted(issue.input) : JSON.stringify(issue.input)} is not an event type: events must list event types (${eventTypes.join(", ")}) or "*"`,
    }),
    { error: 'events must be a list of event types, e.g. ["contact.opted_out"], or ["*"] for all' },
  )
  .min(1, { error: 'events must name at least one event type, or ["*"] for all' })
  .max(eventTypes.length + 1)
  .describe('Event types to receive, or `["*"]` for every type.');

const Description = z
  .string({ error: "description must be a string" })
  .trim()
  .max(500, { error: "description must be at most 500 characters" });

/** One POST of an event to an endpoint and what came of it. */
export const WebhookDeliveryAttempt = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    attempt: z.number().int().min(1).describe("1 for the first try of this delivery."),
    status_code: z
      .number()
      .int()
      .nullable()
      .describe("The receiver's HTTP status; null when none came."),
    duration_ms: z.number().int().min(0),
    error: z.string().nullable().describe("Why it failed: timeout, connection refused, status…"),
    delivered: z.boolean().describe("A 2xx within 10 seconds."),
    created_at: z.string(),
  })
  .meta({ id: "WebhookDeliveryAttempt" });
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    secret_hint: z.string().describe("The secret's last characters, to tell secrets apart."),
    created_at: z.string(),
    updated_at: z.string(),
    pending_deliveries: z
      .number()
      .int()
      .min(0)
      .describe(
        "Events owed to this endpoint and not delivered yet: waiting for their first try, or retried with backoff for up to 3 days. A number that grows means the receiver is failing.",
      )
      // An answer without it (a service from before it) reads as 0, and last_attempt as null.
      .default(0),
    last_attempt: WebhookDeliveryAttempt.nullable()
      .default(null)
      .describe(
        "The latest POST to this endpoint and what came of it (see …/deliveries for all); null before the first.",
      ),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z
    .string()
    .describe("The signing secret (`whsec_…`): shown only in this response, store it now."),
}).meta({ id: "CreatedWebhookEndpoint" });

export const CreateWebhookEndpointBody = z.strictObject({
  url: WebhookUrl,
  events: EventSelection.default(["*"]),
  description: Description.optional(),
});
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = z.strictObject({
  url: WebhookUrl.optional(),
  events: EventSelection.optional(),
  enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
  description: Description.nullable().optional(),
});
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export const WebhookEndpointIdParams = z.object({
  id: z.string().describe("The endpoint's id (we_…)."),
});

export const WebhookEndpointResponse = successEnvelope(WebhookEndpoint, EmptyMeta);
export const CreatedWebhookEndpointResponse = successEnvelope(CreatedWebhookEndpoint, EmptyMeta);
export const WebhookEndpointListResponse = listEnvelope(WebhookEndpoint);
export const WebhookDeliveryListQuery = PageQuery;
export const WebhookDeliveryListResponse = listEnvelope(WebhookDeliveryAttempt);
