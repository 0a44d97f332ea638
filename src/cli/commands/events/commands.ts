import { eventTypes } from "../../../contract/vocabulary.js";
import type { GroupSpec } from "../../command-spec.js";

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
