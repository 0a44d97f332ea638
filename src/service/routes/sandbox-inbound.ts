import { InboundMessageBody, InboundResponse } from "../../contract/campaigns.js";
import type { App } from "../app-types.js";
import { receiveInbound } from "../domain/inbound-replies.js";
import { principalOf } from "../plugins/authentication.js";
import type { Services } from "../services.js";
import { errorResponses, postErrors } from "./responses.js";

/** POST /api/v1/sandbox/inbound: simulates a contact's reply reaching the operator. */
export function sandboxInboundRoutes(app: App, services: Services): void {
  app.post(
    "/api/v1/sandbox/inbound",
    {
      config: { scope: "contacts:write" },
      schema: {
        tags: ["Sandbox operator"],
        operationId: "simulateInboundMessage",
        summary: "Simulate an inbound message from a contact",
        description:
          "What the operator reports when a contact writes to one of the workspace's numbers. STOP or UNSUBSCRIBE (any case; spaces, punctuation and emoji around the word ignored) opts the contact out and records `opted_out_at`; START (alone, any case: a consent must be plain) opts it back in. Other text changes nothing. A workspace with a WhatsApp Cloud number is a 422 on `workspace_id`: its replies come from Meta, never simulated.",
        body: InboundMessageBody,
        response: { 200: InboundResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request) => {
      const data = await receiveInbound(services, principalOf(request), request.body);
      return { status: "success" as const, data, meta: {} };
    },
  );
}
