import type BetterSqlite3 from "better-sqlite3";

/**
 * SQLite lets one connection write at a time, and a connection that finds the file locked sleeps
 * in growing steps (busy_timeout) and tries again. The service's thread must never sleep long:
 * it answers every request. A worker thread writing batch after batch (an import) would win that
 * race every time, since it asks again the moment it commits. So the two take turns: while the
 * service's thread waits to write, a flag in memory both threads share says so, and the worker
 * waits for it to clear before it begins its next transaction. The service's thread then waits
 * at most for the batch in hand.
 */

/** The flag a service's connection raises while it waits to write, for its worker threads. */
export type WriterTurns = Int32Array;

/** A flag for a connection's writes, shared with worker threads by its buffer. */
export function writerTurns(buffer = new SharedArrayBuffer(4)): WriterTurns {
  return new Int32Array(buffer);
}

/**
 * The service's side: `statement` as Kysely calls it, raising the flag while a write (or a
 * transaction's begin, which takes the write lock) runs, so a worker gives way.
 */
export function announcingWrites(
  statement: BetterSqlite3.Statement,
  source: string,
  turns: WriterTurns,
): BetterSqlite3.Statement {
  if (statement.readonly && !source.startsWith("begin")) return statement;
  const announced =
    (run: (...args: unknown[]) => unknown) =>
    (...args: unknown[]): unknown => {
      Atomics.store(turns, 0, 1);
      try {
        return run.apply(statement, args);
      } finally {
        Atomics.store(turns, 0, 0);
        Atomics.notify(turns, 0);
      }
    };
  // Wrapped once per statement: the statement cache hands the same one out for every run.
  const methods: Record<string | symbol, unknown> = {
    run: announced(statement.run),
    all: announced(statement.all),
    get: announced(statement.get),
  };
  return new Proxy(statement, {
    get(target, property) {
      // With the statement itself as `this`: its native getters (busy, reader) refuse a proxy.
      return methods[property] ?? Reflect.get(target, property);
    },
  });
}

/** The worker's side: waits while the service's thread waits to write (at most `limitMs`). */
export function giveWay(turns: WriterTurns, limitMs = 5000): void {
  const until = performance.now() + limitMs;
  while (Atomics.load(turns, 0) === 1) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(turns, 0, 1, Math.min(left, 50));
  }
}
