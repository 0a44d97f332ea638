import { hostname } from "node:os";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import { checkpointJob, claimJob, type Job, leaseOwners, settleJob } from "./job-queue.js";

/** What a handler gets besides its job. */
export interface JobContext {
  db: Db;
  clock: Clock;
  /** Aborted when the service stops: save a checkpoint and return `{ state: "interrupted" }`. */
  signal: AbortSignal;
  /** Saves progress and extends the lease (use inside the transaction of the work it records). */
  checkpoint(db: Db, data: unknown): Promise<void>;
}

/** How a handler's run ended. */
export type JobResult =
  | { state: "done" }
  | { state: "failed"; error: string }
  | { state: "retry"; at: Date }
  /** Stopped by shutdown before finishing; the next start resumes from the checkpoint. */
  | { state: "interrupted" };

export type JobHandler = (job: Job, ctx: JobContext) => Promise<JobResult>;

export interface JobRunnerOptions {
  db: Db;
  clock: Clock;
  handlers: Record<string, JobHandler>;
  /** How long a claim lasts without a checkpoint or heartbeat. */
  leaseMs?: number;
  /** How often to look for due jobs when idle. */
  pollMs?: number;
  concurrency?: number;
  /** Reports a failure: of a job's handler, or (with `job` null) of the runner's own polling. */
  onError?: (error: unknown, job: Job | null) => void;
}

/** This process's identity as a lease owner: host, pid and start time. */
export const processOwner = `${hostname()}:${process.pid}:${Date.now()}`;

/** Whether a lease owner is a process on this host that no longer runs. */
function isDeadLocalOwner(owner: string): boolean {
  const [host, pid] = owner.split(":");
  if (host !== hostname() || owner === processOwner || !pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Runs due jobs with their handlers. Claims are leases kept alive by a heartbeat, so a job of a
 * crashed process is taken over when its lease ends, or at once when that process is known dead.
 */
export class JobRunner {
  private readonly options: Required<Omit<JobRunnerOptions, "onError">> &
    Pick<JobRunnerOptions, "onError">;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly active = new Map<string, Job>();
  private deadOwners: string[] = [];

  constructor(options: JobRunnerOptions) {
    this.options = { leaseMs: 30_000, pollMs: 200, concurrency: 2, ...options };
  }

  /** Starts polling (and takes over the jobs of dead processes on this host). */
  async start(): Promise<void> {
    this.deadOwners = (await leaseOwners(this.options.db)).filter(isDeadLocalOwner);
    this.heartbeat = setInterval(
      () => void this.extendLeases().catch((error) => this.options.onError?.(error, null)),
      this.options.leaseMs / 3,
    );
    this.heartbeat.unref();
    this.schedule(0);
  }

  /** Wakes the runner now, e.g. right after a job was enqueued. */
  poke(): void {
    if (this.timer && !this.abort.signal.aborted) this.schedule(0);
  }

  /** Runs every job that is due now, one after another, and returns how many ran. For tests. */
  async runDue(limit = 1000): Promise<number> {
    let count = 0;
    while (count < limit) {
      const job = await claimJob(
        this.options.db,
        this.options.clock,
        processOwner,
        this.options.leaseMs,
        this.deadOwners,
      );
      if (!job) break;
      await this.execute(job);
      count += 1;
    }
    return count;
  }

  /** Stops claiming, asks running handlers to checkpoint, and waits for them. */
  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    this.timer = undefined;
    await Promise.allSettled([...this.running]);
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fill(), delay);
    this.timer.unref();
  }

  private async fill(): Promise<void> {
    if (this.abort.signal.aborted) return;
    try {
      while (this.running.size < this.options.concurrency) {
        const job = await claimJob(
          this.options.db,
          this.options.clock,
          processOwner,
          this.options.leaseMs,
          this.deadOwners,
        );
        if (!job) break;
        // A job that cannot even be settled is left to its lease, which another claim takes over.
        const run = this.execute(job)
          .catch((error) => this.options.onError?.(error, job))
          .finally(() => {
            this.running.delete(run);
            this.poke();
          });
        this.running.add(run);
      }
    } catch (error) {
      // A busy or failing database must not stop the service: report it and poll again.
      this.options.onError?.(error, null);
    } finally {
      if (!this.abort.signal.aborted) this.schedule(this.options.pollMs);
    }
  }

  private async execute(job: Job): Promise<void> {
    const { db, clock, leaseMs } = this.options;
    const handler = this.options.handlers[job.kind];
    this.active.set(job.id, job);
    try {
      const result: JobResult = handler
        ? await handler(job, {
            db,
            clock,
            signal: this.abort.signal,
            checkpoint: (trx, data) => checkpointJob(trx, clock, job.id, data, leaseMs),
          })
        : { state: "failed", error: `no handler for job kind '${job.kind}'` };
      if (result.state === "interrupted") {
        await settleJob(db, clock, job.id, { state: "queued", runAt: clock.now() });
      } else if (result.state === "retry") {
        await settleJob(db, clock, job.id, { state: "queued", runAt: result.at });
      } else {
        await settleJob(db, clock, job.id, result);
      }
    } catch (error) {
      this.options.onError?.(error, job);
      // An unexpected failure is retried with backoff a few times, then recorded as failed.
      const backoff = Math.min(60_000, 1000 * 2 ** job.attempts);
      await settleJob(
        db,
        clock,
        job.id,
        job.attempts >= 5
          ? { state: "failed", error: String(error) }
          : { state: "queued", runAt: new Date(clock.now().getTime() + backoff) },
      );
    } finally {
      this.active.delete(job.id);
    }
  }

  private async extendLeases(): Promise<void> {
    const until = new Date(this.options.clock.now().getTime() + this.options.leaseMs).toISOString();
    for (const id of this.active.keys()) {
      await this.options.db
        .updateTable("jobs")
        .set({ lease_until: until })
        .where("id", "=", id)
        .where("lease_owner", "=", processOwner)
        .execute();
    }
  }
}
