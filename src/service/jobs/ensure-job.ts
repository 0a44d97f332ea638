import type { Db } from "../db/database.js";
import type { JobScheduler } from "../services.js";

/**
 * Makes sure a job of `kind` runs by `at`: one waiting job serves everything due, so a new one
 * is queued only when none is waiting (an earlier time moves the waiting one forward). The
 * caller pokes the runner once its transaction has committed.
 */
export async function ensureJob(db: Db, jobs: JobScheduler, kind: string, at: Date): Promise<void> {
  const waiting = await db
    .selectFrom("jobs")
    .select(["id", "state", "run_at"])
    .where("kind", "=", kind)
    .where("state", "in", ["queued", "running"])
    .orderBy("run_at")
    .executeTakeFirst();
  if (!waiting) {
    await jobs.enqueue(db, { kind, payload: {}, runAt: at });
  } else if (waiting.state === "queued" && waiting.run_at > at.toISOString()) {
    await db
      .updateTable("jobs")
      .set({ run_at: at.toISOString() })
      .where("id", "=", waiting.id)
      .execute();
  }
}
