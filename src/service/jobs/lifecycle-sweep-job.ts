import type { Db } from "../db/database.js";
import { lockNamed } from "../db/write-conflicts.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { pruneEvents } from "../domain/events.js";
import { expireTrials } from "../domain/workspaces.js";
import { lifecycleSweepJob } from "./job-kinds.js";
import { enqueueJob } from "./job-queue.js";
import type { JobHandler } from "./job-runner.js";

/** How often the sweep runs at least (it also runs when a trial is due to end). */
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

/**
 * The sweep: suspends workspaces whose trial ended, drops events past 30 days, and runs again in
 * a minute, or when the next trial ends if that is sooner, so a trial ends when it is due.
 */
export function lifecycleSweepHandler(deps: { db: Db; clock: Clock }): JobHandler {
  return async () => {
    await expireTrials(deps.db, deps.clock);
    await pruneEvents(deps.db, deps.clock);
    const now = deps.clock.now();
    const inAMinute = new Date(now.getTime() + lifecycleSweepIntervalMs);
    const next = await nextTrialEnd(deps.db, now);
    return { state: "retry", at: next && next < inAMinute ? next : inAMinute };
  };
}

/** When the next running trial ends, if any ends after `now`. */
async function nextTrialEnd(db: Db, now: Date): Promise<Date | null> {
  const row = await db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.min("trial_ends_at").as("next"))
    .where("status", "=", "trial")
    .where("trial_ends_at", ">", isoSeconds(now))
    .executeTakeFirst();
  return row?.next ? new Date(row.next) : null;
}
