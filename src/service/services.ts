import type { Db } from "./db/database.js";
import type { Clock } from "./domain/clock.js";
import type { Mailer } from "./domain/outbox.js";
import type { WebhookSettings } from "./domain/webhook-delivery.js";
import { enqueueJob } from "./jobs/job-queue.js";
import type { JobRunner } from "./jobs/job-runner.js";
import type { MessageSender } from "./messaging/message-sender.js";
import type { MessagingProviders } from "./messaging/provider-routing.js";
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
  clock: Clock;
  publicUrl: () => string;
  mailer: Mailer | null;
  jobs: JobScheduler;
  /** The messaging platform operators (sandbox, WhatsApp Cloud API), chosen per channel and workspace. */
  messaging: MessagingProviders;
  /** The campaign engine's sending port: `messaging.sender`. */
  sender: MessageSender;
  /** Messages per second per channel (WhatsApp's default is 80); 0 for no limit. */
  throughput: number;
  /** How fast the sandbox reports deliveries and reads. */
  sandboxTiming: SandboxTiming;
  /**
   * Meta's webhook secrets (RESELLER_WHATSAPP_APP_SECRET, RESELLER_WHATSAPP_VERIFY_TOKEN; null
   * when unset) and the period of the template sync.
   */
  whatsapp: { appSecret: string | null; verifyToken: string | null; syncIntervalMs: number };
  /** How webhook deliveries are made and retried. */
  webhooks: WebhookSettings;
}

/** A scheduler over the job queue that pokes `runner` once it exists. */
export function jobScheduler(clock: Clock, runner: () => JobRunner | undefined): JobScheduler {
  return {
    enqueue: (db, input) => enqueueJob(db, clock, input),
    poke: () => runner()?.poke(),
  };
}
