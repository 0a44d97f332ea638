import { defaultDeadAfterMs } from "../db/connection-names.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import { FailureRun } from "../failure-run.js";
import { defaultHeartbeatMs, InstanceRegistry } from "./instances.js";
import {
  checkpointJob,
  claimJob,
  extendLeases,
  handBack,
  type Job,
  type JobKinds,
  LeaseLostError,
  releaseLeases,
  settleJob,
} from "./job-queue.js";

/** What a handler gets besides its job. */
export interface JobContext {
  db: Db;
  clock: Clock;
  /**
   * Aborted when the service stops, or when the heartbeat finds the job taken over by another
   * instance (this one was frozen past its lease): save a checkpoint and return
   * `{ state: "interrupted" }`.
   */
  signal: AbortSignal;
  /**
   * Saves progress and extends the lease (use inside the transaction of the work it records).
   * Throws when another instance took the job over, so that transaction rolls back.
   */
  checkpoint(db: Db, data: unknown): Promise<void>;
  /**
   * The claim this run holds, for a handler that checkpoints from a connection of its own (a
   * worker thread): `checkpointJob(trx, clock, lease, data, lease.ms)` is what `checkpoint` does.
   */
  lease: JobLease;
}

/** A job's claim: which job, which instance holds it, and how long a checkpoint extends it. */
export interface JobLease {
  jobId: string;
  owner: string;
  ms: number;
}

/** How a handler's run ended. */
export type JobResult =
  | { state: "done" }
  | { state: "failed"; error: string }
  | { state: "retry"; at: Date }
  /** Stopped by shutdown before finishing; the next start resumes from the checkpoint. */
  | { state: "interrupted" };

export type JobHandler = (job: Job, ctx: JobContext) => Promise<JobResult>;

/** Job kinds that run in slots of their own, never in those every other kind shares. */
export interface JobLane {
  kinds: readonly string[];
  slots: number;
}

export interface JobRunnerOptions {
  db: Db;
  clock: Clock;
  handlers: Record<string, JobHandler>;
  /** How long a claim lasts without a checkpoint or heartbeat. */
  leaseMs?: number;
  /** How often to look for due jobs when idle. */
  pollMs?: number;
  /** How many jobs of the kinds no lane lists run at once. */
  concurrency?: number;
  /** Kinds with slots of their own (the service's are jobLanes in job-handlers.ts). */
  lanes?: readonly JobLane[];
  /** How often this instance's heartbeat row is refreshed (and dead local instances looked for). */
  heartbeatMs?: number;
  /** How long without a heartbeat before an instance's leases are taken over. */
  deadAfterMs?: number;
  /**
   * Reports a failure: of a job's handler, or (with `job` null) of the runner's own polls and
   * heartbeats, whose run of failures while the database does not answer is reported when it
   * begins and once a minute (see FailureRun).
   */
  onError?: (error: unknown, job: Job | null) => void;
  /** The runner's own work succeeds again after `failures` failed attempts. */
  onRecovered?: (failures: number) => void;
  /** A stop could not hand its leases back (the database does not answer). */
  onStopFailed?: (error: unknown) => void;
  /** A job starts (`ended` undefined) or ends with its handler's result, `ms` after it started. */
  onJob?: (job: Job, ended?: { state: JobResult["state"]; ms: number }) => void;
}

/**
 * Runs due jobs with their handlers, as one of possibly several instances on one database.
 * Claims are leases owned by this instance's id, kept alive by a heartbeat; the jobs of an
 * instance that stops beating are taken over within `deadAfterMs` (at once when it was a process
 * on this machine that is gone), and a graceful stop hands its jobs back to the queue.
 */
export class JobRunner {
  private readonly options: Required<
    Omit<JobRunnerOptions, "onError" | "onRecovered" | "onJob" | "onStopFailed">
  > &
    Pick<JobRunnerOptions, "onError" | "onRecovered" | "onJob" | "onStopFailed">;
  private readonly abort = new AbortController();
  /** The shared lane (every kind no lane lists) and the others: what each claims and runs. */
  private readonly lanes: { kinds: JobKinds; slots: number; running: Set<Promise<void>> }[];
  /** Polls and heartbeats under way: a stop waits for them before it hands its leases back. */
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  /** Whether a poll is under way, and whether a poke came meanwhile (it may have looked early). */
  private polling = false;
  private pokedWhilePolling = false;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Set once a stop's handlers have ended: no heartbeat after that. */
  private leaving = false;
  /** Jobs this instance runs, each with the abort a lost lease pulls (see beat). */
  private readonly active = new Map<string, AbortController>();
  private readonly instance: InstanceRegistry;
  private started = false;
  private readonly outage = new FailureRun(
    (error) => this.options.onError?.(error, null),
    (failures) => this.options.onRecovered?.(failures),
  );

  constructor(options: JobRunnerOptions) {
    this.options = {
      leaseMs: 30_000,
      pollMs: 200,
      concurrency: 2,
      heartbeatMs: defaultHeartbeatMs,
      deadAfterMs: defaultDeadAfterMs,
      lanes: [],
      ...options,
    };
    const { lanes, concurrency, handlers } = this.options;
    const laneKinds = new Set(lanes.flatMap((lane) => lane.kinds));
    // Each lane claims only kinds this instance has handlers for, each read from the index by
    // kind (migration 0017); a kind only a newer release knows is left to its instances.
    this.lanes = [
      {
        kinds: { in: Object.keys(handlers).filter((kind) => !laneKinds.has(kind)) },
        slots: concurrency,
      },
      ...lanes.map((lane) => ({ kinds: { in: lane.kinds }, slots: lane.slots })),
    ].map((lane) => ({ ...lane, running: new Set<Promise<void>>() }));
    this.instance = new InstanceRegistry(this.options.db, this.options.clock);
  }

  /** This instance's id: the owner of the leases it holds. */
  get instanceId(): string {
    return this.instance.id;
  }

  /** Joins the instances (heartbeat row), takes over jobs of dead ones, and starts polling. */
  async start(): Promise<void> {
    this.started = true;
    // A busy database must not keep the service from starting: the next heartbeat retries.
    await this.beat();
    const everyMs = Math.min(this.options.heartbeatMs, this.options.leaseMs / 3);
    this.heartbeat = setInterval(() => void this.beat(), everyMs);
    this.heartbeat.unref();
    this.schedule(0);
  }

  /** Wakes the runner now, e.g. right after a job was enqueued. */
  poke(): void {
    if (!this.timer || this.abort.signal.aborted) return;
    // A poll under way may have searched before the job was committed: another follows it at
    // once, instead of the job waiting a whole poll interval.
    if (this.polling) this.pokedWhilePolling = true;
    else this.schedule(0);
  }

  /** Runs every job that is due now, one after another, and returns how many ran. For tests. */
  async runDue(limit = 1000): Promise<number> {
    let count = 0;
    while (count < limit) {
      const job = await this.claim();
      if (!job) break;
      await this.execute(job);
      count += 1;
    }
    return count;
  }

  /**
   * Stops claiming, asks running handlers to checkpoint and waits for them, then hands back any
   * lease still held and leaves the instances, so other instances resume the work at once.
   */
  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.timer);
    this.timer = undefined;
    // A claim still under way ends first: a job claimed now would otherwise run after this stop
    // (or stay leased to an instance that left).
    await Promise.allSettled([...this.inFlight]);
    // The heartbeat goes on while handlers finish (a send to Meta in flight may take seconds):
    // without it the others would take this instance for dead and its jobs over mid-send.
    await Promise.allSettled(this.lanes.flatMap((lane) => [...lane.running]));
    this.leaving = true;
    clearInterval(this.heartbeat);
    // A heartbeat still under way ends before the instance leaves, or it would write its row back.
    await Promise.allSettled([...this.inFlight]);
    if (this.started) {
      this.started = false;
      try {
        await releaseLeases(this.options.db, this.options.clock, this.instance.id);
        await this.instance.leave();
      } catch (error) {
        // The leases then run out by themselves and other instances take the jobs over.
        this.options.onStopFailed?.(error);
      }
    }
  }

  private claim(kinds?: JobKinds): Promise<Job | null> {
    const { db, clock, leaseMs, deadAfterMs } = this.options;
    return claimJob(db, clock, this.instance.id, leaseMs, deadAfterMs, kinds);
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tracked(this.fill()), delay);
    this.timer.unref();
  }

  /** Keeps `work` among the ones a stop waits for until it settles. */
  private tracked(work: Promise<void>): Promise<void> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  /** One poll: fills every lane's free slots with due jobs of its kinds. Never two at once. */
  private async fill(): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.polling = true;
    this.pokedWhilePolling = false;
    try {
      for (const lane of this.lanes) {
        while (lane.running.size < lane.slots) {
          const job = await this.claim(lane.kinds);
          if (!job) break;
          if (this.abort.signal.aborted) {
            // Claimed while the service began to stop: back to the queue, not run, no attempt used.
            await handBack(this.options.db, this.options.clock, job, this.instance.id);
            return;
          }
          // A job that cannot even be settled is left to its lease, which another claim takes over.
          const run = this.execute(job)
            .catch((error) => this.options.onError?.(error, job))
            .finally(() => {
              lane.running.delete(run);
              this.poke();
            });
          lane.running.add(run);
        }
      }
      this.outage.succeeded();
    } catch (error) {
      // A busy or failing database must not stop the service: report it and poll again.
      this.outage.failed(error);
    } finally {
      this.polling = false;
      if (!this.abort.signal.aborted) {
        this.schedule(this.pokedWhilePolling ? 0 : this.options.pollMs);
      }
    }
  }

  private async execute(job: Job): Promise<void> {
    const { db, clock, leaseMs } = this.options;
    const lease: JobLease = { jobId: job.id, owner: this.instance.id, ms: leaseMs };
    const handler = this.options.handlers[job.kind];
    const lost = new AbortController();
    this.active.set(job.id, lost);
    const startedAt = performance.now();
    this.options.onJob?.(job);
    try {
      const result: JobResult = handler
        ? await handler(job, {
            db,
            clock,
            signal: AbortSignal.any([this.abort.signal, lost.signal]),
            checkpoint: (trx, data) => checkpointJob(trx, clock, lease, data, leaseMs),
            lease,
          })
        : { state: "failed", error: `no handler for job kind '${job.kind}'` };
      this.options.onJob?.(job, {
        state: result.state,
        ms: Math.round(performance.now() - startedAt),
      });
      if (result.state === "interrupted") {
        await settleJob(db, clock, lease, {
          state: "queued",
          runAt: clock.now(),
          resetAttempts: true,
        });
      } else if (result.state === "retry") {
        await settleJob(db, clock, lease, {
          state: "queued",
          runAt: result.at,
          resetAttempts: true,
        });
      } else {
        await settleJob(db, clock, lease, result);
      }
    } catch (error) {
      // Another instance runs the job now; its checkpoint is the truth, not our work in hand.
      if (error instanceof LeaseLostError) return;
      this.options.onError?.(error, job);
      // An unexpected failure is retried with backoff a few times, then recorded as failed.
      const attempts = await claimsWithoutProgress(db, job);
      const backoff = Math.min(60_000, 1000 * 2 ** attempts);
      await settleJob(
        db,
        clock,
        lease,
        attempts >= claimsBeforeGivingUp
          ? { state: "failed", error: String(error) }
          : { state: "queued", runAt: new Date(clock.now().getTime() + backoff) },
      );
    } finally {
      this.active.delete(job.id);
    }
  }

  /**
   * The heartbeat: this instance is alive, its leases are extended, dead neighbours found. A
   * failure is reported, never thrown: a busy database must not stop the service.
   */
  private beat(): Promise<void> {
    if (this.leaving) return Promise.resolve();
    const { db, clock, leaseMs } = this.options;
    return this.tracked(
      (async () => {
        await this.instance.beat();
        // The runs as they are now: a job settled and claimed again meanwhile is a new run,
        // which a lease missing from this extension says nothing about.
        const held = [...this.active.entries()];
        const ids = held.map(([id]) => id);
        const kept = await extendLeases(db, clock, this.instance.id, ids, leaseMs);
        // A job another instance took over (this one stalled past its lease) stops here at its
        // next look at the signal, rather than running on beside the new owner.
        for (const [id, lost] of held) if (!kept.has(id)) lost.abort();
        await this.instance.sweep();
        this.outage.succeeded();
      })().catch((error) => this.outage.failed(error)),
    );
  }
}

/** Claims in a row without progress after which a job whose run throws is recorded as failed. */
const claimsBeforeGivingUp = 5;

/**
 * How many claims of the job have run since its last progress: its row's `attempts`, which a
 * checkpoint sets back to 1 (the claim's own count when the row cannot be read).
 */
async function claimsWithoutProgress(db: Db, job: Job): Promise<number> {
  const row = await db
    .selectFrom("jobs")
    .select("attempts")
    .where("id", "=", job.id)
    .executeTakeFirst()
    .catch(() => undefined);
  return row?.attempts ?? job.attempts;
}

/** Whether the runner records a job whose run just threw as failed, rather than retrying it. */
export async function givesUpOn(db: Db, job: Job): Promise<boolean> {
  return (await claimsWithoutProgress(db, job)) >= claimsBeforeGivingUp;
}
