import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dataVersionOf } from "../db/data-version.js";
import { type DatabaseHandle, openDatabase } from "../db/database.js";
import { rememberedPage } from "./contact-page-memo.js";

describe("contact pages kept while the database is unchanged", () => {
  let file = "";
  let database: DatabaseHandle;
  beforeEach(async () => {
    file = join(mkdtempSync(join(tmpdir(), "page-memo-")), "reseller.db");
    database = await openDatabase(file);
    await sql`CREATE TABLE notes (body TEXT)`.execute(database.db);
  });
  afterEach(() => database.close());

  /** A page read that counts its reads. */
  function counted() {
    const reads = { count: 0 };
    const read = async () => {
      reads.count += 1;
      return { read: reads.count };
    };
    return { reads, read };
  }

  it("answers a page read again from memory while nothing was written", async () => {
    const { reads, read } = counted();
    expect(await rememberedPage(database.db, "first", read)).toEqual({ read: 1 });
    expect(await rememberedPage(database.db, "first", read)).toEqual({ read: 1 });
    expect(await rememberedPage(database.db, "second", read)).toEqual({ read: 2 });
    expect(reads.count).toBe(2);
  });

  it("keeps the page asked for most recently when a walk reads more pages than it keeps", async () => {
    const { reads, read } = counted();
    await rememberedPage(database.db, "first", read);
    for (let page = 0; page < 127; page++) await rememberedPage(database.db, `walk ${page}`, read);
    await rememberedPage(database.db, "first", read);
    await rememberedPage(database.db, "one more", read);
    const before = reads.count;
    expect(await rememberedPage(database.db, "first", read)).toEqual({ read: 1 });
    expect(reads.count).toBe(before);
  });

  it("reads the page again after a write of the service's own connection", async () => {
    const { read } = counted();
    await rememberedPage(database.db, "first", read);
    await sql`INSERT INTO notes VALUES ('x')`.execute(database.db);
    expect(await rememberedPage(database.db, "first", read)).toEqual({ read: 2 });
  });

  it("reads the page again after another connection commits (an import's thread, another process)", async () => {
    const { read } = counted();
    await rememberedPage(database.db, "first", read);
    const other = new Database(file);
    try {
      other.prepare("INSERT INTO notes VALUES ('from elsewhere')").run();
    } finally {
      other.close();
    }
    expect(await rememberedPage(database.db, "first", read)).toEqual({ read: 2 });
  });

  it("does not keep a page during whose reading the database changed", async () => {
    const { reads } = counted();
    const writingRead = async () => {
      reads.count += 1;
      await sql`INSERT INTO notes VALUES ('meanwhile')`.execute(database.db);
      return { read: reads.count };
    };
    await rememberedPage(database.db, "first", writingRead);
    expect(await rememberedPage(database.db, "first", writingRead)).toEqual({ read: 2 });
  });

  it("keeps nothing while a transaction is open, since its writes may yet be rolled back", async () => {
    await database.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO notes VALUES ('maybe')`.execute(trx);
      expect(dataVersionOf(database.db)).toBeNull();
    });
    expect(dataVersionOf(database.db)).toEqual(expect.any(String));
  });
});
