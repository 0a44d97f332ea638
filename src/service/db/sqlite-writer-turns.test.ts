import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, writerTurnsOf } from "./database.js";
import { giveWay, lockWaitLimitMs, writerTurns } from "./sqlite-writer-turns.js";

describe("the service's thread waits for SQLite's write lock without blocking", () => {
  let dir = "";
  let database: DatabaseHandle | undefined;
  let other: BetterSqlite3.Database | undefined;
  afterEach(async () => {
    if (other?.inTransaction) other.exec("ROLLBACK");
    other?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The service's database on a file, and a second connection on it (a worker's). */
  async function twoConnections() {
    dir = mkdtempSync(join(tmpdir(), "reseller-turns-"));
    const file = join(dir, "service.db");
    database = await openDatabase(file);
    other = new BetterSqlite3(file);
    const sqlite = database.sqlite as BetterSqlite3.Database;
    const turns = writerTurns(writerTurnsOf(sqlite) as SharedArrayBuffer);
    return { db: database.db, other, turns };
  }

  const addBucket = (db: DatabaseHandle["db"], bucket: string) =>
    db
      .insertInto("rate_limit_buckets")
      .values({ bucket, hits: 1, window_ends_at: "2099-01-01T00:00:00.000Z" })
      .execute();

  it("answers reads while a write waits for another connection's transaction, then writes", async () => {
    const { db, other, turns } = await twoConnections();
    other.exec("BEGIN IMMEDIATE");
    const write = addBucket(db, "waiting");
    // The thread is free: timers fire and reads run while the write waits its turn.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const read = await db.selectFrom("rate_limit_buckets").select("bucket").execute();
    expect(read).toEqual([]);
    // The worker is told a write of the service waits.
    expect(Atomics.load(turns, 0)).toBe(1);
    other.exec("COMMIT");
    await write;
    expect(Atomics.load(turns, 0)).toBe(0);
    const written = await db.selectFrom("rate_limit_buckets").select("bucket").execute();
    expect(written).toEqual([{ bucket: "waiting" }]);
  });

  it("waits for the lock at a transaction's start, with the whole transaction after it", async () => {
    const { db, other } = await twoConnections();
    other.exec("BEGIN IMMEDIATE");
    const transaction = db.transaction().execute(async (trx) => {
      await addBucket(trx, "first");
      await addBucket(trx, "second");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    other.exec("COMMIT");
    await transaction;
    const written = await db.selectFrom("rate_limit_buckets").select("bucket").execute();
    expect(written.map((r) => r.bucket).sort()).toEqual(["first", "second"]);
  });

  it("gives up as busy, writing nothing, when the lock stays taken", async () => {
    const { db, other, turns } = await twoConnections();
    other.exec("BEGIN IMMEDIATE");
    const started = performance.now();
    await expect(addBucket(db, "never")).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(lockWaitLimitMs - 50);
    expect(Atomics.load(turns, 0)).toBe(0);
    other.exec("ROLLBACK");
    expect(await db.selectFrom("rate_limit_buckets").select("bucket").execute()).toEqual([]);
  }, 10_000);
});

describe("a worker thread gives way to the service's waiting writes", () => {
  it("goes on at once when nobody waits, and waits (bounded) while a write waits", () => {
    const turns = writerTurns();
    let started = performance.now();
    giveWay(turns);
    expect(performance.now() - started).toBeLessThan(20);
    Atomics.store(turns, 0, 2);
    started = performance.now();
    giveWay(turns, 60);
    // Bounded: a count left up (a stuck writer) never stops the worker for good.
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});
