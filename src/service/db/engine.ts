import type BetterSqlite3 from "better-sqlite3";
import { type Kysely, SqliteAdapter } from "kysely";

/** The two database engines the service runs on. */
export type Engine = "sqlite" | "postgres";

/** Whether a `--database` value names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * The engine behind a Kysely handle (or a transaction of one). The few statements that differ
 * between engines (search, bulk writes, JSON pages) ask this rather than carry a flag around.
 */
export function engineOf(db: Pick<Kysely<unknown>, "getExecutor">): Engine {
  return db.getExecutor().adapter instanceof SqliteAdapter ? "sqlite" : "postgres";
}

const sqliteHandles = new WeakMap<object, BetterSqlite3.Database>();

/** Remembers the raw handle behind a SQLite Kysely instance (see sqliteHandleOf). */
export function registerSqliteHandle(
  db: Pick<Kysely<unknown>, "getExecutor">,
  sqlite: BetterSqlite3.Database,
): void {
  sqliteHandles.set(db.getExecutor().adapter, sqlite);
}

/**
 * better-sqlite3's handle behind a SQLite Kysely instance or any of its transactions (they share
 * the one connection and the adapter this is keyed by), for the bulk paths that run synchronous
 * statements inside a Kysely transaction. Throws on PostgreSQL: callers branch on engineOf first.
 */
export function sqliteHandleOf(db: Pick<Kysely<unknown>, "getExecutor">): BetterSqlite3.Database {
  const handle = sqliteHandles.get(db.getExecutor().adapter);
  if (!handle) throw new Error("this path needs the SQLite engine's own handle");
  return handle;
}
