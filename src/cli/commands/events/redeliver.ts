import { RedeliveryResponse } from "../../../contract/events.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { tableView } from "../../output/view.js";
import { eventsPath } from "./event-format.js";

/** `reseller events redeliver <id> [--endpoint ID]`: queues the event's delivery again. */
export const run: Handler = async (ctx, { args, options }) => {
  const client = await ctx.client();
  const endpoint = stringOption(options, "endpoint");
  const response = await client.call(
    "POST",
    eventsPath(args[0] ?? "", "/redeliver"),
    RedeliveryResponse,
    {
      body: endpoint === undefined ? {} : { endpoint_id: endpoint },
    },
  );
  const { deliveries, event_id: eventId } = response.body.data;
  return {
    data: response.raw.data,
    view: tableView(
      deliveries,
      [
        { header: "Delivery", key: "id", value: (d) => d.id },
        { header: "Endpoint", key: "endpoint_id", value: (d) => d.endpoint_id },
      ],
      { empty: "No enabled endpoint takes this event type." },
    ),
    message:
      deliveries.length === 0
        ? `Event ${eventId} was not queued: no enabled endpoint subscribes to its type.`
        : `Event ${eventId} queued for ${counted(deliveries.length, "endpoint")}; follow with \`reseller webhooks deliveries <endpoint>\`.`,
  };
};
