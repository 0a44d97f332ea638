import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { migrationProvider } from "./migrations/index.js";
import type { Database } from "./schema.js";

export type Db = Kysely<Database>;

/** An open database: the Kysely handle for queries and the raw handle for hot bulk paths. */
export interface DatabaseHandle {
  db: Db;
  sqlite: BetterSqlite3.Database;
  close(): Promise<void>;
}

/**
 * Hands Kysely prepared statements from a cache keyed by SQL text: Kysely prepares on every
 * execution, and preparing costs more than running the small queries of an API request.
 * A statement still being iterated is busy, so a fresh one is prepared for that case.
 */
function withStatementCache(sqlite: BetterSqlite3.Database): BetterSqlite3.Database {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== "prepare") return Reflect.get(target, property, receiver);
      return (source: string) => {
        const cached = statements.get(source);
        if (cached && !cached.busy) return cached;
        const statement = prepare(source);
        if (!cached && statements.size < 500) statements.set(source, statement);
        return statement;
      };
    },
  });
}

/** Opens (creating if needed) the SQLite file, sets WAL and applies every pending migration. */
export async function openDatabase(file: string): Promise<DatabaseHandle> {
  const sqlite = new BetterSqlite3(file);
  if (file !== ":memory:") sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // Sized for bulk work (a million-contact import): SQLite's default 2 MB page cache made an
  // import rewrite the same index pages over and over (20 GB written for a 400 MB database).
  sqlite.pragma("cache_size = -65536");
  sqlite.pragma("mmap_size = 268435456");
  sqlite.pragma("temp_store = MEMORY");
  // Fewer, larger checkpoints of the WAL during bulk writes (the default is 1,000 pages).
  sqlite.pragma("wal_autocheckpoint = 4000");
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
  const { error, results } = await new Migrator({
    db,
    provider: migrationProvider,
  }).migrateToLatest();
  if (error) {
    await db.destroy();
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`database migration ${failed} failed: ${String(error)}`);
  }
  return { db, sqlite, close: () => db.destroy() };
}
