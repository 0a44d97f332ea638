import { closeSync, existsSync, openSync } from "node:fs";
import type BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, type QueryExecutorProvider, SqliteDialect, sql } from "kysely";
import { redactedUrl } from "../../contract/redacted-url.js";
import {
  DatabaseUnavailableError,
  ForeignDatabaseError,
  isDatabaseUnavailable,
  NewerDatabaseError,
} from "./database-errors.js";
import {
  type Engine,
  engineOf,
  isPostgresUrl,
  registerSqliteHandle,
  sqliteHandleOf,
} from "./engine.js";
import { migrationProvider } from "./migrations/index.js";
import { openPostgres } from "./postgres-pool.js";
import type { Database } from "./schema.js";
import { autocheckpointPages, copyLogBack, handLogBack } from "./sqlite-log.js";
import {
  giveWay,
  LockWaitingSqliteDialect,
  type WriterTurns,
  writerTurns,
} from "./sqlite-writer-turns.js";

export type Db = Kysely<Database>;

/** An open database: the Kysely handle, its engine, and SQLite's raw handle for hot bulk paths. */
export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /** better-sqlite3's handle of the one SQLite connection; null on PostgreSQL. */
  sqlite: BetterSqlite3.Database | null;
  /** Where it is: the SQLite file or the PostgreSQL URL with its password hidden. */
  location: string;
  /** The migrations this open applied (none when the database was current). */
  applied: string[];
  close(): Promise<void>;
}

/** How a connection's writes take turns with another thread's (see sqlite-writer-turns.ts). */
type Turns = { role: "service"; flag: WriterTurns } | { role: "worker"; flag: WriterTurns };

/**
 * Hands Kysely prepared statements from a cache keyed by SQL text: Kysely prepares on every
 * execution, and preparing costs more than running the small queries of an API request.
 * A statement still being iterated is busy, so a fresh one is prepared for that case.
 */
function withStatementCache(
  sqlite: BetterSqlite3.Database,
  turns: Turns | null,
): BetterSqlite3.Database {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== "prepare") return Reflect.get(target, property, receiver);
      return (text: string) => {
        // Kysely begins transactions deferred. With a second connection on the file (an import's
        // worker thread, another process), a transaction that read and then writes after the
        // other committed fails at once with SQLITE_BUSY_SNAPSHOT; taking the write lock at the
        // start makes it wait its turn instead.
        const source = text === "begin" ? "begin immediate" : text;
        if (turns?.role === "worker" && source === "begin immediate") {
          giveWay(turns.flag);
          copyLogBack(sqlite);
        }
        const cached = statements.get(source);
        if (cached && !cached.busy) return cached;
        const statement = prepare(source);
        if (!cached && statements.size < 500) statements.set(source, statement);
        return statement;
      };
    },
  });
}

const serviceTurns = new WeakMap<BetterSqlite3.Database, WriterTurns>();
/** The flag each worker thread's connection gives way to, by that connection. */
const workerTurns = new WeakMap<BetterSqlite3.Database, WriterTurns>();

/**
 * Whether the service's thread waits to write while this handle's transaction holds the lock: true
 * only on a worker thread's SQLite connection (an import's), whose long transactions then end
 * early (contact-import-job.ts). PostgreSQL locks rows, not the database, so nothing waits this way.
 */
export function othersWaitToWrite(db: QueryExecutorProvider): boolean {
  if (engineOf(db) !== "sqlite") return false;
  const flag = workerTurns.get(sqliteHandleOf(db));
  return flag !== undefined && Atomics.load(flag, 0) > 0;
}

/** The flag a worker thread's connection gives way to (null for an in-memory database). */
export function writerTurnsOf(sqlite: BetterSqlite3.Database): SharedArrayBuffer | null {
  return (serviceTurns.get(sqlite)?.buffer as SharedArrayBuffer | undefined) ?? null;
}

async function openSqlite(
  file: string,
  giveWayTo: SharedArrayBuffer | undefined,
  migrating: boolean,
): Promise<{ db: Db; sqlite: BetterSqlite3.Database }> {
  // Loaded here so that a PostgreSQL deployment (and the CLI) never loads the native module.
  const { default: BetterSqlite3 } = await import("better-sqlite3");
  // A new database file is readable by its owner only: it holds other people's contacts and the
  // webhook signing secrets, and SQLite gives its -wal and -shm files the same mode. Only a file
  // that does not exist yet is touched: closing any descriptor of an open database drops every
  // lock this process holds on it (POSIX), and an import's thread opens the file again while the
  // service has it open; the next reader (`sqlite3 … .backup`) then took itself for the last
  // connection and deleted the log the service was still writing.
  if (file !== ":memory:" && !existsSync(file)) {
    try {
      closeSync(openSync(file, "wx", 0o600));
    } catch {
      // Created meanwhile, or not creatable: better-sqlite3's own open below says why.
    }
  }
  const sqlite = new BetterSqlite3(file);
  if (migrating) {
    try {
      refuseForeignSqlite(sqlite);
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }
  if (file !== ":memory:") sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // Deleted rows (pruned events, expired idempotency answers, Meta's applied webhooks) hold
  // other people's data: zeroed in the pages a write touches anyway (FAST adds no I/O), instead
  // of staying readable in the file's free space.
  sqlite.pragma("secure_delete = FAST");
  // Sized for bulk work (a million-contact import): SQLite's default 2 MB page cache made an
  // import rewrite the same index pages over and over (20 GB written for a 400 MB database).
  sqlite.pragma("cache_size = -65536");
  sqlite.pragma("mmap_size = 268435456");
  sqlite.pragma("temp_store = MEMORY");
  sqlite.pragma(`wal_autocheckpoint = ${autocheckpointPages}`);
  // The log's file keeps the size of its longest run (SQLite's default), to be written over:
  // cut back each time the log started over (journal_size_limit, 64 MB), it was freed and grown
  // again every second or two during an import (64 to 90–250 MB), and the service's commits
  // that came in meanwhile waited for the disk, 30–151 ms on the event loop. Its longest run is
  // short now that the log starts over at each batch of an import (copyLogBack): 250 MB at most
  // in the runs of a million-row import measured, against 2.1 GB before.
  let turns: Turns | null = null;
  if (giveWayTo) {
    turns = { role: "worker", flag: writerTurns(giveWayTo) };
    workerTurns.set(sqlite, turns.flag);
    // The worker copies the log before each of its transactions (copyLogBack), so its first
    // write starts the log over and SQLite syncs the log's header on this thread. A commit's own
    // copy (past 4,000 pages, most of an import's batches) left the log copied for the service's
    // next small commit, a write that had waited its turn, to start over: that header sync took
    // 116–119 ms on the event loop while the import's pages were being written out.
    sqlite.pragma("wal_autocheckpoint = 0");
    // Two imports' threads race for the lock, each asking again right after it commits; one
    // that keeps losing must wait rather than fail (a wait here holds no request).
    sqlite.pragma("busy_timeout = 60000");
  } else if (file !== ":memory:") {
    turns = { role: "service", flag: writerTurns() };
    serviceTurns.set(sqlite, turns.flag);
    // Never asleep in SQLite's busy handler: the driver waits for the lock on the event loop.
    sqlite.pragma("busy_timeout = 0");
  }
  const database = withStatementCache(sqlite, turns);
  const db = new Kysely<Database>({
    dialect:
      turns?.role === "service"
        ? new LockWaitingSqliteDialect(database, sqlite, turns.flag)
        : new SqliteDialect({ database }),
  });
  registerSqliteHandle(db, sqlite);
  return { db, sqlite };
}

/** Kysely's record of applied migrations: a database with tables but without it is not ours. */
export const migrationTable = "kysely_migration";

/** Refuses a database holding tables (`tables`) but no record of reseller's migrations. */
function refuseForeign(tables: string[], migrated: boolean): void {
  if (tables.length > 0 && !migrated) throw new ForeignDatabaseError(tables);
}

/**
 * refuseForeign for a SQLite file, on the raw connection before any pragma: a file refused
 * keeps its journal mode as it was.
 */
function refuseForeignSqlite(sqlite: BetterSqlite3.Database): void {
  const tables = sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  refuseForeign(tables, tables.includes(migrationTable));
}

/**
 * refuseForeign for PostgreSQL: the ordinary tables of the schema the migrations would create
 * theirs in (an extension's, such as PostGIS's `spatial_ref_sys`, and views do not count),
 * against a migration table found where Kysely finds it, through the search_path.
 */
async function refuseForeignPostgres(db: Db): Promise<void> {
  const { rows } = await sql<{ name: string }>`SELECT c.relname AS name FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
        AND d.objid = c.oid AND d.deptype = 'e')
    ORDER BY c.relname`.execute(db);
  const found = await sql<{
    migrated: boolean;
  }>`SELECT to_regclass(${migrationTable}) IS NOT NULL AS migrated`.execute(db);
  refuseForeign(
    rows.map((row) => row.name),
    found.rows[0]?.migrated === true,
  );
}

/**
 * Opens the database (`postgres://…` or a SQLite file, created if needed) and applies every
 * pending migration (unless told not to: `admin copy` looks before it changes anything). On PostgreSQL, Kysely's migrator holds an advisory lock while it migrates,
 * so several instances starting together apply each migration once.
 */
export async function openDatabase(
  target: string,
  options: {
    migrate?: boolean;
    /** A worker thread's connection: gives way to the writes of the service's (writerTurnsOf). */
    giveWayTo?: SharedArrayBuffer;
  } = {},
): Promise<DatabaseHandle> {
  const postgres = isPostgresUrl(target);
  const migrating = options.migrate !== false;
  const opened = postgres
    ? { db: await openPostgres(target), sqlite: null }
    : await openSqlite(target, options.giveWayTo, migrating);
  const { db, sqlite } = opened;
  let applied: string[];
  try {
    if (postgres && migrating) await refuseForeignPostgres(db);
    applied = migrating ? await migrate(db) : [];
  } catch (error) {
    await db.destroy();
    const cause = (error as { cause?: unknown }).cause ?? error;
    // Unreachable in any way: refused, a server that never answers or is not PostgreSQL (pg's
    // own "Connection terminated …"), one shutting down or starting (57P0x).
    if (isDatabaseUnavailable(cause)) {
      throw new DatabaseUnavailableError(redactedUrl(target), (cause as Error).message, cause);
    }
    throw error;
  }
  return {
    db,
    engine: postgres ? "postgres" : "sqlite",
    sqlite,
    location: redactedUrl(target),
    applied,
    close: async () => {
      try {
        // A worker's last batch is copied back here, so the service's connection, copying again
        // once no worker writes (logCopiedByWorker), starts with a short log (unless a reader
        // of the service held the copy back; its next commit then copies the rest), which the
        // worker starts over itself (handLogBack).
        if (options.giveWayTo && sqlite?.open) handLogBack(sqlite);
      } finally {
        await db.destroy();
      }
    },
  };
}

/** Applies every pending migration; throws naming the one that failed. */
export async function migrate(db: Db): Promise<string[]> {
  const { error, results } = await new Migrator({
    db,
    provider: migrationProvider,
  }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const newer = /previously executed migration (\S+) is missing/.exec(
      String((error as Error).message ?? ""),
    )?.[1];
    if (newer) throw new NewerDatabaseError(newer);
    // No migration ran: the database could not even be asked which ones it has.
    if (!failed) throw error;
    throw new Error(
      `database migration ${failed} failed: ${String((error as Error).message ?? error)}`,
      { cause: error },
    );
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
