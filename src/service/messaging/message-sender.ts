/** A message ready to go: rendered, addressed, and keyed so it is sent at most once. */
export interface OutboundMessage {
  /** Unique per campaign recipient: an operator that sees a key again answers as the first time. */
  idempotencyKey: string;
  channelId: string;
  to: string;
  templateName: string;
  templateLanguage: string;
  /** The rendered body text, variables filled in. */
  body: string;
}

/** The operator's answer to one message. */
export type SendOutcome =
  | { status: "accepted"; providerMessageId: string }
  /** Refused for good; `reason` is stable (stats group by it), `code` the operator's. */
  | { status: "failed"; reason: string; code: number };

/** A later report about an accepted message (delivered, read). */
export interface MessageStatusReport {
  providerMessageId: string;
  status: "delivered" | "read";
  at: Date;
}

/**
 * The sending half of the messaging operator. `send` is called with the idempotency key of each
 * recipient, so a campaign resumed after a crash never messages anyone twice: the operator
 * recognises the key and answers with the message it already accepted.
 */
export interface MessageSender {
  send(messages: readonly OutboundMessage[]): Promise<SendOutcome[]>;
}
