import { WebhookEndpointResponse } from "../../../contract/webhooks.js";
import type { Handler } from "../../command-spec.js";
import { recordView } from "../../output/view.js";
import { endpointColumns, endpointsPath } from "./webhook-format.js";

/** `reseller webhooks get <id>`: one endpoint. */
export const run: Handler = async (ctx, { args }) => {
  const client = await ctx.client();
  const response = await client.get(endpointsPath(args[0] ?? ""), WebhookEndpointResponse);
  return { data: response.raw.data, view: recordView(response.body.data, endpointColumns) };
};
