import type { TemplateDefinition } from "../../contract/template-rules.js";
import type { TemplateRejectionReason } from "../../contract/vocabulary.js";

/** A submitted template as the operator is asked to review it. */
export interface TemplateUnderReview extends TemplateDefinition {
  id: string;
  workspace_id: string;
}

/** What the operator decided, or that it has not decided yet. */
export type TemplateReviewOutcome =
  | { status: "approved" }
  /** `detail` explains the reason to people (which rule fired, where). */
  | { status: "rejected"; reason: TemplateRejectionReason; detail?: string }
  /** Still under review (a real operator answers later): the review job asks again at `checkAgainAt`. */
  | { status: "pending"; checkAgainAt: Date };

/**
 * The template half of the messaging platform operator: it reviews what a workspace submits.
 * The service calls it from a durable job (`template_review`), `reviewDelayMs` after submission.
 */
export interface TemplateReviewer {
  /** How long after submission the review job first runs; 0 asks at once. */
  readonly reviewDelayMs: number;
  reviewTemplate(template: TemplateUnderReview): Promise<TemplateReviewOutcome>;
}

/**
 * The messaging platform operator as the service sees it: the local sandbox, or later a
 * WhatsApp Cloud API adapter (which would submit the template on the first call and answer
 * `pending` until Meta has decided). Message sending joins this interface beside the templates.
 */
export interface MessagingProvider extends TemplateReviewer {
  /** `sandbox` for the simulated operator; operator controls exist only there. */
  readonly kind: string;
}
