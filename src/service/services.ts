import type { DatabaseHandle, Db } from "./db/database.js";
import type { Clock } from "./domain/clock.js";
import type { Mailer } from "./domain/outbox.js";
import { enqueueJob } from "./jobs/job-queue.js";
import type { JobRunner } from "./jobs/job-runner.js";
import type { MessageSender } from "./messaging/message-sender.js";
import type { MessagingProvider } from "./messaging/provider.js";
import type { SandboxTiming } from "./sandbox/sandbox-sender.js";

/** Queues durable work and wakes the runner for it. */
export interface JobScheduler {
  /** Adds a job in `db` (pass the transaction that creates what the job works on). */
  enqueue(db: Db, input: { kind: string; payload: unknown; runAt?: Date }): Promise<string>;
  /** Wakes the runner; call after the transaction that enqueued has committed. */
  poke(): void;
}

/**
 * What routes and job handlers share: built once in buildApp. Domain functions take the narrow
 * part they need (e.g. `{ db, clock }`), which this object satisfies.
 */
export interface Services {
  db: Db;
  /** The raw better-sqlite3 handle of `db`'s connection, for hot bulk paths (contact imports). */
  sqlite: DatabaseHandle["sqlite"];
  clock: Clock;
  publicUrl: () => string;
  mailer: Mailer | null;
  jobs: JobScheduler;
  /** The messaging platform operator: the sandbox locally (reviews templates). */
  messaging: MessagingProvider;
  /** The operator's sending side: the sandbox locally. */
  sender: MessageSender;
  /** Messages per second per channel (WhatsApp's default is 80); 0 for no limit. */
  throughput: number;
  /** How fast the sandbox reports deliveries and reads. */
  sandboxTiming: SandboxTiming;
}

/** A scheduler over the job queue that pokes `runner` once it exists. */
export function jobScheduler(clock: Clock, runner: () => JobRunner | undefined): JobScheduler {
  return {
    enqueue: (db, input) => enqueueJob(db, clock, input),
    poke: () => runner()?.poke(),
  };
}
