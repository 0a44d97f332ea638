import type { Migration, MigrationProvider } from "kysely";
import * as accountsAndPlans from "./0001-accounts-and-plans.js";
import * as workspacesOutboxIdempotency from "./0002-workspaces-outbox-idempotency.js";
import * as jobs from "./0003-jobs.js";
import * as contacts from "./0004-contacts.js";
import * as templates from "./0005-templates.js";
import * as campaigns from "./0006-campaigns.js";
import * as contactBulkWrites from "./0007-contact-bulk-writes.js";
import * as whatsappCloud from "./0008-whatsapp-cloud.js";
import * as eventsWebhooksLifecycle from "./0009-events-webhooks-lifecycle.js";
import * as instancesAndRateLimits from "./0010-instances-and-rate-limits.js";
import * as csvImportOptions from "./0012-csv-import-options.js";
import * as contactSearchPrefixes from "./0013-contact-search-prefixes.js";
import * as dashboardSessions from "./0015-dashboard-sessions.js";
import * as tagFoldedNames from "./0016-tag-folded-names.js";
import * as jobsDueByKind from "./0017-jobs-due-by-kind.js";
import * as recipientOutcomeMonth from "./0018-recipient-outcome-month.js";
import * as tagSpellingsOnce from "./0019-tag-spellings-once.js";
import * as eventOrder from "./0020-event-order.js";
import * as searchMerges from "./0021-search-merges.js";
import * as templateApprovals from "./0022-template-approvals.js";
import * as webhookDeliveriesByEndpoint from "./0023-webhook-deliveries-by-endpoint.js";
import * as templateStatusReportedAt from "./0024-template-status-reported-at.js";
import * as jobSerialKeys from "./0025-job-serial-keys.js";

/**
 * Every migration, in order. Listed in code rather than read from a folder so the compiled
 * package needs no file-system lookup; a new migration is a new numbered file plus a line here.
 */
const migrations: Record<string, Migration> = {
  "0001-accounts-and-plans": accountsAndPlans,
  "0002-workspaces-outbox-idempotency": workspacesOutboxIdempotency,
  "0003-jobs": jobs,
  "0004-contacts": contacts,
  "0005-templates": templates,
  "0006-campaigns": campaigns,
  "0007-contact-bulk-writes": contactBulkWrites,
  "0008-whatsapp-cloud": whatsappCloud,
  "0009-events-webhooks-lifecycle": eventsWebhooksLifecycle,
  "0010-instances-and-rate-limits": instancesAndRateLimits,
  "0012-csv-import-options": csvImportOptions,
  "0013-contact-search-prefixes": contactSearchPrefixes,
  "0015-dashboard-sessions": dashboardSessions,
  "0016-tag-folded-names": tagFoldedNames,
  "0017-jobs-due-by-kind": jobsDueByKind,
  "0018-recipient-outcome-month": recipientOutcomeMonth,
  "0019-tag-spellings-once": tagSpellingsOnce,
  "0020-event-order": eventOrder,
  "0021-search-merges": searchMerges,
  "0022-template-approvals": templateApprovals,
  "0023-webhook-deliveries-by-endpoint": webhookDeliveriesByEndpoint,
  "0024-template-status-reported-at": templateStatusReportedAt,
  "0025-job-serial-keys": jobSerialKeys,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
