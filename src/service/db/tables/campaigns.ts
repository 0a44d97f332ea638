import type { Audience } from "../../../contract/campaigns.js";
import type { JsonText } from "../json-text.js";
/** Channels, campaigns, their recipients and the sandbox operator's message log (migration 0006). */
export interface CampaignTables {
  channels: ChannelTable;
  campaigns: CampaignTable;
  campaign_recipients: CampaignRecipientTable;
  campaign_failures: CampaignFailureTable;
  message_counts: MessageCountTable;
  sandbox_messages: SandboxMessageTable;
  whatsapp_webhook_events: WhatsappWebhookEventTable;
}

export interface ChannelTable {
  id: string;
  workspace_id: string;
  phone: string;
  name: string;
  status: string;
  /** sandbox or whatsapp_cloud. */
  provider: string;
  // Cloud channels only (migration 0008); null for the sandbox.
  phone_number_id: string | null;
  waba_id: string | null;
  /** AES-256-GCM sealed access token (see domain/secret-box.ts); never leaves the service. */
  access_token_encrypted: string | null;
  verified_name: string | null;
  quality_rating: string | null;
  created_at: string;
  updated_at: string;
}

export interface CampaignTable {
  id: string;
  workspace_id: string;
  name: string;
  channel_id: string;
  template_id: string;
  template_name: string;
  template_language: string;
  /** JSON of the audience option. */
  audience: JsonText<Audience>;
  /** JSON of variable number → contact field. */
  variable_mapping: JsonText<Record<string, string>>;
  status: string;
  scheduled_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  failure_reason: string | null;
  // Counters, updated in the transaction of each outcome, so stats never scan recipients.
  audience_total: number;
  skipped_no_consent: number;
  skipped_opted_out: number;
  queued: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  /** Recipients not yet sent when the campaign was cancelled (migration 0009). */
  cancelled: number;
  stats_updated_at: string;
  created_at: string;
  updated_at: string;
}

/** One row per contact the campaign messages; the key makes a second message impossible. */
export interface CampaignRecipientTable {
  campaign_id: string;
  contact_id: string;
  phone: string;
  /**
   * queued, sending (handed to a provider without idempotency, answer not yet recorded),
   * outcome_unknown (a crash came between), skipped, sent, delivered, read or failed.
   */
  state: string;
  provider_message_id: string | null;
  failure_reason: string | null;
  /** When the send that may have reached the provider began; drives the 24 h outcome_unknown limit. */
  sending_at: string | null;
  /** When it became sent or failed: the month the usage report bills it in (null before). */
  outcome_at: string | null;
  updated_at: string;
}

export interface CampaignFailureTable {
  campaign_id: string;
  reason: string;
  count: number;
}

/** Messages handed to a channel per workspace and calendar month (the quota's meter). */
export interface MessageCountTable {
  workspace_id: string;
  /** `YYYY-MM` (UTC). */
  month: string;
  sent: number;
}

/** The sandbox operator's side: every message it accepted, once per idempotency key. */
export interface SandboxMessageTable {
  id: string;
  idempotency_key: string;
  channel_id: string;
  to_phone: string;
  body: string;
  accepted_at: string;
  /** delivered or read: the next report the sandbox will make, or null when it has no more. */
  next_status: string | null;
  next_status_at: string | null;
  status: string;
}

/** A webhook event from Meta, stored when received and applied by the `whatsapp.webhooks` job. */
export interface WhatsappWebhookEventTable {
  id: string;
  dedupe_key: string;
  /** status, message or template_status. */
  kind: string;
  /** JSON of the event (see messaging/provider-events.ts). */
  payload: string;
  received_at: string;
  applied_at: string | null;
}
