import type { ChannelProvider, CreateChannelBody } from "../../contract/channels.js";
import type { TemplateDefinition } from "../../contract/template-rules.js";
import type { TemplateRejectionReason } from "../../contract/vocabulary.js";
import type { ChannelTable } from "../db/tables/campaigns.js";
import type { OutboundMessage, SendOutcome } from "./message-sender.js";

/** A submitted template as the operator is asked to review it. */
export interface TemplateUnderReview extends TemplateDefinition {
  id: string;
  workspace_id: string;
  /** The operator's id once submitted (the Cloud API's Graph id); null before. */
  provider_template_id?: string | null;
}

/** What the operator decided about a template. */
export type TemplateDecision =
  | { status: "approved" }
  /** `detail` explains the reason to people (which rule fired, where). */
  | { status: "rejected"; reason: TemplateRejectionReason; detail?: string | undefined }
  | { status: "paused" }
  | { status: "disabled" };

/** What the operator decided, or that it has not decided yet. */
export type TemplateReviewOutcome =
  | Extract<TemplateDecision, { status: "approved" | "rejected" }>
  /** Still under review (a real operator answers later): the review job asks again at `checkAgainAt`. */
  | { status: "pending"; checkAgainAt: Date };

/** A template's status as the operator lists it (the periodic sync for missed webhooks). */
export interface TemplateStatusReport {
  /** The operator's id of the template (the Graph id). */
  providerTemplateId: string;
  decision: TemplateDecision;
}

/** What a workspace asks to connect: the create body's operator fields. */
export type NumberRequest = Pick<
  CreateChannelBody,
  "phone" | "phone_number_id" | "waba_id" | "access_token"
>;

/** A number the operator confirmed, as its channel row keeps it. */
export type ConnectedNumber = Pick<
  ChannelTable,
  | "phone"
  | "verified_name"
  | "quality_rating"
  | "phone_number_id"
  | "waba_id"
  | "access_token_encrypted"
>;

/**
 * The messaging platform operator as the service sees it. Two implementations: the sandbox
 * (sandbox/sandbox-provider.ts) and the WhatsApp Cloud API adapter (cloud-provider.ts), chosen
 * per channel and per workspace by provider-routing.ts. What happens at the operator later
 * (statuses, inbound replies, template decisions) comes back through one event path,
 * provider-events.ts, whether the sandbox makes it up or a Cloud API webhook reports it.
 */
export interface MessagingProvider {
  /** The channel `provider` this operator serves. */
  readonly kind: ChannelProvider;
  /**
   * Whether sending again with the same idempotency keys is harmless. When false the engine
   * never repeats a send that may have arrived (`outcome_unknown`).
   */
  readonly exactlyOnce: boolean;
  /**
   * Checks a number a workspace wants to send from and answers what its channel keeps; a bad
   * value is a 422 naming the field. Runs before the channel exists.
   */
  connectNumber(workspaceId: string, request: NumberRequest): Promise<ConnectedNumber>;
  /**
   * Submits a template (the first call) and follows its status (later calls), as the operator
   * of `channel`, the workspace's channel at this operator (null for the sandbox).
   */
  reviewTemplate(
    template: TemplateUnderReview,
    channel: ChannelTable | null,
  ): Promise<TemplateReviewOutcome>;
  /** Every template status the operator lists for `channel`'s account (missed webhooks). */
  templateStatuses(channel: ChannelTable): Promise<TemplateStatusReport[]>;
  /** Sends template messages, all of one channel, answering one outcome per message in order. */
  send(messages: readonly OutboundMessage[]): Promise<SendOutcome[]>;
}
