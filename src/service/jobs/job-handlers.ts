import { SharedChannelThroughput } from "../domain/channel-throughput.js";
import { whatsappSyncHandler, whatsappWebhooksHandler } from "../messaging/whatsapp-webhooks.js";
import { sandboxReportsHandler } from "../sandbox/sandbox-reports.js";
import type { Services } from "../services.js";
import { campaignRunHandler } from "./campaign-run-job.js";
import { contactImportJob, runContactImport } from "./contact-import-job.js";
import {
  campaignRunJob,
  contactImportJobKind,
  lifecycleSweepJob,
  sandboxReportsJob,
  templateReviewJobKind,
  webhookDeliveryJob,
  whatsappSyncJob,
  whatsappWebhooksJob,
} from "./job-kinds.js";
import type { JobHandler, JobLane } from "./job-runner.js";
import { threadedJob } from "./job-thread.js";
import { lifecycleSweepHandler } from "./lifecycle-sweep-job.js";
import { rowCheckerThreads } from "./row-checker-thread.js";
import { templateReviewJob } from "./template-review-job.js";
import { webhookDeliveryHandler } from "./webhook-delivery-job.js";

/** An import run in this thread whose rows are checked in another, where that can be. */
function importCheckingAside(db: Services["db"], clock: Services["clock"]): JobHandler | undefined {
  const checkRows = rowCheckerThreads();
  if (!checkRows) return undefined;
  return (job, ctx) => runContactImport({ db, clock }, job, ctx, checkRows);
}

/**
 * Kinds with slots of their own, which the kinds sharing the runner's other slots never wait
 * for. Without them one backlog held every slot: 200 deliveries to a receiver that was down
 * (each waiting up to 10 s for it) delayed a template review by 12 s on SQLite and 36 s on
 * PostgreSQL, and the campaigns scheduled meanwhile. Deliveries run one at a time per endpoint
 * (their jobs' serial key, see queueDelivery), so a receiver that never answers holds one of
 * their slots, and the other endpoints' deliveries go on in the rest.
 */
export const jobLanes: readonly JobLane[] = [
  { kinds: [webhookDeliveryJob], slots: 4 },
  // A million-row import takes minutes: campaign sends and reviews must not wait for it.
  { kinds: [contactImportJobKind], slots: 2 },
];

/** Every kind of durable job and its handler; a feature with background work adds its line. */
export function jobHandlers(services: Services): Record<string, JobHandler> {
  const { db, clock, sender, sandboxTiming: timing } = services;
  return {
    [contactImportJobKind]: contactImportJob(
      { db, clock, jobs: services.jobs },
      // In worker threads where it can be, so a million-row import never holds up a request: on
      // a SQLite file all of it; on PostgreSQL the parsing and checking of rows.
      threadedJob(db, clock, contactImportJobKind) ?? importCheckingAside(db, clock),
    ),
    [templateReviewJobKind]: templateReviewJob(services),
    [campaignRunJob]: campaignRunHandler({
      db,
      clock,
      sender,
      // Shared by every instance on the database: the limit is the channel's, not a process's.
      throttles: new SharedChannelThroughput(db, services.throughput),
    }),
    [sandboxReportsJob]: sandboxReportsHandler({ db, clock, timing }),
    [whatsappWebhooksJob]: whatsappWebhooksHandler(services),
    [whatsappSyncJob]: whatsappSyncHandler(
      services,
      services.messaging.of("whatsapp_cloud"),
      services.whatsapp.syncIntervalMs,
    ),
    [webhookDeliveryJob]: webhookDeliveryHandler({ db, clock, settings: services.webhooks }),
    [lifecycleSweepJob]: lifecycleSweepHandler({ db, clock }),
  };
}
