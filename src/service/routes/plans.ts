import {
  PlanIdParams,
  PlanListQuery,
  PlanListResponse,
  PlanResponse,
} from "../../contract/plans.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import { getPlan, listPlans } from "../domain/plans.js";
import { authErrors, errorResponses, sendSerialised } from "./responses.js";

/**
 * GET /api/v1/plans and GET /api/v1/plans/:id: the read-only catalogue. The catalogue only
 * changes when `serve` loads it at start, so each distinct answer is built, checked against
 * its schema and serialised once, then served from memory: a pricing page may poll it hard.
 */
export function planRoutes(app: App, deps: { db: Db; publicUrl: () => string }): void {
  const options = { publicUrl: deps.publicUrl };
  const answers = new Map<string, string>();
  async function remembered(key: string, build: () => Promise<string>): Promise<string> {
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = await build();
      answers.set(key, answer);
    }
    return answer;
  }

  app.get(
    "/api/v1/plans",
    {
      config: { scope: "plans:read" },
      schema: {
        tags: ["Plan catalogue"],
        operationId: "listPlans",
        summary: "List plans grouped by billing period",
        description:
          "`data` maps each billing period that has plans to its plans. `meta.billing_periods` lists all five periods with the number of plans of each visible to the request (respecting include_private, not narrowed by billing_period).",
        querystring: PlanListQuery,
        response: { 200: PlanListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request, reply) => {
      const { billing_period: billingPeriod, include_private: includePrivate } = request.query;
      const answer = await remembered(`list:${billingPeriod}:${includePrivate}`, async () => {
        const { data, meta } = await listPlans(deps.db, options, { billingPeriod, includePrivate });
        return JSON.stringify(PlanListResponse.parse({ status: "success", data, meta }));
      });
      return sendSerialised(reply, answer);
    },
  );

  app.get(
    "/api/v1/plans/:id",
    {
      config: { scope: "plans:read" },
      schema: {
        tags: ["Plan catalogue"],
        operationId: "getPlan",
        summary: "Get one plan by id (private plans too)",
        description:
          "`meta` is the catalogue's as `GET /api/v1/plans` gives it without `include_private` (counts of public plans), whichever plan is fetched.",
        params: PlanIdParams,
        response: { 200: PlanResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request, reply) => {
      const answer = await remembered(`get:${request.params.id}`, async () => {
        const { data, meta } = await getPlan(deps.db, options, request.params.id);
        return JSON.stringify(PlanResponse.parse({ status: "success", data, meta }));
      });
      return sendSerialised(reply, answer);
    },
  );
}
