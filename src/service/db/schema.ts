import type { Generated } from "kysely";
import type { Feature } from "../../contract/plans.js";
import type { Scope } from "../../contract/scopes.js";
import type { JsonText } from "./json-text.js";
import type { CampaignTables } from "./tables/campaigns.js";
import type { ContactTables } from "./tables/contacts.js";
import type { EventTables } from "./tables/events.js";
import type { JobTables } from "./tables/jobs.js";
import type { PlatformTables } from "./tables/platform.js";
import type { TemplateTables } from "./tables/templates.js";

/**
 * The largest value of an integer key (plan ids, seqs): PostgreSQL's `integer`. A number past it
 * that a client sends can name no row, and PostgreSQL would refuse the query rather than say so.
 */
export const integerKeyMax = 2_147_483_647;

/** Tables as Kysely sees them. Booleans are 0/1 and JSON is text, so the SQL stays portable. */
export interface Database
  extends JobTables,
    TemplateTables,
    CampaignTables,
    ContactTables,
    EventTables,
    PlatformTables {
  resellers: ResellerTable;
  tokens: TokenTable;
  plans: PlanTable;
  settings: SettingTable;
  workspaces: WorkspaceTable;
  outbox: OutboxTable;
  idempotency_keys: IdempotencyKeyTable;
}

export interface ResellerTable {
  id: string;
  name: string;
  created_at: string;
}

export interface TokenTable {
  id: string;
  reseller_id: string;
  workspace_id: string | null;
  name: string;
  token_hash: string;
  token_hint: string;
  scopes: JsonText<Scope[]>;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface PlanTable {
  id: Generated<number>;
  slug: string;
  name: string;
  description: string | null;
  is_public: number;
  is_free: number;
  trial_days: number | null;
  price: number | null;
  billing_period: string;
  features: JsonText<Feature[]>;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface SettingTable {
  key: string;
  value: string;
}

export interface WorkspaceTable {
  id: string;
  reseller_id: string;
  name: string;
  contact_email: string;
  plan_id: number | null;
  /** One of the contract's workspace statuses. */
  status: string;
  trial_ends_at: string | null;
  /** Why the service suspended it (`trial_ended`); null when active or suspended by the reseller. */
  suspended_reason: string | null;
  /** When the invitation reached the outbox or the SMTP server; null when not sent. */
  invitation_sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Emails the service sends, kept for the operator to read whether or not SMTP is configured. */
export interface OutboxTable {
  id: string;
  reseller_id: string;
  workspace_id: string | null;
  kind: string;
  recipient: string;
  subject: string;
  body: string;
  /** `outbox` (no SMTP configured: the outbox is the destination), `sent` or `failed`. */
  delivery: string;
  error: string | null;
  created_at: string;
  sent_at: string | null;
}

/** A POST's Idempotency-Key: the request it was first used with and the response it got. */
export interface IdempotencyKeyTable {
  token_id: string;
  key: string;
  request_hash: string;
  /** `in_progress` while the first request runs, then `completed`. */
  state: string;
  response_status: number | null;
  response_headers: JsonText<Record<string, string>> | null;
  response_body: string | null;
  /** Until when an in-progress claim holds off others; a crashed claim is taken over after it. */
  locked_until: string;
  created_at: string;
  expires_at: string;
}
