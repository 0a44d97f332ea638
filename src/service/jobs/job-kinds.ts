/**
 * The kinds of durable job, in one place: the code that queues a job and the runner's table of
 * handlers (job-handlers.ts) name them from here, and this file imports nothing, so no layer
 * needs another's module for a name.
 */

/** Starts and sends one campaign. */
export const campaignRunJob = "campaign.run";
/** POSTs one event to one endpoint (and retries it). */
export const webhookDeliveryJob = "webhook.deliver";
/** Recurring: ends trials and prunes the event log. */
export const lifecycleSweepJob = "lifecycle.sweep";
/** Makes the sandbox's delivery and read reports. */
export const sandboxReportsJob = "sandbox.reports";
/** Applies stored WhatsApp webhook events. */
export const whatsappWebhooksJob = "whatsapp.webhooks";
/** Periodic: template sync for missed webhooks, and the 24 h limit of `outcome_unknown`. */
export const whatsappSyncJob = "whatsapp.sync";
/** Imports one uploaded CSV of contacts, batch by batch. */
export const contactImportJobKind = "contact_import";
/** Asks the operator for its decision about a pending template. */
export const templateReviewJobKind = "template_review";
