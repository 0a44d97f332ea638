import { WebhookDeliveryListResponse } from "../../../contract/webhooks.js";
import type { Handler } from "../../command-spec.js";
import { tableView } from "../../output/view.js";
import { fetchList } from "../../paged-list.js";
import { attemptColumns, endpointsPath } from "./webhook-format.js";

/** `reseller webhooks deliveries <id>`: the endpoint's delivery attempts, newest first. */
export const run: Handler = async (ctx, { args, options }) => {
  const client = await ctx.client();
  const list = await fetchList(
    client,
    endpointsPath(args[0] ?? "", "/deliveries"),
    WebhookDeliveryListResponse,
    options,
    {},
    "attempts",
  );
  return {
    data: list.data,
    view: tableView(list.rows, attemptColumns, { empty: "No delivery attempts yet." }),
    message: list.message,
  };
};
