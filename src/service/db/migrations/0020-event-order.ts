import { type Kysely, sql } from "kysely";

/**
 * An event's place in the live stream's order (`seq`), given once its transaction has committed
 * (domain/events.ts, sequenceEvents). Ids are made when a transaction writes its event, and on
 * PostgreSQL transactions commit in another order than that: a stream that followed ids skipped
 * an event committed after a later one was sent. Events written before get their id order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("events").addColumn("seq", "bigint").execute();
  await sql`UPDATE events SET seq = ordered.n
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM events) AS ordered
    WHERE events.id = ordered.id`.execute(db);
  // The sequencer's newest place, and each stream's next page (a reseller's, after its place).
  await db.schema.createIndex("events_by_seq").on("events").column("seq").execute();
  await db.schema
    .createIndex("events_by_reseller_seq")
    .on("events")
    .columns(["reseller_id", "seq"])
    .execute();
  await db.schema
    .createIndex("events_unsequenced")
    .on("events")
    .column("id")
    .where(sql.ref("seq"), "is", null)
    .execute();
}
