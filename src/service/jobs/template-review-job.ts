import { recordDecision, type TemplateServices, underReview } from "../domain/templates.js";
import type { JobHandler } from "./job-runner.js";

/**
 * The `template_review` job: asks the operator about a pending template and records its
 * decision. A template no longer pending (decided by the operator controls meanwhile) is left
 * as it is; an operator that has not decided yet is asked again when it says.
 */
export function templateReviewJob(services: TemplateServices): JobHandler {
  return async (job) => {
    const { template_id: templateId } = job.payload as { template_id?: unknown };
    if (typeof templateId !== "string")
      return { state: "failed", error: "payload has no template_id" };
    const row = await services.db
      .selectFrom("templates")
      .selectAll()
      .where("id", "=", templateId)
      .executeTakeFirst();
    if (row?.status !== "pending") return { state: "done" };
    const { provider, channel } = await services.messaging.forWorkspace(row.workspace_id);
    // The operator's answer tells its state when asked, not when it arrives: a decision
    // reported meanwhile (a webhook) is the newer one, and must not tie (times are to the second).
    const askedAt = new Date(services.clock.now().getTime() - 1000);
    const outcome = await provider.reviewTemplate(underReview(row), channel);
    if (outcome.status === "pending") return { state: "retry", at: outcome.checkAgainAt };
    await recordDecision(services.db, services.clock, templateId, outcome, ["pending"], askedAt);
    return { state: "done" };
  };
}
