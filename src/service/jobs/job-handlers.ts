import { campaignRunHandler } from "../domain/campaign-engine.js";
import { campaignRunJob } from "../domain/campaigns.js";
import { contactImportJob, contactImportJobKind } from "../domain/contact-imports.js";
import { webhookDeliveryJob } from "../domain/events.js";
import { templateReviewJob, templateReviewJobKind } from "../domain/templates.js";
import { ChannelThrottles } from "../domain/throttle.js";
import { lifecycleSweepHandler, lifecycleSweepJob } from "../domain/trials.js";
import { webhookDeliveryHandler } from "../domain/webhook-delivery.js";
import {
  whatsappSyncHandler,
  whatsappSyncJob,
  whatsappWebhooksHandler,
  whatsappWebhooksJob,
} from "../messaging/whatsapp-webhooks.js";
import { sandboxReportsHandler } from "../sandbox/sandbox-reports.js";
import { sandboxReportsJob } from "../sandbox/sandbox-sender.js";
import type { Services } from "../services.js";
import type { JobHandler } from "./job-runner.js";

/** Every kind of durable job and its handler; a feature with background work adds its line. */
export function jobHandlers(services: Services): Record<string, JobHandler> {
  const { db, clock, sender, sandboxTiming: timing } = services;
  return {
    [contactImportJobKind]: contactImportJob(services),
    [templateReviewJobKind]: templateReviewJob(services),
    [campaignRunJob]: campaignRunHandler({
      db,
      sqlite: services.sqlite,
      clock,
      sender,
      throttles: new ChannelThrottles(services.throughput),
    }),
    [sandboxReportsJob]: sandboxReportsHandler({ db, sqlite: services.sqlite, clock, timing }),
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
