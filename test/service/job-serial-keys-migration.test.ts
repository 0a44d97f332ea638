import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { expect, it } from "vitest";
import { migrationProvider } from "../../src/service/db/migrations/index.js";

const at = "2026-11-29T10:00:00Z";

/** A database file migrated up to the migration before 0025, and its migrator. */
async function databaseBeforeSerialKeys() {
  const file = join(mkdtempSync(join(tmpdir(), "reseller-serial-")), "r.db");
  const sqlite = new BetterSqlite3(file);
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  const migrator = new Migrator({ db, provider: migrationProvider });
  expect((await migrator.migrateTo("0024-template-status-reported-at")).error).toBeUndefined();
  return { sqlite, db, migrator };
}

it("gives the deliveries waiting in an existing database their endpoint's serial key as it migrates", async () => {
  const { sqlite, db, migrator } = await databaseBeforeSerialKeys();
  try {
    const delivery = sqlite.prepare(
      "INSERT INTO webhook_deliveries (id, event_id, endpoint_id, state, attempts, created_at, updated_at) VALUES (?, 'evt_1', ?, 'pending', 0, ?, ?)",
    );
    delivery.run("whd_1", "we_down", at, at);
    delivery.run("whd_2", "we_down", at, at);
    const job = sqlite.prepare(
      "INSERT INTO jobs (id, kind, payload, state, run_at, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
    );
    job.run("job_1", "webhook.deliver", '{"delivery_id":"whd_1"}', "queued", at, at, at);
    job.run("job_2", "webhook.deliver", '{"delivery_id":"whd_2"}', "running", at, at, at);
    job.run("job_3", "campaign.run", '{"campaign_id":"cmp_1"}', "queued", at, at, at);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(sqlite.prepare("SELECT id, serial_key FROM jobs ORDER BY id").all()).toEqual([
      { id: "job_1", serial_key: "webhook-endpoint:we_down" },
      // Running now: keyed as it next runs, since one of its endpoint may already run.
      { id: "job_2", serial_key: null },
      { id: "job_3", serial_key: null },
    ]);
  } finally {
    await db.destroy();
  }
});

it("leaves nothing half done when it fails, so the next run migrates the file", async () => {
  const { sqlite, db, migrator } = await databaseBeforeSerialKeys();
  try {
    // A payload the backfill cannot read fails the migration after the column was added.
    const job = sqlite.prepare(
      "INSERT INTO jobs (id, kind, payload, state, run_at, attempts, created_at, updated_at) VALUES ('job_1', 'webhook.deliver', ?, 'queued', ?, 0, ?, ?)",
    );
    job.run("not json", at, at, at);
    expect((await migrator.migrateToLatest()).error).toBeDefined();
    sqlite
      .prepare("UPDATE jobs SET payload = ? WHERE id = 'job_1'")
      .run('{"delivery_id":"whd_gone"}');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  } finally {
    await db.destroy();
  }
});
