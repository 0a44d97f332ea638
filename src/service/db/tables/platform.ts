/** Tables that make several instances one service (migration 0010). */
export interface PlatformTables {
  instances: InstanceTable;
  rate_limit_buckets: RateLimitBucketTable;
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
