import { UsageQuery, UsageResponse } from "../../contract/usage.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import { monthlyUsage } from "../domain/usage-report.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, errorResponses } from "./responses.js";

/** GET /api/v1/usage: the reseller's monthly usage report per workspace. */
export function usageRoutes(app: App, deps: { db: Db; clock: Clock }): void {
  app.get(
    "/api/v1/usage",
    {
      config: { scope: "workspaces:read", resellerOnly: "read the reseller's usage report" },
      schema: {
        tags: ["Usage"],
        operationId: "getUsage",
        summary: "Usage of every workspace in a month, to bill clients from",
        description:
          "Per workspace: messages sent, delivered, read and failed by template category (sent or failed in the month, as the quota counts them), contacts at the month's end, templates approved at the month's end and plan; totals over every workspace in `meta.totals`. A list like any other: newest workspace first, `page`/`per_page` or `cursor`, `meta.pagination`. Reseller tokens only.",
        querystring: UsageQuery,
        response: { 200: UsageResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await monthlyUsage(
        deps.db,
        deps.clock,
        principalOf(request),
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );
}
