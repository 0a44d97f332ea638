import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../db/database.js";
import { workerWritingCheckpointPages } from "../db/sqlite-log.js";
import { StagedUpload, uploadHandedOver, uploadPieceBytes } from "./contact-import-uploads.js";

const row = "+4915112345678,Ada,Lovelace,ada@example.com\n";

/** A CSV of about `bytes` bytes. */
function csvOf(bytes: number): Buffer {
  return Buffer.from(
    `phone,first_name,last_name,email\n${row.repeat(Math.ceil(bytes / row.length))}`,
  );
}

async function stage(database: DatabaseHandle, csv: Buffer, id: string): Promise<StagedUpload> {
  const upload = new StagedUpload(database.db, id, "2026-11-28T00:00:00Z", () => "not UTF-8");
  for (let at = 0; at < csv.length; at += 65536) await upload.push(csv.subarray(at, at + 65536));
  await upload.end();
  return upload;
}

describe("an upload stored on a SQLite file", () => {
  let dir = "";
  let database: DatabaseHandle | undefined;
  afterEach(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is left in the log for its import's thread to copy back, not copied on the event loop", async () => {
    dir = mkdtempSync(join(tmpdir(), "reseller-upload-"));
    const file = join(dir, "service.db");
    database = await openDatabase(file);
    const service = database.sqlite as BetterSqlite3.Database;
    const before = statSync(file).size;
    // 20 pieces: past the 4,000 pages (16 MB) after which the service's commit would copy them.
    const upload = await stage(database, csvOf(20 * uploadPieceBytes), "imp_big");
    await upload.store();
    await upload.discard();
    expect(statSync(file).size - before).toBeLessThan(uploadPieceBytes);
    expect(service.pragma("wal_autocheckpoint", { simple: true })).toBe(
      workerWritingCheckpointPages,
    );
    // Once its import has started (in a thread that copies the log itself), the hold ends.
    uploadHandedOver(database.db, "imp_big");
    expect(service.pragma("wal_autocheckpoint", { simple: true })).toBe(4000);
  });

  it("of one piece (imported in the service's thread) leaves the log's copying as it is", async () => {
    dir = mkdtempSync(join(tmpdir(), "reseller-upload-"));
    database = await openDatabase(join(dir, "service.db"));
    const service = database.sqlite as BetterSqlite3.Database;
    const upload = await stage(database, csvOf(uploadPieceBytes / 2), "imp_small");
    await upload.store();
    await upload.discard();
    expect(service.pragma("wal_autocheckpoint", { simple: true })).toBe(4000);
  });

  it("that fails midway gives the log's copying back to the service at once", async () => {
    dir = mkdtempSync(join(tmpdir(), "reseller-upload-"));
    database = await openDatabase(join(dir, "service.db"));
    const service = database.sqlite as BetterSqlite3.Database;
    // A piece already stored under the same key: the copy fails at its fourth piece.
    await database.db
      .insertInto("contact_import_uploads")
      .values({
        upload_id: "imp_clash",
        seq: 3,
        data: Buffer.from("x"),
        created_at: "2026-11-28T00:00:00Z",
      })
      .execute();
    const upload = await stage(database, csvOf(6 * uploadPieceBytes), "imp_clash");
    await expect(upload.store()).rejects.toThrow();
    await upload.discard();
    expect(service.pragma("wal_autocheckpoint", { simple: true })).toBe(4000);
  });
});
