import { sql } from "kysely";
import { LivenessResponse, ReadinessResponse } from "../../contract/health.js";
import type { App } from "../app-types.js";
import { type Db, migrationTable } from "../db/database.js";
import { migrationProvider } from "../db/migrations/index.js";
import { ServiceError } from "../domain/service-error.js";
import { loggedFailureRun } from "../failure-run.js";
import { errorResponses } from "./responses.js";

const tags = ["Health"];
// 400: a path whose percent-escapes do not decode (`/healthz%`) is refused before any route.

/** The migrations of this version that the database has not applied, by name. */
async function pendingMigrations(db: Db): Promise<string[]> {
  const known = Object.keys(await migrationProvider.getMigrations());
  const applied = await sql<{
    name: string;
  }>`SELECT name FROM ${sql.table(migrationTable)}`.execute(db);
  const done = new Set(applied.rows.map((row) => row.name));
  return known.filter((name) => !done.has(name));
}

/**
 * GET /healthz and GET /readyz for load balancers and orchestrators: no token, not rate limited.
 * While the service stops (SIGTERM) both answer 503, so traffic moves to other instances.
 */
export function healthRoutes(app: App, deps: { db: Db }): void {
  app.get(
    "/healthz",
    {
      schema: {
        tags,
        operationId: "getLiveness",
        summary: "Liveness: the process is up",
        description:
          "Answers 200 as long as the process runs and takes requests; needs no token. 503 once a graceful stop has begun.",
        response: { 200: LivenessResponse, ...errorResponses(400, 503) },
      },
    },
    async () => ({ status: "success" as const, data: { status: "ok" as const }, meta: {} }),
  );

  // A load balancer asks every few seconds: an outage is logged when it begins, each minute it
  // lasts, and when it ends.
  const outage = loggedFailureRun(
    app.log,
    "readiness: the database does not answer",
    "readiness: the database answers again",
  );
  app.get(
    "/readyz",
    {
      schema: {
        tags,
        operationId: "getReadiness",
        summary: "Readiness: the database answers and its migrations are current",
        description:
          "200 when the database answers a query and every migration this version knows is applied; 503 `service_unavailable` otherwise (and once a graceful stop has begun). Needs no token.",
        response: { 200: ReadinessResponse, ...errorResponses(400, 503) },
      },
    },
    async () => {
      let pending: string[];
      try {
        pending = await pendingMigrations(deps.db);
        outage.succeeded();
      } catch (error) {
        outage.failed(error);
        // Anyone may ask: the database's address and user stay in this instance's log.
        throw new ServiceError(
          "service_unavailable",
          "The database does not answer; this instance's log says why.",
        );
      }
      if (pending.length > 0) {
        throw new ServiceError(
          "service_unavailable",
          `The database lacks migrations ${pending.join(", ")}; start a current 'reseller serve' to apply them.`,
        );
      }
      const applied = Object.keys(await migrationProvider.getMigrations()).length;
      return {
        status: "success" as const,
        data: {
          status: "ready" as const,
          database: "reachable" as const,
          migrations: { applied },
        },
        meta: {},
      };
    },
  );
}
