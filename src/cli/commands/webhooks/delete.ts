import { WebhookEndpointResponse } from "../../../contract/webhooks.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { confirmOrYes } from "../../prompts.js";
import { endpointColumns, endpointsPath } from "./webhook-format.js";

/** `reseller webhooks delete <id>`: asks at a terminal; needs --yes otherwise. */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const client = await ctx.client();
  let label = id;
  const yes = booleanOption(options, "yes");
  if (!yes && ctx.canPrompt) {
    const current = (await client.get(endpointsPath(id), WebhookEndpointResponse)).body.data;
    label = `${current.id} (${current.url})`;
  }
  if (!(await confirmOrYes(ctx, yes, `Delete webhook endpoint ${label}?`))) {
    return { message: `Cancelled: endpoint ${label} was not deleted.` };
  }
  const response = await client.call("DELETE", endpointsPath(id), WebhookEndpointResponse);
  return {
    data: response.raw.data,
    view: recordView(response.body.data, endpointColumns),
    message: `Endpoint ${label} deleted; nothing more is delivered to it.`,
  };
};
