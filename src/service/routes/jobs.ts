import { JobListQuery, JobListResponse } from "../../contract/jobs.js";
import type { App } from "../app-types.js";
import { isoSeconds } from "../domain/clock.js";
import { listJobs } from "../domain/job-listing.js";
import { principalOf } from "../plugins/authentication.js";
import type { Services } from "../services.js";
import { authErrors, errorResponses } from "./responses.js";

/** GET /api/v1/jobs: the background work about the caller's workspaces (read-only). */
export function jobRoutes(app: App, services: Services): void {
  app.get(
    "/api/v1/jobs",
    {
      config: { scope: "workspaces:read" },
      schema: {
        tags: ["Jobs"],
        operationId: "listJobs",
        summary: "List background jobs (imports, campaign sending, template reviews), newest first",
        description:
          "Each job names its `subject` (the campaign, import or template it works on, and that subject's workspace). A reseller token sees the jobs of all its workspaces, a workspace token those of its own. The service's own housekeeping jobs are not listed.",
        querystring: JobListQuery,
        response: { 200: JobListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const page = await listJobs(services.db, principalOf(request), request.query);
      // The jobs table keeps run_at to the millisecond for scheduling; the wire has whole seconds.
      const data = page.data.map((job) => ({ ...job, run_at: isoSeconds(new Date(job.run_at)) }));
      return { status: "success" as const, data, meta: page.meta };
    },
  );
}
