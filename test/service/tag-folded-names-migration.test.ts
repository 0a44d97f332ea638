import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { expect, it } from "vitest";
import { migrationProvider } from "../../src/service/db/migrations/index.js";

it("gives the tags of an existing database their folded names as it migrates", async () => {
  const file = join(mkdtempSync(join(tmpdir(), "reseller-tags-")), "r.db");
  const sqlite = new BetterSqlite3(file);
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  const migrator = new Migrator({ db, provider: migrationProvider });
  try {
    expect((await migrator.migrateTo("0015-dashboard-sessions")).error).toBeUndefined();
    // Only the tags matter here: no workspace row is made for them.
    sqlite.pragma("foreign_keys = OFF");
    const insert = sqlite.prepare(
      "INSERT INTO contact_tags (workspace_id, name, contact_count, created_at) VALUES ('ws_1', ?, 0, '2026-11-26T00:00:00Z')",
    );
    for (const name of ["VIP", "Été", "Straße"]) insert.run(name);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(sqlite.prepare("SELECT name, folded_name FROM contact_tags ORDER BY seq").all()).toEqual(
      [
        { name: "VIP", folded_name: "vip" },
        { name: "Été", folded_name: "été" },
        { name: "Straße", folded_name: "strasse" },
      ],
    );
  } finally {
    await db.destroy();
  }
});
