import { EventListResponse } from "../../../contract/events.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { tableView } from "../../output/view.js";
import { fetchList } from "../../paged-list.js";
import { eventColumns, eventsPath } from "./event-format.js";

/** `reseller events list [--type T] [--workspace ID]`: the event log, newest first. */
export const run: Handler = async (ctx, { options }) => {
  const client = await ctx.client();
  const list = await fetchList(
    client,
    eventsPath(),
    EventListResponse,
    options,
    { type: stringOption(options, "type"), workspace_id: stringOption(options, "workspace") },
    "events",
  );
  return {
    data: list.data,
    view: tableView(list.rows, eventColumns, { empty: "No events in the last 30 days." }),
    message: list.message,
  };
};
