import type { Kysely } from "kysely";

/**
 * Jobs that run one at a time per key: a job whose `serial_key` another running job holds is not
 * claimed until that one ends. Webhook deliveries are keyed by endpoint, so a receiver that never
 * answers holds one delivery slot, not all of them. Null: no such rule (every other kind, and
 * deliveries queued before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("serial_key", "text").execute();
  // A claim asks whether a job of the candidate's key is running.
  await db.schema
    .createIndex("jobs_by_serial_key")
    .on("jobs")
    .columns(["serial_key", "state"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("jobs_by_serial_key").execute();
  await db.schema.alterTable("jobs").dropColumn("serial_key").execute();
}
