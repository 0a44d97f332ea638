import type { Generated } from "kysely";

/** Tables as Kysely sees them. Booleans are 0/1 and JSON is text, so the SQL stays portable. */
export interface Database {
  resellers: ResellerTable;
  tokens: TokenTable;
  plans: PlanTable;
  settings: SettingTable;
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
  scopes: string;
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
  features: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface SettingTable {
  key: string;
  value: string;
}
