import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { announcingWrites, giveWay, writerTurns } from "./sqlite-writer-turns.js";

/** A connection whose SQL can read the flag at the moment a statement runs. */
function connection(turns: Int32Array): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(":memory:");
  sqlite.function("flag", () => Atomics.load(turns, 0));
  sqlite.exec("CREATE TABLE seen (flag INTEGER)");
  return sqlite;
}

describe("writes of the service's thread and a worker thread take turns", () => {
  it("raises the flag while the service's thread writes, and lowers it after", () => {
    const turns = writerTurns();
    const sqlite = connection(turns);
    const insert = announcingWrites(
      sqlite.prepare("INSERT INTO seen VALUES (flag())"),
      "INSERT INTO seen VALUES (flag())",
      turns,
    );
    insert.run();
    expect(sqlite.prepare("SELECT flag FROM seen").all()).toEqual([{ flag: 1 }]);
    expect(Atomics.load(turns, 0)).toBe(0);
  });

  it("raises it for a transaction's begin, which takes the write lock, but not for reads", () => {
    const turns = writerTurns();
    const sqlite = connection(turns);
    const read = announcingWrites(
      sqlite.prepare("SELECT flag() AS f"),
      "SELECT flag() AS f",
      turns,
    );
    expect(read.get()).toEqual({ f: 0 });
    const begin = announcingWrites(sqlite.prepare("begin immediate"), "begin immediate", turns);
    begin.run();
    expect(sqlite.inTransaction).toBe(true);
    expect(Atomics.load(turns, 0)).toBe(0);
  });

  it("lowers the flag when the write fails", () => {
    const turns = writerTurns();
    const sqlite = connection(turns);
    sqlite.exec("CREATE TABLE once (id INTEGER PRIMARY KEY)");
    const insert = announcingWrites(
      sqlite.prepare("INSERT INTO once VALUES (1)"),
      "INSERT INTO once VALUES (1)",
      turns,
    );
    insert.run();
    expect(() => insert.run()).toThrow(/UNIQUE/);
    expect(Atomics.load(turns, 0)).toBe(0);
  });

  it("lets a worker go on at once when nobody waits, and waits while the flag is up", () => {
    const turns = writerTurns();
    let started = performance.now();
    giveWay(turns);
    expect(performance.now() - started).toBeLessThan(20);
    Atomics.store(turns, 0, 1);
    started = performance.now();
    giveWay(turns, 60);
    // Bounded: a flag left up (a stuck writer) never stops the worker for good.
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});
