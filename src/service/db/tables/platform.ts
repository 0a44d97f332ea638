/** Tables that make several instances one service (migrations 0010 and 0015). */
export interface PlatformTables {
  instances: InstanceTable;
  rate_limit_buckets: RateLimitBucketTable;
  dashboard_sessions: DashboardSessionTable;
  dashboard_sign_in_codes: DashboardSignInCodeTable;
}

/** A signed-in dashboard browser (see dashboard/sessions.ts). */
export interface DashboardSessionTable {
  /** SHA-256 of the cookie's key (hex). */
  key_hash: string;
  /** The session's bearer token, AES-256-GCM sealed with a key derived from the cookie's key. */
  token_sealed: string;
  /** Set when the sign-in link minted the token, so sign-out revokes it. */
  minted_token_id: string | null;
  expires_at: string;
}

/** A one-time sign-in code of the link `serve` prints, by its SHA-256 (hex). */
export interface DashboardSignInCodeTable {
  code_hash: string;
  expires_at: string;
}

/** A running `serve` process; its heartbeat says it is alive, so its job leases are kept. */
export interface InstanceTable {
  /** Random per start (`ins_…`), the `lease_owner` of the jobs it runs. */
  id: string;
  host: string;
  pid: number;
  started_at: string;
  /** Refreshed every few seconds (ISO 8601 UTC, milliseconds). */
  last_seen_at: string;
}

/** The requests counted in one rate limit bucket's current window, across all instances. */
export interface RateLimitBucketTable {
  /** `token:<token id>` or `address:<client address>`. */
  bucket: string;
  hits: number;
  /** When the window ends (ISO 8601 UTC, milliseconds); the next hit after it starts a new one. */
  window_ends_at: string;
}
