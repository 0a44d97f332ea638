import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { SandboxMessageTable } from "../db/tables/campaigns.js";
import type { Clock } from "../domain/clock.js";
import { ensureJob } from "../jobs/ensure-job.js";
import { sandboxReportsJob } from "../jobs/job-kinds.js";
import type { JobHandler } from "../jobs/job-runner.js";
import type { MessageStatusReport } from "../messaging/message-sender.js";
import { applyProviderEvents } from "../messaging/provider-events.js";
import type { JobScheduler } from "../services.js";
import { reportsFor } from "./magic-numbers.js";
import type { SandboxTiming } from "./sandbox-sender.js";

/** What a round of reports changes about one sandbox message. */
type SandboxChange = Partial<
  Pick<SandboxMessageTable, "status" | "next_status" | "next_status_at">
>;

/** How long the sandbox keeps trying a report whose message the service has not recorded yet. */
const unmatchedPatienceMs = 10 * 60 * 1000;

/** Makes sure a `sandbox.reports` job runs by `at` (one job serves every pending report). */
export async function scheduleSandboxReports(db: Db, jobs: JobScheduler, at: Date): Promise<void> {
  await ensureJob(db, jobs, sandboxReportsJob, at);
  jobs.poke();
}

/**
 * The `sandbox.reports` job: makes the delivery and read reports that are due, in batches,
 * then asks to run again when the next one falls due.
 */
export function sandboxReportsHandler(deps: {
  db: Db;
  clock: Clock;
  timing: SandboxTiming;
}): JobHandler {
  return async (_job, ctx) => {
    const { db, clock, timing } = deps;
    for (;;) {
      if (ctx.signal.aborted) return { state: "interrupted" };
      const now = clock.now();
      const due = await db
        .selectFrom("sandbox_messages")
        .select(["id", "to_phone", "next_status", "accepted_at"])
        .where("next_status_at", "is not", null)
        .where("next_status_at", "<=", now.toISOString())
        .orderBy("next_status_at")
        .limit(1000)
        .execute();
      if (due.length === 0) break;
      await db.transaction().execute(async (trx) => {
        const reports: MessageStatusReport[] = due.map((m) => ({
          providerMessageId: m.id,
          status: m.next_status === "read" ? "read" : "delivered",
          at: now,
        }));
        // The same event path as the Cloud API's status webhooks.
        const { unmatched } = await applyProviderEvents(
          { db: trx, clock },
          reports.map((report) => ({ kind: "status" as const, report })),
        );
        const waiting = new Set(unmatched);
        // Few distinct changes per round: one statement for each, over the messages it applies to.
        const changes = new Map<string, { set: SandboxChange; ids: string[] }>();
        for (const message of due) {
          const acceptedAt = Date.parse(message.accepted_at);
          let set: SandboxChange;
          if (waiting.has(message.id) && now.getTime() - acceptedAt < unmatchedPatienceMs) {
            set = { next_status_at: new Date(now.getTime() + 1000).toISOString() };
          } else {
            const readNext =
              message.next_status === "delivered" && reportsFor(message.to_phone).read;
            set = {
              status: message.next_status ?? "sent",
              next_status: readNext ? "read" : null,
              next_status_at: readNext
                ? new Date(now.getTime() + timing.readAfterMs).toISOString()
                : null,
            };
          }
          const key = JSON.stringify(set);
          const change = changes.get(key) ?? { set, ids: [] };
          change.ids.push(message.id);
          changes.set(key, change);
        }
        for (const { set, ids } of changes.values()) {
          await trx.updateTable("sandbox_messages").set(set).where("id", "in", ids).execute();
        }
      });
    }
    const next = await db
      .selectFrom("sandbox_messages")
      .select(sql<string>`min(next_status_at)`.as("at"))
      .where("next_status_at", "is not", null)
      .executeTakeFirst();
    return next?.at ? { state: "retry", at: new Date(next.at) } : { state: "done" };
  };
}
