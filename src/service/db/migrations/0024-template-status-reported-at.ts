import type { Kysely } from "kysely";

/**
 * When the operator's last applied report about a template's status was made (a Cloud API
 * webhook's `entry.time`, or the time of the sync or review that read it): a report older than
 * that changes nothing, so Meta's webhooks arriving out of order cannot undo a newer decision.
 * Null until a report is applied.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("templates").addColumn("status_reported_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("templates").dropColumn("status_reported_at").execute();
}
