import { reviewFindings } from "../../contract/template-review-rules.js";
import type { TemplateDefinition } from "../../contract/template-rules.js";
import type { TemplateReviewOutcome } from "../messaging/provider.js";

/** Reviews a template as the sandbox operator does: approved unless a content rule fires. */
export function sandboxReview(template: TemplateDefinition): TemplateReviewOutcome {
  // The first rule that fires decides, as docs/sandbox.md lists them.
  const [first] = reviewFindings(template);
  return first
    ? { status: "rejected", reason: first.reason, detail: first.detail }
    : { status: "approved" };
}
