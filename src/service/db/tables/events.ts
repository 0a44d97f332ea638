import type { JsonText } from "../json-text.js";
/** Events, webhook endpoints, their deliveries and delivery attempts (migration 0009). */
export interface EventTables {
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
}

/** Something that happened, written in the transaction of the change it reports. */
export interface EventTable {
  id: string;
  reseller_id: string;
  workspace_id: string | null;
  type: string;
  /** JSON of the resource as the API shows it. */
  data: JsonText<Record<string, unknown>>;
  created_at: string;
  /** Its place in the live stream's order, given after its transaction committed; null until then. */
  seq: number | null;
}

export interface WebhookEndpointTable {
  id: string;
  reseller_id: string;
  url: string;
  /** JSON array of event types, or `["*"]`. */
  events: JsonText<string[]>;
  description: string | null;
  enabled: number;
  /** The signing secret (`whsec_…`); the service needs it in clear to sign. */
  secret: string;
  created_at: string;
  updated_at: string;
}

/** One event owed to one endpoint. */
export interface WebhookDeliveryTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  /** pending, delivered or failed (gave up after the retry window). */
  state: string;
  attempts: number;
  created_at: string;
  updated_at: string;
}

/** One POST to an endpoint and what came of it. */
export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  delivered: number;
  created_at: string;
}
