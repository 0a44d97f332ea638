import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, walFileLimitBytes } from "./database.js";

describe("the SQLite log's file on disk", () => {
  let dir = "";
  let database: DatabaseHandle | undefined;
  afterEach(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shrinks back after a large write once the log starts over, instead of keeping its size", async () => {
    dir = mkdtempSync(join(tmpdir(), "reseller-wal-"));
    const file = join(dir, "service.db");
    database = await openDatabase(file);
    const { db } = database;
    const piece = Buffer.alloc(1024 * 1024, 7);
    // One transaction longer than the limit: the log must hold all of it until it commits.
    const pieces = Math.ceil(walFileLimitBytes / piece.length) + 16;
    await db.transaction().execute(async (trx) => {
      for (let seq = 0; seq < pieces; seq++) {
        await trx
          .insertInto("contact_import_uploads")
          .values({ upload_id: "big", seq, data: piece, created_at: "2026-11-26T00:00:00Z" })
          .execute();
      }
    });
    const wal = `${file}-wal`;
    expect(statSync(wal).size).toBeGreaterThan(walFileLimitBytes);
    // That commit's checkpoint copied the log back; the next writes start it over.
    for (let i = 0; i < 3; i++) {
      await db.deleteFrom("contact_import_uploads").where("seq", "=", i).execute();
    }
    expect(statSync(wal).size).toBeLessThanOrEqual(walFileLimitBytes);
  });
});
