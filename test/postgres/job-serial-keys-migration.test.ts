import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { expect, it } from "vitest";
import { migrationProvider } from "../../src/service/db/migrations/index.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";

it("gives the deliveries waiting in an existing PostgreSQL database their endpoint's serial key as it migrates", async () => {
  const target = await createTestDatabase({ empty: true });
  const pool = new pg.Pool({ connectionString: target.url, max: 1 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const migrator = new Migrator({ db, provider: migrationProvider });
  try {
    expect((await migrator.migrateTo("0024-template-status-reported-at")).error).toBeUndefined();
    const at = "2026-11-29T10:00:00Z";
    await sql`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, state, attempts, created_at, updated_at)
      VALUES ('whd_1', 'evt_1', 'we_down', 'pending', 0, ${at}, ${at})`.execute(db);
    await sql`INSERT INTO jobs (id, kind, payload, state, run_at, attempts, created_at, updated_at)
      VALUES ('job_1', 'webhook.deliver', '{"delivery_id":"whd_1"}', 'queued', ${at}, 0, ${at}, ${at}),
             ('job_2', 'campaign.run', '{"campaign_id":"cmp_1"}', 'queued', ${at}, 0, ${at}, ${at})`.execute(
      db,
    );
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const { rows } = await sql<{ id: string; serial_key: string | null }>`
      SELECT id, serial_key FROM jobs ORDER BY id`.execute(db);
    expect(rows).toEqual([
      { id: "job_1", serial_key: "webhook-endpoint:we_down" },
      { id: "job_2", serial_key: null },
    ]);
  } finally {
    await db.destroy();
    await target.drop();
  }
});
