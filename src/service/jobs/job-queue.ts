import { type ExpressionBuilder, sql } from "kysely";
import { defaultDeadAfterMs } from "../db/connection-names.js";
import type { Db } from "../db/database.js";
import { engineOf } from "../db/engine.js";
import type { Database } from "../db/schema.js";
import type { JobTable } from "../db/tables/jobs.js";
import { isWriteConflict } from "../db/write-conflicts.js";
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
  /** Jobs of one key run one at a time; null: no such rule. */
  serialKey: string | null;
}

/** The job's lease went to another instance (ours ran out): the work in hand must not commit. */
export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`the lease of job ${jobId} was taken over by another instance`);
    this.name = "LeaseLostError";
  }
}

/** Which kinds a claim may take: a lane's, or any but the lanes' (see JobLane). */
export type JobKinds = { in: readonly string[] } | { notIn: readonly string[] };

/** How many due jobs one claim looks at, so instances racing for the first one fall through. */
const claimCandidates = 8;

function iso(date: Date): string {
  // Millisecond precision: leases and schedules are compared as text.
  return date.toISOString();
}

/** Adds a job; call it inside the transaction that creates what the job works on. */
export async function enqueueJob(
  db: Db,
  clock: Clock,
  input: {
    kind: string;
    payload: unknown;
    runAt?: Date;
    /** Jobs of one key run one at a time: none is claimed while another of its key runs. */
    serialKey?: string;
  },
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
      serial_key: input.serialKey ?? null,
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
    serialKey: row.serial_key,
  };
}

/**
 * Gives a running job queued without its serial key (by a release before keys, during a rolling
 * upgrade) the key, so its retries follow the rule. False while another running job holds the
 * key (or the database was busy): this run goes on unkeyed, and the next one asks again.
 */
export async function keyJob(db: Db, jobId: string, serialKey: string): Promise<boolean> {
  try {
    const updated = await db
      .updateTable("jobs")
      .set({ serial_key: serialKey })
      .where("id", "=", jobId)
      .where("serial_key", "is", null)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  } catch (error) {
    if (isWriteConflict(error)) return false;
    throw error;
  }
}

/**
 * The condition that makes a job claimable by `owner` at `now`: of the `kinds` asked for, and
 * queued and due, or running under a lease that ran out or whose owner instance stopped sending
 * heartbeats. Both the search and the claiming UPDATE use it, so a job another instance claimed
 * in between is never taken.
 */
function claimable(now: Date, owner: string, deadAfterMs: number, kinds: JobKinds) {
  const nowIso = iso(now);
  const staleBefore = iso(new Date(now.getTime() - deadAfterMs));
  return (eb: ExpressionBuilder<Database, "jobs">) => {
    const due = eb.or([
      eb.and([eb("state", "=", "queued"), eb("run_at", "<=", nowIso)]),
      eb.and([
        eb("state", "=", "running"),
        eb.or([
          eb("lease_until", "<", nowIso),
          eb.and([
            // Never our own: with an injected clock our heartbeat may look old to ourselves.
            eb("lease_owner", "<>", owner),
            eb(
              "lease_owner",
              "in",
              eb.selectFrom("instances").select("id").where("last_seen_at", "<", staleBefore),
            ),
          ]),
        ]),
      ]),
    ]);
    // A job whose key a running job holds waits for it. A running job is its key's only holder
    // (the unique index of migration 0025), so one taken over keeps the turn. The keys held are
    // read once, from that small index, not once per due job: a backlog of 100,000 deliveries
    // made a correlated check cost 55–390 ms a claim.
    const itsTurn = eb.or([
      eb("serial_key", "is", null),
      eb("state", "=", "running"),
      eb(
        "serial_key",
        "not in",
        eb
          .selectFrom("jobs as held")
          .select("held.serial_key")
          .where("held.state", "=", "running")
          .where("held.serial_key", "is not", null),
      ),
    ]);
    const ready = eb.and([due, itsTurn]);
    // `kind NOT IN ()` is no SQL: no lanes means every kind.
    if ("in" in kinds) return eb.and([eb("kind", "in", kinds.in), ready]);
    return kinds.notIn.length > 0 ? eb.and([eb("kind", "not in", kinds.notIn), ready]) : ready;
  };
}

/**
 * Claims one due job of `kinds` for `owner` (an instance id): a queued job whose time has come,
 * or a running one whose lease ran out or whose owner is dead. The claim is a conditional UPDATE
 * that repeats the search's conditions (the kinds too) and must change exactly one row, so two
 * instances never both win, on SQLite or on a database with concurrent writers (PostgreSQL, with
 * `FOR UPDATE SKIP LOCKED`).
 */
export async function claimJob(
  db: Db,
  clock: Clock,
  owner: string,
  leaseMs: number,
  deadAfterMs = defaultDeadAfterMs,
  kinds: JobKinds = { notIn: [] },
): Promise<Job | null> {
  // `kind IN ()` is no SQL, and no kind is no job.
  if ("in" in kinds && kinds.in.length === 0) return null;
  const now = clock.now();
  const condition = claimable(now, owner, deadAfterMs, kinds);
  const claim = (trx: Db, id: string) =>
    trx
      .updateTable("jobs")
      .set({
        state: "running",
        lease_owner: owner,
        lease_until: iso(new Date(now.getTime() + leaseMs)),
        attempts: sql<number>`attempts + 1`,
        updated_at: isoSeconds(now),
      })
      .where("id", "=", id)
      .where(condition)
      .returningAll()
      .executeTakeFirst();
  if (engineOf(db) === "postgres") {
    // The first claimable job no other instance is claiming right now: its row stays locked
    // until the claim commits, so racing instances pick different jobs instead of queueing
    // behind one row lock; the UPDATE still repeats the conditions. Two claims of different
    // jobs of one serial key at once: the second meets the unique index and looks again.
    for (let attempt = 0; attempt < claimCandidates; attempt++) {
      try {
        const row = await db.transaction().execute(async (trx) => {
          const candidate = await trx
            .selectFrom("jobs")
            .select("id")
            .where(condition)
            .orderBy("run_at")
            .limit(1)
            .forUpdate()
            .skipLocked()
            .executeTakeFirst();
          return candidate ? claim(trx, candidate.id) : undefined;
        });
        return row ? toJob(row) : null;
      } catch (error) {
        if (!isWriteConflict(error)) throw error;
      }
    }
    return null;
  }
  // SQLite has one writer at a time: the search is not locked, so a job another instance
  // claimed between our search and our update fails the update and the next one is tried.
  const candidates = await db
    .selectFrom("jobs")
    .select("id")
    .where(condition)
    .orderBy("run_at")
    .limit(claimCandidates)
    .execute();
  for (const { id } of candidates) {
    const row = await claim(db, id);
    if (row) return toJob(row);
  }
  return null;
}

/**
 * Saves progress to resume from and extends the lease; call it in the transaction of the work.
 * Throws LeaseLostError (rolling that transaction back) when `owner` no longer holds the lease.
 */
export async function checkpointJob(
  db: Db,
  clock: Clock,
  lease: { jobId: string; owner: string },
  checkpoint: unknown,
  leaseMs: number,
): Promise<void> {
  const now = clock.now();
  const result = await db
    .updateTable("jobs")
    .set({
      checkpoint: JSON.stringify(checkpoint),
      lease_until: iso(new Date(now.getTime() + leaseMs)),
      // Progress: the claims before this one were no poison job (takeovers after crashes,
      // passing errors), so the count toward giving up starts over with this claim.
      attempts: 1,
      updated_at: isoSeconds(now),
    })
    .where("id", "=", lease.jobId)
    .where("state", "=", "running")
    .where("lease_owner", "=", lease.owner)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new LeaseLostError(lease.jobId);
}

/**
 * Ends a job held by `owner`: done, failed (with the reason), or back in the queue for later.
 * Returns false when the lease had already gone to another instance, which now decides.
 */
export async function settleJob(
  db: Db,
  clock: Clock,
  lease: { jobId: string; owner: string },
  outcome:
    | { state: "done" }
    | { state: "failed"; error: string }
    | { state: "queued"; runAt: Date; resetAttempts?: boolean },
): Promise<boolean> {
  const result = await db
    .updateTable("jobs")
    .set({
      state: outcome.state,
      lease_owner: null,
      lease_until: null,
      ...(outcome.state === "failed" ? { last_error: outcome.error } : {}),
      ...(outcome.state === "queued" ? { run_at: iso(outcome.runAt) } : {}),
      // A job that rescheduled itself (a sweep, a paused campaign) did not fail: only failures
      // in a row may use up its retries.
      ...(outcome.state === "queued" && outcome.resetAttempts ? { attempts: 0 } : {}),
      updated_at: isoSeconds(clock.now()),
    })
    .where("id", "=", lease.jobId)
    .where("state", "=", "running")
    .where("lease_owner", "=", lease.owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Undoes a claim whose job was never run (the instance began to stop meanwhile): the job is
 * queued again as it was, due as before, the claim's attempt not counted.
 */
export async function handBack(db: Db, clock: Clock, job: Job, owner: string): Promise<void> {
  await db
    .updateTable("jobs")
    .set({
      state: "queued",
      lease_owner: null,
      lease_until: null,
      attempts: sql<number>`attempts - 1`,
      updated_at: isoSeconds(clock.now()),
    })
    .where("id", "=", job.id)
    .where("state", "=", "running")
    .where("lease_owner", "=", owner)
    .execute();
}

/** Extends the leases `owner` still holds on `jobIds` and returns their ids: those missing were taken over. */
export async function extendLeases(
  db: Db,
  clock: Clock,
  owner: string,
  jobIds: readonly string[],
  leaseMs: number,
): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const extended = await db
    .updateTable("jobs")
    .set({ lease_until: iso(new Date(clock.now().getTime() + leaseMs)) })
    .where("id", "in", jobIds)
    .where("state", "=", "running")
    .where("lease_owner", "=", owner)
    .returning("id")
    .execute();
  return new Set(extended.map((row) => row.id));
}

/** Puts every job `owner` still holds back in the queue, due now: a graceful stop's last act. */
export async function releaseLeases(db: Db, clock: Clock, owner: string): Promise<number> {
  const now = clock.now();
  const result = await db
    .updateTable("jobs")
    .set({
      state: "queued",
      lease_owner: null,
      lease_until: null,
      run_at: iso(now),
      updated_at: isoSeconds(now),
    })
    .where("state", "=", "running")
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
