import type { Db } from "../db/database.js";
import { lockNamed } from "../db/write-conflicts.js";
import { enqueueJob } from "../jobs/job-queue.js";
import type { JobHandler } from "../jobs/job-runner.js";
import type { Clock } from "./clock.js";
import { pruneEvents } from "./events.js";
import { expireTrials } from "./workspaces.js";

/** The kind of the recurring job that ends trials and prunes the event log. */
export const lifecycleSweepJob = "lifecycle.sweep";

/** How often the sweep runs: a trial ends at most this long after trial_ends_at. */
export const lifecycleSweepIntervalMs = 60_000;

/**
 * Queues the sweep unless one is queued or running already; `serve` calls it at start, so one
 * sweep exists however often the service restarts.
 */
export async function scheduleLifecycleSweep(db: Db, clock: Clock): Promise<void> {
  // Several instances start together: one of them enqueues the sweep.
  await db.transaction().execute(async (trx) => {
    await lockNamed(trx, lifecycleSweepJob);
    const existing = await trx
      .selectFrom("jobs")
      .select("id")
      .where("kind", "=", lifecycleSweepJob)
      .where("state", "in", ["queued", "running"])
      .executeTakeFirst();
    if (!existing) await enqueueJob(trx, clock, { kind: lifecycleSweepJob, payload: {} });
  });
}

/** The sweep: suspends workspaces whose trial ended, drops events past 30 days, runs again later. */
export function lifecycleSweepHandler(deps: { db: Db; clock: Clock }): JobHandler {
  return async () => {
    await expireTrials(deps.db, deps.clock);
    await pruneEvents(deps.db, deps.clock);
    return {
      state: "retry",
      at: new Date(deps.clock.now().getTime() + lifecycleSweepIntervalMs),
    };
  };
}
