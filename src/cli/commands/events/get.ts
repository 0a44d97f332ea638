import { EventResponse } from "../../../contract/events.js";
import type { Handler } from "../../command-spec.js";
import { recordView } from "../../output/view.js";
import { eventColumns, eventsPath } from "./event-format.js";

/** `reseller events get <id>`: one event; --json shows its data in full. */
export const run: Handler = async (ctx, { args }) => {
  const client = await ctx.client();
  const response = await client.get(eventsPath(args[0] ?? ""), EventResponse);
  const event = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(event, [
      ...eventColumns.filter((c) => c.key !== "data"),
      { header: "Data", key: "data", value: (e) => JSON.stringify(e.data) },
    ]),
  };
};
