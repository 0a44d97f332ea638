import {
  type UpdateWebhookEndpointBody,
  WebhookEndpointResponse,
} from "../../../contract/webhooks.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, stringOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { endpointColumns, endpointsPath, eventList } from "./webhook-format.js";
import { checkedWebhookUrl } from "./webhook-input.js";

/** `reseller webhooks update <id> [--url] [--events] [--description] [--enable|--disable]`. */
export const run: Handler = async (ctx, { args, options }) => {
  const enable = booleanOption(options, "enable");
  const disable = booleanOption(options, "disable");
  if (enable && disable) throw usageError("Give --enable or --disable, not both.");
  const body: UpdateWebhookEndpointBody = {};
  const url = stringOption(options, "url");
  const events = stringOption(options, "events");
  const description = stringOption(options, "description");
  if (url !== undefined) body.url = checkedWebhookUrl(url, "--url");
  if (events !== undefined) body.events = eventList(events) as UpdateWebhookEndpointBody["events"];
  if (description !== undefined) body.description = description;
  if (enable || disable) body.enabled = enable;
  if (Object.keys(body).length === 0) {
    throw usageError(
      "Nothing to change.",
      "Give --url, --events, --description, --enable or --disable.",
    );
  }
  const client = await ctx.client();
  const response = await client.call(
    "PATCH",
    endpointsPath(args[0] ?? ""),
    WebhookEndpointResponse,
    {
      body,
    },
  );
  const endpoint = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(endpoint, endpointColumns),
    message: `Endpoint ${endpoint.id} updated${endpoint.enabled ? "" : " (disabled: nothing is delivered to it)"}.`,
  };
};
