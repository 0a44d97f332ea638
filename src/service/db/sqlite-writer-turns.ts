import type BetterSqlite3 from "better-sqlite3";
import type {
  DatabaseConnection,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from "kysely";
import { type CompiledQuery, SqliteDialect } from "kysely";

/**
 * SQLite lets one connection write at a time. A connection that finds the file locked would
 * sleep in SQLite's busy handler, and the service's thread must never sleep: it answers every
 * request, and better-sqlite3's calls are synchronous. So the service's connection has no busy
 * timeout: a write that finds the lock taken (by an import's worker thread, which writes batch
 * after batch) gives the connection back, waits on the event loop and tries again, and every
 * other request goes on meanwhile, reads included.
 *
 * A worker that asks for the lock again the moment it commits would win every race, so the two
 * take turns: while the service's thread waits to write, a count in memory both threads share
 * says so, and the worker waits for it to fall to zero before it begins its next transaction.
 * The service's thread then waits at most for the batch in hand.
 */

/** The count of the service's writes waiting for the lock, shared with worker threads. */
export type WriterTurns = Int32Array;

/** A count of waiting writes, shared with worker threads by its buffer. */
export function writerTurns(buffer = new SharedArrayBuffer(4)): WriterTurns {
  return new Int32Array(buffer);
}

/** The worker's side: waits while the service's thread waits to write (at most `limitMs`). */
export function giveWay(turns: WriterTurns, limitMs = 5000): void {
  const until = performance.now() + limitMs;
  for (let waiting = Atomics.load(turns, 0); waiting !== 0; waiting = Atomics.load(turns, 0)) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(turns, 0, waiting, Math.min(left, 50));
  }
}

/** How long a write of the service waits for the lock before it fails as busy (503). */
export const lockWaitLimitMs = 5000;

const isBusy = (error: unknown) =>
  String((error as { code?: unknown } | null)?.code).startsWith("SQLITE_BUSY");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Connections whose busy writes fail at once instead of waiting (see `withoutLockWaits`). */
const impatient = new WeakSet<BetterSqlite3.Database>();

/**
 * Runs `work` with the connection's writes failing at once (SQLITE_BUSY) while another
 * connection holds the lock, for writes that rather give up than wait (write-conflicts.ts).
 */
export async function withoutLockWaits<T>(
  sqlite: BetterSqlite3.Database,
  work: () => Promise<T>,
): Promise<T> {
  impatient.add(sqlite);
  try {
    return await work();
  } finally {
    impatient.delete(sqlite);
  }
}

/**
 * Kysely's SQLite driver, for the service's connection: a statement that finds the write lock
 * taken outside a transaction (a transaction's `begin immediate`, or a single write) releases
 * the connection, waits on the event loop with the turn count raised, and runs again, for up to
 * `lockWaitLimitMs`. Inside a transaction the lock is already held, so nothing there waits.
 */
class LockWaitingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly turns: WriterTurns,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  /** The one connection's wrapper, made once (SQLite's driver has a single connection). */
  private readonly wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrapped.get(connection);
    if (!wrapper) {
      wrapper = this.waiting(connection);
      this.wrapped.set(connection, wrapper);
    }
    return wrapper;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  private waiting(connection: DatabaseConnection): DatabaseConnection {
    const run = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      const until = performance.now() + lockWaitLimitMs;
      let raised = false;
      try {
        for (let pause = 1; ; pause = Math.min(pause * 2, 8)) {
          try {
            return await connection.executeQuery<R>(query);
          } catch (error) {
            const canWait =
              isBusy(error) &&
              !this.sqlite.inTransaction &&
              !impatient.has(this.sqlite) &&
              performance.now() < until;
            if (!canWait) throw error;
          }
          if (!raised) {
            Atomics.add(this.turns, 0, 1);
            raised = true;
          }
          // The connection is free for other requests while this one waits its turn.
          await this.inner.releaseConnection(connection);
          await sleep(pause);
          await this.inner.acquireConnection();
        }
      } finally {
        if (raised) {
          Atomics.sub(this.turns, 0, 1);
          Atomics.notify(this.turns, 0);
        }
      }
    };
    return { executeQuery: run, streamQuery: connection.streamQuery.bind(connection) };
  }
}

/**
 * Kysely's SQLite dialect with the service connection's lock waits (see LockWaitingDriver):
 * `database` is what Kysely runs statements on, `sqlite` the connection's own handle.
 */
export class LockWaitingSqliteDialect extends SqliteDialect {
  constructor(
    database: BetterSqlite3.Database,
    private readonly sqlite: BetterSqlite3.Database,
    private readonly turns: WriterTurns,
  ) {
    super({ database });
  }

  override createDriver(): Driver {
    return new LockWaitingDriver(super.createDriver(), this.sqlite, this.turns);
  }
}
