import { eventTypes } from "../../../contract/vocabulary.js";
import type { GroupSpec } from "../../command-spec.js";

const idArgument = { name: "id", description: "the endpoint's id (we_…)" };
const eventsHelp = `comma-separated event types, or * for all: ${eventTypes.join(", ")}`;

export const webhookCommands: GroupSpec = {
  name: "webhooks",
  summary: "Webhook endpoints: where the service POSTs your account's events, signed",
  commands: [
    {
      name: "create",
      summary: "Add an endpoint; prints its signing secret (whsec_…) once",
      description:
        "Events of the chosen types (default: all) are POSTed to the URL as JSON with a Reseller-Signature header (t=<unix>,v1=<HMAC-SHA256 of '<t>.<body>'>) and Reseller-Event-Id; a 2xx within 10 s counts as delivered, anything else is retried with exponential backoff for 3 days. The secret is shown only in this answer: store it (with --quiet the id goes to stdout and the secret to stderr). See docs/webhooks.md for verifying deliveries. At a terminal a missing --url is asked for.",
      options: [
        { flags: "--url <url>", description: "where to POST events (http or https)" },
        { flags: "--events <types>", description: eventsHelp, default: "*" },
        { flags: "--description <text>", description: "what the endpoint is for" },
      ],
      examples: [
        "reseller webhooks create --url https://crm.example.com/hooks",
        "reseller webhooks create --url https://billing.example.com/reseller --events workspace.created,workspace.updated --description Billing",
        "reseller webhooks create --url https://crm.example.com/hooks --json | jq -r .secret",
      ],
      handler: "webhooks/create",
    },
    {
      name: "list",
      summary:
        "List the webhook endpoints, newest first, with what each owes and its latest answer",
      paged: true,
      examples: [
        "reseller webhooks list",
        "reseller webhooks list --json | jq -r '.[] | select(.pending_deliveries > 0) | .url'",
      ],
      handler: "webhooks/list",
    },
    {
      name: "get",
      summary: "Show an endpoint (never its secret)",
      arguments: [idArgument],
      examples: ["reseller webhooks get we_01JD3F"],
      handler: "webhooks/get",
    },
    {
      name: "update",
      summary: "Change an endpoint's URL, events, description, or enable/disable it",
      arguments: [idArgument],
      options: [
        { flags: "--url <url>", description: "new URL" },
        { flags: "--events <types>", description: eventsHelp },
        { flags: "--description <text>", description: "new description" },
        { flags: "--enable", description: "deliver to it again" },
        { flags: "--disable", description: "stop delivering to it (pending deliveries end)" },
      ],
      examples: [
        "reseller webhooks update we_01JD3F --disable",
        "reseller webhooks update we_01JD3F --events campaign.completed,campaign.failed",
      ],
      handler: "webhooks/update",
    },
    {
      name: "delete",
      summary: "Delete an endpoint (asks first; --yes without a terminal)",
      arguments: [idArgument],
      options: [{ flags: "-y, --yes", description: "delete without asking" }],
      examples: ["reseller webhooks delete we_01JD3F", "reseller webhooks delete we_01JD3F --yes"],
      handler: "webhooks/delete",
    },
    {
      name: "deliveries",
      summary: "An endpoint's delivery attempts, newest first: status code, duration, error",
      arguments: [idArgument],
      paged: true,
      examples: [
        "reseller webhooks deliveries we_01JD3F",
        "reseller webhooks deliveries we_01JD3F --json | jq '.[] | select(.delivered | not)'",
      ],
      handler: "webhooks/deliveries",
    },
  ],
};
