import {
  PlanIdParams,
  PlanListQuery,
  PlanListResponse,
  PlanResponse,
} from "../../contract/plans.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import { getPlan, listPlans } from "../domain/plans.js";
import { authErrors, errorResponses } from "./responses.js";

/** GET /api/v1/plans and GET /api/v1/plans/:id: the read-only catalogue. */
export function planRoutes(app: App, deps: { db: Db; publicUrl: () => string }): void {
  const options = { publicUrl: deps.publicUrl };

  app.get(
    "/api/v1/plans",
    {
      config: { scope: "plans:read" },
      schema: {
        tags: ["Plan catalogue"],
        summary: "List plans grouped by billing period",
        description:
          "`data` maps each billing period that has plans to its plans. `meta.billing_periods` lists all five periods with the number of plans of each visible to the request (respecting include_private, not narrowed by billing_period).",
        querystring: PlanListQuery,
        response: { 200: PlanListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listPlans(deps.db, options, {
        billingPeriod: request.query.billing_period,
        includePrivate: request.query.include_private,
      });
      return { status: "success" as const, data, meta };
    },
  );

  app.get(
    "/api/v1/plans/:id",
    {
      config: { scope: "plans:read" },
      schema: {
        tags: ["Plan catalogue"],
        summary: "Get one plan by id (private plans too)",
        params: PlanIdParams,
        response: { 200: PlanResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const { data, meta } = await getPlan(deps.db, options, request.params.id);
      return { status: "success" as const, data, meta };
    },
  );
}
