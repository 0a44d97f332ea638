import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { expect, it } from "vitest";
import { migrationProvider } from "../../src/service/db/migrations/index.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";

it("gives the tags of an existing PostgreSQL database their folded names as it migrates", async () => {
  const target = await createTestDatabase({ empty: true });
  const pool = new pg.Pool({ connectionString: target.url, max: 1 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const migrator = new Migrator({ db, provider: migrationProvider });
  try {
    expect((await migrator.migrateTo("0015-dashboard-sessions")).error).toBeUndefined();
    // Only the tags matter here: their workspace's row is not checked while they are written.
    await sql`ALTER TABLE contact_tags DISABLE TRIGGER ALL`.execute(db);
    for (const name of ["VIP", "Été", "Straße"]) {
      await sql`INSERT INTO contact_tags (workspace_id, name, contact_count, created_at)
        VALUES ('ws_1', ${name}, 0, '2026-11-26T00:00:00Z')`.execute(db);
    }
    await sql`ALTER TABLE contact_tags ENABLE TRIGGER ALL`.execute(db);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const { rows } = await sql<{ name: string; folded_name: string }>`
      SELECT name, folded_name FROM contact_tags ORDER BY seq`.execute(db);
    expect(rows).toEqual([
      { name: "VIP", folded_name: "vip" },
      { name: "Été", folded_name: "été" },
      { name: "Straße", folded_name: "strasse" },
    ]);
  } finally {
    await db.destroy();
    await target.drop();
  }
});
