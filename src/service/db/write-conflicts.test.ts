import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "./database.js";
import { inTurn, lockedOut, sqliteLeaseMs, unlessLocked } from "./write-conflicts.js";

describe("bookkeeping writes never sleep on another connection's write lock (SQLite)", () => {
  let dir = "";
  let database: DatabaseHandle | undefined;
  let other: BetterSqlite3.Database | undefined;
  afterEach(async () => {
    other?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const hit = (db: DatabaseHandle["db"]) =>
    db
      .insertInto("rate_limit_buckets")
      .values({ bucket: "b", hits: 1, window_ends_at: "2099-01-01T00:00:00.000Z" })
      .execute();

  it("answers 'locked out' at once and writes nothing while another connection writes", async () => {
    dir = mkdtempSync(join(tmpdir(), "reseller-locks-"));
    const file = join(dir, "service.db");
    database = await openDatabase(file);
    other = new BetterSqlite3(file);
    other.exec("BEGIN IMMEDIATE");
    const started = performance.now();
    expect(await unlessLocked(database.db, hit)).toBe(lockedOut);
    expect(performance.now() - started).toBeLessThan(1000);
    other.exec("COMMIT");
    const count = () =>
      database?.db.selectFrom("rate_limit_buckets").select("bucket").execute() ?? [];
    expect(await count()).toEqual([]);
    // Free again: the write goes through, and ordinary writes still wait their turn.
    expect(await unlessLocked(database.db, hit)).not.toBe(lockedOut);
    expect(await count()).toEqual([{ bucket: "b" }]);
    // The service's connection never sleeps in SQLite's busy handler (sqlite-writer-turns.ts).
    expect(database.sqlite?.pragma("busy_timeout", { simple: true })).toBe(0);
  });
});

describe("work taking turns by name", () => {
  it("runs one holder of a name at a time, in order, and goes on after one that throws", async () => {
    const database = await openDatabase(":memory:");
    try {
      const order: string[] = [];
      const step = (name: string, fail = false) =>
        inTurn(database.db, "turns", async () => {
          order.push(`${name} in`);
          await new Promise((resolve) => setTimeout(resolve, 5));
          order.push(`${name} out`);
          if (fail) throw new Error(`${name} failed`);
          return name;
        });
      const results = await Promise.allSettled([step("a"), step("b", true), step("c")]);
      expect(order).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(await step("d")).toBe("d");
    } finally {
      await database.close();
    }
  });
});

describe("work taking turns by name across processes sharing a SQLite file", () => {
  let dir = "";
  const handles: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of handles.splice(0)) await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Two handles on one file stand for two processes: neither sees the other's in-process queue.
  async function twoProcesses() {
    dir = mkdtempSync(join(tmpdir(), "reseller-lease-"));
    const file = join(dir, "service.db");
    handles.push(await openDatabase(file), await openDatabase(file));
    return handles as [DatabaseHandle, DatabaseHandle];
  }

  it("runs one holder of a name at a time whichever process holds it, and leaves no lease behind", async () => {
    const [one, two] = await twoProcesses();
    let inside = 0;
    let most = 0;
    const step = (handle: DatabaseHandle) =>
      inTurn(handle.db, "campaign-sends:ws_1", async () => {
        inside += 1;
        most = Math.max(most, inside);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inside -= 1;
      });
    await Promise.all([one, two, one, two, one, two].map(step));
    expect(most).toBe(1);
    const leases = await one.db
      .selectFrom("settings")
      .select("key")
      .where("key", "like", "lock:%")
      .execute();
    expect(leases).toEqual([]);
  });

  it("takes over the lease of a process that died holding it once the lease has run out", async () => {
    const [one] = await twoProcesses();
    const key = "lock:campaign-sends:ws_1";
    const insert = (expires: number) =>
      one.db
        .insertInto("settings")
        .values({ key, value: `${expires}:dead-holder` })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: `${expires}:dead-holder` }))
        .execute();
    await insert(Date.now() + sqliteLeaseMs);
    const waiting = inTurn(one.db, "campaign-sends:ws_1", async () => "ran");
    const early = await Promise.race([
      waiting,
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 100)),
    ]);
    expect(early).toBe("still waiting");
    await insert(Date.now() - 1);
    expect(await waiting).toBe("ran");
  });
});
