import { checkE164 } from "../../contract/phones.js";
import { invalidField } from "../domain/service-error.js";
import type { MessageSender } from "../messaging/message-sender.js";
import type { MessagingProvider } from "../messaging/provider.js";
import { sandboxReview } from "./template-review.js";

/** The sandbox operator: the provider interface plus how long its template review takes. */
export interface SandboxProvider extends MessagingProvider {
  /** How long after submission the review job first runs (`serve --review-delay`); 0 asks at once. */
  readonly reviewDelayMs: number;
}

/**
 * The local, simulated messaging operator behind `reseller serve`: it accepts any valid number,
 * reviews templates by its documented content rules, and sends exactly once per idempotency key
 * (sandbox-sender.ts). Its statuses and replies reach the service through provider-events.ts.
 */
export function sandboxMessagingProvider(deps: {
  reviewDelayMs: number;
  sender: Pick<MessageSender, "send">;
}): SandboxProvider {
  return {
    kind: "sandbox",
    exactlyOnce: true,
    reviewDelayMs: deps.reviewDelayMs,
    async connectNumber(_workspaceId, request) {
      // Which fields each provider takes is the request's rule (CreateChannelBody); this only
      // narrows the type.
      if (request.phone === undefined)
        throw invalidField("phone", "is required for a sandbox channel");
      const phone = checkE164(request.phone);
      if (!phone.ok) throw invalidField("phone", phone.message);
      // The sandbox shows recipients the number itself: it has no verified business name.
      return {
        phone: phone.e164,
        verified_name: null,
        quality_rating: null,
        phone_number_id: null,
        waba_id: null,
        access_token_encrypted: null,
      };
    },
    reviewTemplate: async (template) => sandboxReview(template),
    // Its decisions come from the review job and the operator controls, never missed.
    templateStatuses: async () => [],
    send: (messages) => deps.sender.send(messages),
  };
}
