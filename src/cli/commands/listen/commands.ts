import { eventTypes } from "../../../contract/vocabulary.js";
import type { CommandSpec } from "../../command-spec.js";

/** `reseller listen --forward-to URL`: the event stream forwarded, signed, to a local receiver. */
export const listenCommand: CommandSpec = {
  name: "listen",
  summary: "Stream your account's events live and forward them, signed, to a local URL",
  description:
    'Opens GET /api/v1/events/stream (Server-Sent Events) and POSTs each event as it happens to --forward-to, signed like a real delivery (Reseller-Signature, Reseller-Event-Id) with a secret printed at start. Says "Connected; waiting for events." once the stream is open: every event from then on is forwarded. Prints one line per event with the local answer\'s status (or the error): tab-separated when piped; with --json each event as the service sent it, one per line (the answers on stderr); with --quiet its id. When the stream ends or breaks (a restart, a crash, a load balancer answering 502/503/504) it connects again from the last event, waiting 1 to 15 s between tries (exit 8 after five failed in a row); a token revoked meanwhile ends it with exit 3. Registers nothing on the service and does not retry a delivery. Ctrl-C stops it (exit 0).',
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
