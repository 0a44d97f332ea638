import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { SharedRateCounter } from "../../src/service/domain/rate-limit-buckets.js";
import { TestClock } from "../helpers/test-app.js";

/** Two instances' counters on one database share each bucket's budget. */
describe("shared rate limit buckets", () => {
  let database: DatabaseHandle;
  let clock: TestClock;
  const counters: SharedRateCounter[] = [];
  beforeEach(async () => {
    database = await openDatabase(":memory:");
    clock = new TestClock();
  });
  afterEach(async () => {
    for (const counter of counters.splice(0)) await counter.close();
    await database.close();
  });
  const instance = (max: number) => {
    const counter = new SharedRateCounter(database.db, clock, { max, windowMs: 60_000 });
    counters.push(counter);
    return counter;
  };

  async function admitted(instances: SharedRateCounter[], hits: number, bucket = "token:tok_1") {
    let allowed = 0;
    for (let i = 0; i < hits; i++) {
      if ((await instances[i % instances.length]?.hit(bucket))?.allowed) allowed += 1;
    }
    return allowed;
  }

  it("says each round of writes that fails, and once the database takes writes again, that it does", async () => {
    const errors: unknown[] = [];
    let written = 0;
    const counter = new SharedRateCounter(
      database.db,
      clock,
      { max: 5000, windowMs: 60_000 },
      { syncMs: 200, onError: (error) => errors.push(error), onWritten: () => (written += 1) },
    );
    counters.push(counter);
    const rename = (from: string, to: string) =>
      sql`ALTER TABLE ${sql.table(from)} RENAME TO ${sql.table(to)}`.execute(database.db);
    // The first hit writes the bucket's row; under a large budget the next is counted here and
    // waits for the next round of writes, which finds the table gone, as writes find a
    // database that does not answer.
    expect((await counter.hit("token:t")).allowed).toBe(true);
    expect((await counter.hit("token:t")).allowed).toBe(true);
    const before = written;
    await rename("rate_limit_buckets", "rate_limit_buckets_away");
    await vi.waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    expect(written).toBe(before);
    await rename("rate_limit_buckets_away", "rate_limit_buckets");
    await vi.waitFor(() => expect(written).toBeGreaterThan(before), { timeout: 5000 });
    const after = written;
    const row = await database.db
      .selectFrom("rate_limit_buckets")
      .select("hits")
      .executeTakeFirst();
    expect(row?.hits).toBe(2);
    // Rounds with nothing to write say nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(written).toBe(after);
  });

  it("admits exactly a small budget across instances", async () => {
    expect(await admitted([instance(20), instance(20)], 30)).toBe(20);
  });

  it("keeps a large budget within a batch of its limit while writing in batches", async () => {
    const [a, b] = [instance(5000), instance(5000)];
    const allowed = await admitted([a, b], 6000);
    expect(allowed).toBeGreaterThanOrEqual(5000);
    expect(allowed).toBeLessThanOrEqual(5100);
  });

  it("keeps separate budgets for separate buckets", async () => {
    const a = instance(3);
    expect(await admitted([a], 5, "address:10.0.0.1")).toBe(3);
    expect(await admitted([a], 5, "address:10.0.0.2")).toBe(3);
  });

  it("says how much is left and when the window ends, then starts a new window", async () => {
    const [a, b] = [instance(3), instance(3)];
    expect(await a.hit("token:t")).toMatchObject({ allowed: true, remaining: 2, resetMs: 60_000 });
    clock.advance(10_000);
    expect(await b.hit("token:t")).toMatchObject({ allowed: true, remaining: 1, resetMs: 50_000 });
    await a.hit("token:t");
    expect(await b.hit("token:t")).toMatchObject({ allowed: false, remaining: 0 });
    clock.advance(50_000);
    expect(await b.hit("token:t")).toMatchObject({ allowed: true, remaining: 2, resetMs: 60_000 });
    expect(await a.hit("token:t")).toMatchObject({ allowed: true, remaining: 1 });
  });
});

describe("shared rate limit buckets while another connection writes (SQLite)", () => {
  it("decides from the count it knows without waiting, and writes the hits once it can", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-buckets-"));
    const file = join(dir, "service.db");
    const database = await openDatabase(file);
    const clock = new TestClock();
    const counter = new SharedRateCounter(database.db, clock, { max: 3, windowMs: 60_000 });
    // An import's thread, say, in the middle of a batch.
    const importer = new BetterSqlite3(file);
    importer.exec("BEGIN IMMEDIATE");
    try {
      const started = performance.now();
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push((await counter.hit("token:t")).allowed);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(decisions).toEqual([true, true, true, false]);
      // A window that ends while the lock is still held starts the count again.
      clock.advance(60_000);
      expect((await counter.hit("token:t")).allowed).toBe(true);
      importer.exec("COMMIT");
      await counter.close();
      const row = await database.db
        .selectFrom("rate_limit_buckets")
        .select("hits")
        .where("bucket", "=", "token:t")
        .executeTakeFirst();
      // The hits of the window that ended no longer matter; the new window's one is written.
      expect(row?.hits).toBe(1);
    } finally {
      importer.close();
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
