import { closeSync, existsSync, openSync } from "node:fs";
import type BetterSqlite3 from "better-sqlite3";
import {
  Kysely,
  Migrator,
  PostgresDialect,
  type QueryExecutorProvider,
  SqliteDialect,
  sql,
} from "kysely";
import { redactedUrl } from "../../contract/redacted-url.js";
import { connectionName } from "./connection-names.js";
import {
  type Engine,
  engineOf,
  isPostgresUrl,
  registerSqliteHandle,
  sqliteHandleOf,
} from "./engine.js";
import { migrationProvider } from "./migrations/index.js";
import type { Database } from "./schema.js";
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

/** The log's length and how much of it is copied back (`wal_checkpoint`'s answer). */
type LogState = { busy: number; log: number; checkpointed: number };

const logState = (sqlite: BetterSqlite3.Database, mode: "PASSIVE" | "NOOP") =>
  (sqlite.pragma(`wal_checkpoint(${mode})`) as [LogState])[0];

/**
 * For a worker thread's connection, before each transaction: copies back what is left in the
 * log (its last batch and the service's commits since), so that this transaction begins after a
 * complete copy and its first write starts the log over (when no reader is on the log then).
 * Returns whether the whole log is copied and holds something (so a commit would start it
 * over; `wal_checkpoint(NOOP)` needs SQLite 3.51, bundled: 3.53). Left to the commits' own
 * checkpoints, the service's small commits between an import's batches kept SQLite from
 * starting it over for 40 s at a time: the log reached 2.1 GB during a million-row import. A
 * checkpoint that forces it (RESTART) would wait for readers, and make the service's reads wait
 * with it.
 */
function copyLogBack(sqlite: BetterSqlite3.Database): boolean {
  // A copy reaches the log's end as it was when it began. A batch's copy takes up to 0.2 s, and a
  // commit of the service's meanwhile (one every 250 ms) left the log not quite copied, so it
  // did not start over, and grew by a batch each time; a second copy (a third at most) is short.
  for (let attempt = 0; attempt < 3; attempt++) {
    const copy = logState(sqlite, "PASSIVE");
    if (copy.busy !== 0 || copy.checkpointed !== copy.log) return false;
    const now = logState(sqlite, "NOOP");
    if (now.log === now.checkpointed) return now.log > 0;
  }
  return false;
}

/**
 * For a worker thread's connection as it closes: copies its last batch back, and after a complete
 * copy starts the log over with a commit of its own (the database's unused `user_version` written
 * unchanged, one page). The first commit into a copied log starts it over, and SQLite then syncs
 * the log's header; left to the service's next small commit, that sync waited for the disk on the
 * event loop, 116–119 ms while an import's pages were still being written out. Unlike a RESTART
 * checkpoint, a commit never waits for readers: with one on the log, SQLite appends instead.
 */
function handLogBack(sqlite: BetterSqlite3.Database): void {
  try {
    if (!copyLogBack(sqlite)) return;
    // Waits briefly for the lock, not for another import's whole batch.
    sqlite.pragma("busy_timeout = 200");
    sqlite
      .transaction(() => {
        const version = Number(sqlite.pragma("user_version", { simple: true }));
        sqlite.pragma(`user_version = ${version}`);
      })
      .immediate();
  } catch (error) {
    // The thread's work is committed, and a finished import must not fail here: what is left in
    // the log is copied by the service's commits, as before. SQLite's own errors only (busy, a
    // full or failing disk, which the service's next write meets too).
    if (!String((error as { code?: unknown } | null)?.code).startsWith("SQLITE_")) throw error;
  }
}

/**
 * How many pages of log a commit leaves before it copies them back (SQLite's default is 1,000):
 * fewer, larger checkpoints during bulk writes, and on the service's connection fewer stalls.
 */
const autocheckpointPages = 4000;

/**
 * The service connection's setting while a worker writes (1 GiB of log, copied or not): a
 * backstop, should the worker stop copying (a batch held up long) while the service's commits go
 * on. Between two of the worker's copies the log holds its last batch uncopied: up to 266 MB in
 * the runs of a million-row import of 28 Nov. A backstop below that (32,768 pages, 128 MB) had
 * the service's next commit copy the batch on the event loop: 0.5–0.66 s.
 */
export const workerWritingCheckpointPages = 262_144;

/**
 * Service connections whose commits leave the log to a worker thread: how many holds, the
 * setting before, and the holds kept for an import's thread that has not started yet, by key.
 */
const workersWriting = new WeakMap<
  BetterSqlite3.Database,
  { count: number; pagesBefore: number; awaiting: Map<string, () => void> }
>();

/**
 * For the service's connection `sqlite` while a worker thread writes (an import): its commits
 * leave the copying of the log to the worker, which copies it before each of its transactions
 * (copyLogBack). Otherwise the service's first small commit after each of the worker's batches
 * (a rate-limit count, a heartbeat) copied the batch's pages and synced the file on the event
 * loop: 28–104 ms each during a million-row import. Holds nest; returns the function that ends
 * this one.
 */
export function logCopiedByWorker(sqlite: BetterSqlite3.Database): () => void {
  let writing = workersWriting.get(sqlite);
  if (!writing) {
    const pagesBefore = Number(sqlite.pragma("wal_autocheckpoint", { simple: true }));
    sqlite.pragma(`wal_autocheckpoint = ${workerWritingCheckpointPages}`);
    writing = { count: 0, pagesBefore, awaiting: new Map() };
    workersWriting.set(sqlite, writing);
  }
  writing.count += 1;
  const held = writing;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    held.count -= 1;
    if (held.count > 0) return;
    workersWriting.delete(sqlite);
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${held.pagesBefore}`);
  };
}

/**
 * For the service's connection `sqlite` before it writes many pages that the worker thread of
 * `key` will read (a large upload's pieces, read by its import's thread): its commits leave
 * them in the log, for that thread to copy back before its first transaction, until
 * logHandedOver(sqlite, key) (once the thread holds logCopiedByWorker, or the import runs
 * elsewhere) or `ms` pass. Copied by the service's own commits, the 88 pieces of a 100 MB
 * upload took five or six copies of 4,000 pages, each 38–78 ms on the event loop. Returns the
 * function that ends it early (an upload refused).
 */
export function logLeftForWorker(
  sqlite: BetterSqlite3.Database,
  key: string,
  ms = 30_000,
): () => void {
  const end = logCopiedByWorker(sqlite);
  const awaiting = workersWriting.get(sqlite)?.awaiting;
  const timer = setTimeout(() => finish(), ms);
  timer.unref();
  const finish = () => {
    clearTimeout(timer);
    if (awaiting?.get(key) === finish) awaiting.delete(key);
    end();
  };
  awaiting?.get(key)?.();
  awaiting?.set(key, finish);
  return finish;
}

/** Ends the hold logLeftForWorker took for `key`, if one is left. */
export function logHandedOver(sqlite: BetterSqlite3.Database, key: string): void {
  workersWriting.get(sqlite)?.awaiting.get(key)?.();
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

/**
 * The database cannot be reached or opened (server down, wrong host, password or database
 * name): the operator's to fix, so its message says where and why without a stack.
 */
export class DatabaseUnavailableError extends Error {
  /** `cause` keeps the driver's error, whose code says what went wrong (e.g. 28000, no such role). */
  constructor(location: string, reason: string, cause?: unknown) {
    super(`Cannot open the database ${location}: ${reason}`, { cause });
    this.name = "DatabaseUnavailableError";
  }
}

/** Errors of connecting rather than of a statement: node's socket codes and PostgreSQL's 08/28/3D. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" &&
    (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH)$/.test(code) ||
      /^(08|28|3D)/.test(code))
  );
}

/**
 * Whether a statement failed because the database cannot be reached now rather than because of
 * the statement: a connection refused or lost, the server shutting down or starting
 * (57P01–57P03), too many connections (53300), connections turned off (55000 "not currently
 * accepting connections"). A request that meets one is a 503 to retry, not a fault of ours.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as { message?: unknown } | null)?.message ?? "");
  if (typeof code === "string") {
    return (
      /^(57P0[123]|53300)$/.test(code) ||
      (code === "55000" && message.includes("not currently accepting connections"))
    );
  }
  // pg's own errors of a connection lost mid-use carry no code.
  return /^Connection terminated|connection error and is not queryable/.test(message);
}

/** A database this release must not migrate; nothing was changed. `hint` says what to do. */
export abstract class IncompatibleDatabaseError extends Error {
  abstract readonly hint: string;
}

/**
 * The database was migrated by a newer release (a downgrade, or an old instance restarting
 * during a rolling upgrade): this one does not know its tables and changes nothing.
 */
export class NewerDatabaseError extends IncompatibleDatabaseError {
  readonly hint =
    "Run the version that migrated it (every instance of a rolling upgrade on the new release).";
  constructor(readonly migration: string) {
    super(
      `The database was migrated by a newer version of reseller (migration ${migration} is unknown to this one); nothing was changed.`,
    );
    this.name = "NewerDatabaseError";
  }
}

/**
 * The database holds another application's tables (a mistyped --db or DATABASE_URL): migrating
 * would add the service's tables beside them, so it is left as it is.
 */
export class ForeignDatabaseError extends IncompatibleDatabaseError {
  readonly hint =
    "Give reseller a database of its own: a new file for --db, or an empty PostgreSQL database (e.g. `createdb reseller`).";
  constructor(readonly tables: string[]) {
    const shown = tables.slice(0, 3).join(", ");
    super(
      `The database holds tables that are not reseller's (${shown}${tables.length > 3 ? `, and ${tables.length - 3} more` : ""}) and no record of reseller's migrations; nothing was changed.`,
    );
    this.name = "ForeignDatabaseError";
  }
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

/** Connections per instance: several instances share the server's `max_connections` (100). */
const poolSize = 10;

/**
 * How long a statement waits for one of the pool's connections. Without a limit, a pool whose
 * every connection stays held (a leak, or transactions waiting on each other through the pool)
 * makes the work wait forever without a word; with it the work fails and says why.
 */
const poolWaitLimitMs = 30_000;

/**
 * How long the server lets a connection sit inside a transaction with no statement running. A
 * transaction left open by a caller that is stuck would otherwise keep its row locks, and every
 * writer of those rows (another instance taking an import over) would wait for it forever.
 */
const idleInTransactionLimitMs = 60_000;

/** Every connection of the instance's pool stayed in use past the wait limit: nothing ran. */
export class PoolExhaustedError extends Error {
  constructor(cause: unknown) {
    super(
      `all ${poolSize} PostgreSQL connections of this instance stayed in use for ${poolWaitLimitMs / 1000} s; the statement was not run`,
      { cause },
    );
    this.name = "PoolExhaustedError";
  }
}

/** The pool's own timeout, said as what it means for this service. */
function poolWaitError(error: unknown) {
  // pg-pool's wording for a checkout that waited past connectionTimeoutMillis.
  if (!/timeout exceeded when trying to connect/.test(String(error))) return error;
  return new PoolExhaustedError(error);
}

async function openPostgres(url: string): Promise<Db> {
  const { default: pg } = await import("pg");
  // Counts and sums come back as int8/numeric, which node-postgres hands over as strings; every
  // count here is far below 2^53, so they are numbers, as on SQLite.
  const asNumber = (value: string) => Number(value);
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
        ? asNumber
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url,
    application_name: connectionName(),
    max: poolSize,
    types,
    connectionTimeoutMillis: poolWaitLimitMs,
    idle_in_transaction_session_timeout: idleInTransactionLimitMs,
  });
  // An idle connection the server drops (restart, failover) must not crash the process.
  pool.on("error", () => {});
  const listening = new WeakSet<object>();
  const checkouts = {
    async connect() {
      const client = await pool.connect().catch((error: unknown) => {
        throw poolWaitError(error);
      });
      // Nor one the server ends while it is checked out (idle in a transaction too long), which
      // the pool no longer listens to then: the statement in hand fails, the pool drops it.
      if (!listening.has(client)) {
        listening.add(client);
        client.on("error", () => {});
      }
      return client;
    },
    end: () => pool.end(),
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: checkouts }) });
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
