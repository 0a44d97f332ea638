import type { Kysely } from "kysely";

/**
 * What several `serve` instances on one database share beyond the data: a row per running
 * instance with its heartbeat (dead instances' job leases are taken over), and a row per rate
 * limit bucket (a token's or a client address's count in its current window).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("instances")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("pid", "integer", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("rate_limit_buckets")
    .addColumn("bucket", "text", (c) => c.primaryKey())
    .addColumn("hits", "integer", (c) => c.notNull())
    .addColumn("window_ends_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("rate_limit_buckets_by_end")
    .on("rate_limit_buckets")
    .column("window_ends_at")
    .execute();
  // The claim looks for running jobs by owner when an instance is found dead.
  await db.schema.createIndex("jobs_by_lease_owner").on("jobs").column("lease_owner").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("jobs_by_lease_owner").execute();
  await db.schema.dropTable("rate_limit_buckets").execute();
  await db.schema.dropTable("instances").execute();
}
