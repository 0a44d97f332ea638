import { eventTypes } from "../../../contract/vocabulary.js";
import type { CommandSpec, GroupSpec } from "../../command-spec.js";

const idArgument = { name: "id", description: "the event's id (evt_…)" };

export const eventCommands: GroupSpec = {
  name: "events",
  summary: "The event log of the last 30 days: list, inspect, send again",
  commands: [
    {
      name: "list",
      summary: "List events, newest first",
      paged: true,
      options: [
        { flags: "--type <type>", description: "only this event type", choices: eventTypes },
        {
          flags: "-w, --workspace <id>",
          description: "only events of this workspace (ws_…); without it, every workspace's",
        },
      ],
      examples: [
        "reseller events list",
        "reseller events list --type campaign.completed --all --json",
        "reseller events list --workspace ws_01JD3F --all --csv > events.csv",
      ],
      handler: "events/list",
    },
    {
      name: "get",
      summary: "Show one event with its data",
      arguments: [idArgument],
      examples: [
        "reseller events get evt_01JD3F",
        "reseller events get evt_01JD3F --json | jq .data",
      ],
      handler: "events/get",
    },
    {
      name: "redeliver",
      summary: "Send an event to the webhook endpoints again",
      description:
        "Queues a new delivery to every enabled endpoint subscribed to the event's type, or to the one --endpoint names.",
      arguments: [idArgument],
      options: [{ flags: "--endpoint <id>", description: "only to this endpoint (we_…)" }],
      examples: [
        "reseller events redeliver evt_01JD3F",
        "reseller events redeliver evt_01JD3F --endpoint we_01JD3F",
      ],
      handler: "events/redeliver",
    },
  ],
};

export const listenCommand: CommandSpec = {
  name: "listen",
  summary: "Stream your account's events live and forward them, signed, to a local URL",
  description:
    "Opens GET /api/v1/events/stream (Server-Sent Events) and POSTs each event as it happens to --forward-to, signed like a real delivery (Reseller-Signature, Reseller-Event-Id) with a secret printed at start. Prints one line per event with the local answer's status (or the error): tab-separated when piped; with --json each event as the service sent it, one per line (the answers on stderr); with --quiet its id. When the stream ends or breaks (a restart, a crash, a load balancer answering 502/503/504) it connects again from the last event, waiting 1 to 15 s between tries (exit 8 after five failed in a row); a token revoked meanwhile ends it with exit 3. Registers nothing on the service and does not retry a delivery. Ctrl-C stops it (exit 0).",
  options: [
    { flags: "--forward-to <url>", description: "local URL that receives the events" },
    {
      flags: "--events <types>",
      description: `comma-separated event types (default: all): ${eventTypes.join(", ")}`,
    },
  ],
  examples: [
    "reseller listen --forward-to http://localhost:4000/hooks",
    "reseller listen --forward-to http://localhost:3000/webhooks --events campaign.completed,contact.opted_out",
    "reseller listen --forward-to http://localhost:4000/hooks --json | jq -c '{type, workspace_id}'",
  ],
  handler: "listen/listen",
};

export const usageCommand: CommandSpec = {
  name: "usage",
  summary: "Monthly usage per workspace (messages by category, contacts, templates, plan)",
  description:
    "What to bill clients from: per workspace, messages sent, delivered, read and failed by template category (each in the month it was sent or failed), contacts at the month's end, templates approved at the month's end and plan; totals on stderr (--json prints the rows only; `reseller api GET /api/v1/usage` has the totals in `meta`). --csv writes one row per workspace, with each category's sent, delivered, read and failed (the terminal shows each category's sent). Every workspace by default (as --all); --page N shows one page of --per-page workspaces.",
  options: [
    { flags: "--month <yyyy-mm>", description: "the month (UTC), default the current one" },
  ],
  paged: "all",
  examples: [
    "reseller usage",
    "reseller usage --month 2026-10 --csv > usage-2026-10.csv",
    "reseller usage --json | jq '.[] | {workspace_name, sent: .messages.total.sent}'",
  ],
  handler: "usage/usage",
};
