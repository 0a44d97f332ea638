import { z } from "zod";
import { listEnvelope, PageQuery } from "./pagination.js";

export const jobStates = ["queued", "running", "done", "failed"] as const;

/** What a job works on: the resource its payload names. */
export const JobSubject = z
  .object({
    type: z.enum(["campaign", "contact_import", "template"]),
    id: z.string(),
    workspace_id: z.string(),
  })
  .meta({ id: "JobSubject" });

/** A durable background job (an import, a campaign's sending, a template review). */
export const Job = z
  .object({
    id: z.string(),
    kind: z.string().describe("What the job does, e.g. `contact_import` or `campaign_run`."),
    state: z.enum(jobStates),
    subject: JobSubject,
    attempts: z
      .number()
      .int()
      .min(0)
      .describe(
        "Times a runner has started it since its last progress (a checkpoint sets it back to 1); at 5 failing tries in a row it is given up.",
      ),
    run_at: z.string().describe("Not before this time (scheduling and retries set it)."),
    last_error: z.string().nullable().describe("Why the last attempt failed, if one did."),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Job" });
export type Job = z.infer<typeof Job>;

export const JobListQuery = PageQuery.extend({
  state: z
    .enum(jobStates, { error: `state must be one of ${jobStates.join(", ")}` })
    .optional()
    .describe("Only jobs in this state."),
});
export const JobListResponse = listEnvelope(Job);
