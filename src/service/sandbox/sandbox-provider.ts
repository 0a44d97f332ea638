import type { MessagingProvider } from "../messaging/provider.js";
import { sandboxReview } from "./template-review.js";

/** The local, simulated messaging operator behind `reseller serve`. */
export function sandboxMessagingProvider(options: { reviewDelayMs: number }): MessagingProvider {
  return {
    kind: "sandbox",
    reviewDelayMs: options.reviewDelayMs,
    reviewTemplate: async (template) => sandboxReview(template),
  };
}
