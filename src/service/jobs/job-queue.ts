import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { JobTable } from "../db/tables/jobs.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { newId } from "../domain/ids.js";

/** A claimed job, as a handler sees it. */
export interface Job<P = unknown, C = unknown> {
  id: string;
  kind: string;
  payload: P;
  attempts: number;
  /** What the handler saved last time, or null on a first run. */
  checkpoint: C | null;
}

function iso(date: Date): string {
  // Millisecond precision: leases and schedules are compared as text.
  return date.toISOString();
}

/** Adds a job; call it inside the transaction that creates what the job works on. */
export async function enqueueJob(
  db: Db,
  clock: Clock,
  input: { kind: string; payload: unknown; runAt?: Date },
): Promise<string> {
  const id = newId("job");
  const now = clock.now();
  await db
    .insertInto("jobs")
    .values({
      id,
      kind: input.kind,
      payload: JSON.stringify(input.payload),
      state: "queued",
      run_at: iso(input.runAt ?? now),
      attempts: 0,
      lease_owner: null,
      lease_until: null,
      checkpoint: null,
      last_error: null,
      created_at: isoSeconds(now),
      updated_at: isoSeconds(now),
    })
    .execute();
  return id;
}

function toJob(row: JobTable): Job {
  return {
    id: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload),
    attempts: row.attempts,
    checkpoint: row.checkpoint === null ? null : JSON.parse(row.checkpoint),
  };
}

/**
 * Claims one due job for `owner`: a queued job whose time has come, or a running one whose
 * lease has expired or whose owner is known dead. One UPDATE, so two runners never share a job.
 */
export async function claimJob(
  db: Db,
  clock: Clock,
  owner: string,
  leaseMs: number,
  deadOwners: readonly string[] = [],
): Promise<Job | null> {
  const now = clock.now();
  const row = await db
    .updateTable("jobs")
    .set({
      state: "running",
      lease_owner: owner,
      lease_until: iso(new Date(now.getTime() + leaseMs)),
      attempts: sql<number>`attempts + 1`,
      updated_at: isoSeconds(now),
    })
    .where(
      "id",
      "=",
      db
        .selectFrom("jobs")
        .select("id")
        .where((eb) =>
          eb.or([
            eb.and([eb("state", "=", "queued"), eb("run_at", "<=", iso(now))]),
            eb.and([
              eb("state", "=", "running"),
              eb.or([
                eb("lease_until", "<", iso(now)),
                ...(deadOwners.length > 0 ? [eb("lease_owner", "in", deadOwners)] : []),
              ]),
            ]),
          ]),
        )
        .orderBy("run_at")
        .limit(1),
    )
    .returningAll()
    .executeTakeFirst();
  return row ? toJob(row) : null;
}

/** Saves progress to resume from and extends the lease; call it in the transaction of the work. */
export async function checkpointJob(
  db: Db,
  clock: Clock,
  jobId: string,
  checkpoint: unknown,
  leaseMs: number,
): Promise<void> {
  const now = clock.now();
  await db
    .updateTable("jobs")
    .set({
      checkpoint: JSON.stringify(checkpoint),
      lease_until: iso(new Date(now.getTime() + leaseMs)),
      updated_at: isoSeconds(now),
    })
    .where("id", "=", jobId)
    .execute();
}

/** Ends a job: done, failed (with the reason), or back in the queue for later. */
export async function settleJob(
  db: Db,
  clock: Clock,
  jobId: string,
  outcome:
    | { state: "done" }
    | { state: "failed"; error: string }
    | { state: "queued"; runAt: Date },
): Promise<void> {
  await db
    .updateTable("jobs")
    .set({
      state: outcome.state,
      lease_owner: null,
      lease_until: null,
      ...(outcome.state === "failed" ? { last_error: outcome.error } : {}),
      ...(outcome.state === "queued" ? { run_at: iso(outcome.runAt) } : {}),
      updated_at: isoSeconds(clock.now()),
    })
    .where("id", "=", jobId)
    .execute();
}

/** Owners of running jobs, to find those whose process died (see JobRunner). */
export async function leaseOwners(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("jobs")
    .select("lease_owner")
    .distinct()
    .where("state", "=", "running")
    .where("lease_owner", "is not", null)
    .execute();
  return rows.flatMap((r) => (r.lease_owner ? [r.lease_owner] : []));
}
