import type { MessageParameters } from "../domain/campaign-rendering.js";

/** A message ready to go: rendered, addressed, and keyed so it is sent at most once. */
export interface OutboundMessage {
  /** Unique per campaign recipient: an operator that sees a key again answers as the first time. */
  idempotencyKey: string;
  /**
   * The recipient's id (`<campaign id>:<contact id>`), sent as `biz_opaque_callback_data` so a
   * status can be matched even when the send's answer was lost.
   */
  recipientId: string;
  channelId: string;
  to: string;
  templateName: string;
  templateLanguage: string;
  /** The rendered body text, variables filled in. */
  body: string;
  /** The variable values in the order the header's and the body's placeholders number them. */
  parameters: MessageParameters;
}

/** The operator's answer to one message. */
export type SendOutcome =
  | { status: "accepted"; providerMessageId: string }
  /** Refused for good; `reason` is stable (stats group by it), `code` the operator's. */
  | { status: "failed"; reason: string; code: number; optOut?: boolean }
  /** Throughput or rate limit: not sent; wait and send it again (it stays queued). */
  | { status: "backoff"; reason: string; code: number }
  /** Nothing more of the campaign can go: fail it with `reason`. */
  | {
      status: "campaign_failed";
      reason: string;
      code: number;
      /** What the template has become at the operator, when that is why. */
      templateStatus?: "paused" | "disabled";
      /** The operator refused the channel's credentials. */
      disconnectChannel?: boolean;
    }
  /** No answer: the message may have reached the operator. Never sent again by itself. */
  | { status: "unknown"; detail: string };

/**
 * Whether an outcome ends its batch (a rate limit, or a refusal of the whole campaign): the
 * messages after it are not tried, by either operator.
 */
export function endsTheBatch(outcome: SendOutcome): boolean {
  return outcome.status === "backoff" || outcome.status === "campaign_failed";
}

/** The outcome of a message not tried because `wall` ended its batch: it stays queued. */
export function notTried(wall: SendOutcome): SendOutcome {
  return wall.status === "backoff" ? wall : { status: "backoff", reason: "not_attempted", code: 0 };
}

/** A later report about a message, from the operator (webhook or sandbox). */
export interface MessageStatusReport {
  /** The operator's message id (wamid), when the report carries one. */
  providerMessageId: string;
  /** The recipient id the message was sent with (`biz_opaque_callback_data`), when known. */
  recipientId?: string | undefined;
  /** The channel the report came for (a webhook names its number): only its messages match. */
  channelId?: string | undefined;
  status: "sent" | "delivered" | "read" | "failed";
  /** For `failed`: the operator's error code. */
  errorCode?: number | undefined;
  at: Date;
}

/**
 * The campaign engine's sending port (provider-routing.ts sends each batch through its
 * channel's MessagingProvider). The sandbox recognises each recipient's idempotency key, so a
 * campaign resumed after a crash never messages anyone twice; a provider without idempotency
 * (the Cloud API) says so through `exactlyOnce`, and the engine then never repeats a send that
 * may have arrived.
 */
export interface MessageSender {
  send(messages: readonly OutboundMessage[]): Promise<SendOutcome[]>;
  /** Whether sending again with the same keys is harmless for channels of `provider` (default true). */
  exactlyOnce?(provider: string): boolean;
}
