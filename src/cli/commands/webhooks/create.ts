import { CreatedWebhookEndpointResponse } from "../../../contract/webhooks.js";
import type { Handler } from "../../command-spec.js";
import { requiredString, stringOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { askForMissing } from "../../prompts.js";
import { endpointColumns, endpointsPath, eventList } from "./webhook-format.js";
import { checkedWebhookUrl, webhookUrlProblem } from "./webhook-input.js";

/** `reseller webhooks create --url U [--events a,b] [--description D]`: prints the secret once. */
export const run: Handler = async (ctx, input) => {
  const options = await askForMissing(ctx, input.options, [
    {
      key: "url",
      message: "Endpoint URL (https://…, where your system takes the events)",
      validate: (v) => webhookUrlProblem(v, "The URL") ?? true,
    },
  ]);
  const url = checkedWebhookUrl(requiredString(options, "url"), "--url");
  const events = eventList(stringOption(options, "events") ?? "*");
  const client = await ctx.client();
  const description = stringOption(options, "description");
  const response = await client.call("POST", endpointsPath(), CreatedWebhookEndpointResponse, {
    body: {
      url,
      events,
      ...(description === undefined ? {} : { description }),
    },
  });
  const endpoint = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(endpoint, [
      ...endpointColumns,
      { header: "Signing secret", key: "secret", value: () => endpoint.secret },
    ]),
    secrets: [`Signing secret of ${endpoint.id} (shown only this once): ${endpoint.secret}`],
    message: `Endpoint ${endpoint.id} created. Store its signing secret now, it is not shown again: ${endpoint.secret}`,
  };
};
