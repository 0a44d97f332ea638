import type { Kysely } from "kysely";

/**
 * An endpoint's deliveries by state: every read of an endpoint counts what it still owes
 * (`pending_deliveries`), and deliveries pile up over the events log's 30 days.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("webhook_deliveries_by_endpoint")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "state"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("webhook_deliveries_by_endpoint").execute();
}
