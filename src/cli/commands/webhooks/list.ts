import { WebhookEndpointListResponse } from "../../../contract/webhooks.js";
import type { Handler } from "../../command-spec.js";
import { tableView } from "../../output/view.js";
import { fetchList } from "../../paged-list.js";
import { endpointColumns, endpointsPath } from "./webhook-format.js";

/** `reseller webhooks list`: the endpoints, newest first. */
export const run: Handler = async (ctx, { options }) => {
  const client = await ctx.client();
  const list = await fetchList(
    client,
    endpointsPath(),
    WebhookEndpointListResponse,
    options,
    {},
    "endpoints",
  );
  return {
    data: list.data,
    view: tableView(list.rows, endpointColumns, {
      empty: "No webhook endpoints yet: add one with `reseller webhooks create --url …`.",
    }),
    message: list.message,
  };
};
