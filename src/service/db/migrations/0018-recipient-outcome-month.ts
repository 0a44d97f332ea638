import type { Kysely } from "kysely";

/**
 * When each recipient's message was sent or failed, so the monthly usage report bills it in
 * that month (as the quota's meter counts it) rather than in the month its campaign started: a
 * campaign started on the 31st, or paused and resumed, sends into the next month. Rows from
 * before this migration have none, and the report falls back to the campaign's start.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("campaign_recipients").addColumn("outcome_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("campaign_recipients").dropColumn("outcome_at").execute();
}
