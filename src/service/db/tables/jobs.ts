/** The jobs table (migration 0003). */
export interface JobTables {
  jobs: JobTable;
}

export interface JobTable {
  id: string;
  kind: string;
  /** JSON of what the job is about, e.g. `{"import_id": "imp_…"}`. */
  payload: string;
  /** queued, running, done or failed. */
  state: string;
  /** Not before this time (ISO 8601 UTC); scheduling and retries set it. */
  run_at: string;
  attempts: number;
  /** `host:pid:start` of the process holding the lease. */
  lease_owner: string | null;
  lease_until: string | null;
  /** JSON a handler saved to resume from after a crash. */
  checkpoint: string | null;
  last_error: string | null;
  /**
   * Jobs of one key run one at a time (migration 0025): a webhook delivery's is its endpoint, so
   * a receiver that never answers holds one slot. Null for every other job.
   */
  serial_key: string | null;
  created_at: string;
  updated_at: string;
}
