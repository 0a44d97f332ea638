import { createHash, timingSafeEqual } from "node:crypto";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { WhatsappVerifyQuery, WhatsappWebhookResponse } from "../../contract/channels.js";
import type { App } from "../app-types.js";
import { whatsappWebhookBodyLimitBytes } from "../body-limits.js";
import { ServiceError } from "../domain/service-error.js";
import { storeWebhook, validSignature } from "../messaging/whatsapp-webhooks.js";
import type { Services } from "../services.js";
import { errorResponses } from "./responses.js";

const tags = ["WhatsApp webhooks"];

/**
 * GET/POST /webhooks/whatsapp: Meta's webhook verification and deliveries. The POST body is
 * kept as the exact bytes received, since the signature covers those bytes and not a re-encoding.
 */
export function whatsappWebhookRoutes(app: App, services: Services): void {
  app.register(async (scope) => {
    const child: App = scope.withTypeProvider<ZodTypeProvider>();
    // Every media type as bytes: the signature is judged before anything else, so a delivery
    // without a good one is a 401 whatever its Content-Type says.
    child.removeAllContentTypeParsers();
    child.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) =>
      done(null, body),
    );

    child.get(
      "/webhooks/whatsapp",
      {
        schema: {
          tags,
          operationId: "verifyWhatsappWebhook",
          summary: "Meta's webhook verification (subscribe handshake)",
          description:
            "200 with `hub.challenge` as plain text when `hub.mode` is `subscribe` and `hub.verify_token` equals RESELLER_WHATSAPP_VERIFY_TOKEN; 403 webhook_verification_failed otherwise.",
          querystring: WhatsappVerifyQuery,
          response: {
            200: z.string().describe("The challenge, as plain text."),
            ...errorResponses(400, 403, 422),
          },
        },
      },
      async (request, reply) => {
        const expected = services.whatsapp.verifyToken;
        const query = request.query;
        if (
          expected &&
          query["hub.mode"] === "subscribe" &&
          sameSecret(query["hub.verify_token"], expected) &&
          query["hub.challenge"] !== undefined
        ) {
          return reply.code(200).type("text/plain; charset=utf-8").send(query["hub.challenge"]);
        }
        throw new ServiceError(
          "webhook_verification_failed",
          expected
            ? "Webhook verification failed: hub.mode must be subscribe and hub.verify_token must match RESELLER_WHATSAPP_VERIFY_TOKEN."
            : "Webhook verification failed: the service has no RESELLER_WHATSAPP_VERIFY_TOKEN.",
        );
      },
    );

    child.post(
      "/webhooks/whatsapp",
      {
        bodyLimit: whatsappWebhookBodyLimitBytes,
        schema: {
          tags,
          operationId: "receiveWhatsappWebhook",
          summary:
            "Receive Meta's webhook deliveries (statuses, inbound messages, template status)",
          description:
            "Checks `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with RESELLER_WHATSAPP_APP_SECRET>` in constant time; 401 and nothing changed when it is missing or wrong. A verified delivery is stored (repeats of a message id + status are dropped) and answered 200 at once; a job applies it.",
          response: { 200: WhatsappWebhookResponse, ...errorResponses(400, 401, 413, 415) },
        },
      },
      async (request) => {
        const secret = services.whatsapp.appSecret;
        if (!secret) {
          // Without the app secret no signature can be checked, so none is accepted.
          throw new ServiceError(
            "unauthenticated",
            "The service has no RESELLER_WHATSAPP_APP_SECRET, so no webhook signature can be accepted.",
          );
        }
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers["x-hub-signature-256"];
        if (!validSignature(raw, typeof header === "string" ? header : undefined, secret)) {
          throw new ServiceError(
            "unauthenticated",
            "X-Hub-Signature-256 is missing or does not match the body signed with the app secret.",
          );
        }
        let body: unknown;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new ServiceError("invalid_json");
        }
        const stored = await storeWebhook(services, body);
        return { status: "success" as const, data: { stored }, meta: {} };
      },
    );
  });
}

/** Compares a presented secret with the expected one in constant time (over their digests). */
function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
