import { type Kysely, sql } from "kysely";
import { engineOf } from "../engine.js";

/**
 * Jobs that run one at a time per key: a job whose `serial_key` another running job holds is not
 * claimed until that one ends. Webhook deliveries are keyed by endpoint, so a receiver that never
 * answers holds one delivery slot, not all of them. Null: no such rule (every other kind, and
 * deliveries an older release queues during a rolling upgrade, until they run). A nullable column
 * without a default: instances of the version before go on inserting as they did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // All or nothing: PostgreSQL's migrator runs in a transaction already, SQLite's does not (its
  // DDL is transactional all the same), and a column added without its index would leave a file
  // that no later run can migrate ("duplicate column name").
  if (engineOf(db) === "postgres") await addSerialKeys(db);
  else await db.transaction().execute(addSerialKeys);
}

async function addSerialKeys(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("serial_key", "text").execute();
  // Deliveries waiting when the release changes follow the rule at once (a backlog to a receiver
  // that is down is what an operator upgrades for). Running ones are keyed as they next run
  // (webhook-delivery.ts): two may run now, and the index below allows one.
  const deliveryId =
    engineOf(db) === "postgres"
      ? sql`jobs.payload::jsonb ->> 'delivery_id'`
      : sql`json_extract(jobs.payload, '$.delivery_id')`;
  await sql`UPDATE jobs SET serial_key = (SELECT 'webhook-endpoint:' || d.endpoint_id FROM webhook_deliveries d WHERE d.id = ${deliveryId}) WHERE kind = 'webhook.deliver' AND state = 'queued' AND serial_key IS NULL`.execute(
    db,
  );
  // The rule itself, on both engines: two claims that each saw no running job of a key (two
  // PostgreSQL transactions at once) cannot both commit one. Partial, so it holds only the few
  // running jobs and a claim reads their keys from it at once.
  await sql`CREATE UNIQUE INDEX jobs_one_running_per_serial_key ON jobs (serial_key) WHERE state = 'running' AND serial_key IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("jobs_one_running_per_serial_key").execute();
  await db.schema.alterTable("jobs").dropColumn("serial_key").execute();
}
