import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { defaultDeadAfterMs, processOfConnection } from "./connection-names.js";
import type { Db } from "./database.js";
import { engineOf, sqliteHandleOf } from "./engine.js";
import { withoutLockWaits } from "./sqlite-writer-turns.js";

/**
 * Serialises the transactions that check a workspace's state and then write (plan limits, a
 * template name taken): on PostgreSQL two instances, or two connections of one, would otherwise
 * both pass the check. SQLite runs one write transaction at a time already, so there it is free.
 * Take it before the transaction's first write. `NO KEY UPDATE` holds these transactions (and
 * updates of the workspace) one at a time but not a row that merely points at the workspace: a
 * foreign key's check takes `KEY SHARE`, which `FOR UPDATE` blocked, and two writers, each holding
 * that share and asking for this lock, deadlocked (a 503 for one of them).
 */
export async function lockWorkspaceRow(trx: Db, workspaceId: string): Promise<void> {
  if (engineOf(trx) !== "postgres") return;
  await sql`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR NO KEY UPDATE`.execute(trx);
}

/**
 * Holds a token's row until the transaction ends (PostgreSQL): a revocation of it on another
 * instance commits before the holder reads it or after the holder is done, never in between.
 */
export async function lockTokenRow(trx: Db, tokenId: string): Promise<void> {
  if (engineOf(trx) !== "postgres") return;
  await sql`SELECT id FROM tokens WHERE id = ${tokenId} FOR UPDATE`.execute(trx);
}

/**
 * Whether an error is the database refusing a write because a concurrent one won: a unique key
 * taken meanwhile, or (PostgreSQL) a serialization failure or deadlock. Nothing was written;
 * the request may simply be retried.
 */
export function isWriteConflict(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return (
    code === "23505" ||
    code === "40001" ||
    code === "40P01" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    code === "SQLITE_BUSY"
  );
}

/**
 * Holds a named lock until the transaction ends, so that a check-then-insert of something that
 * must exist once (a singleton job) runs one instance at a time on PostgreSQL. SQLite's writer
 * lock already serialises the transactions of one database file.
 */
export async function lockNamed(trx: Db, name: string): Promise<void> {
  if (engineOf(trx) !== "postgres") return;
  await sql`SELECT pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
}

/**
 * lockNamed that does not wait: false when another transaction holds the name (PostgreSQL).
 * SQLite's transaction holds the file's write lock already, so there it is always true.
 */
export async function tryLockNamed(trx: Db, name: string): Promise<boolean> {
  if (engineOf(trx) !== "postgres") return true;
  const { rows } = await sql<{
    locked: boolean;
  }>`SELECT pg_try_advisory_xact_lock(hashtext(${name})) AS locked`.execute(trx);
  return rows[0]?.locked === true;
}

/**
 * Runs `work` while holding a named lock across its own transactions, so that instances do it
 * one at a time: a one-time setup of instances starting together, a workspace's campaign batch.
 * PostgreSQL: a session advisory lock on one connection, which `work` then uses. SQLite: a
 * lease in the `settings` table (withSqliteLease), for processes sharing the file.
 */
export async function withNamedLock<T>(
  db: Db,
  name: string,
  work: (db: Db) => Promise<T>,
): Promise<T> {
  if (engineOf(db) !== "postgres") return withSqliteLease(db, name, work);
  return db.connection().execute(async (connection) => {
    await takeAdvisoryLock(connection, name);
    try {
      return await work(connection);
    } finally {
      await sql`SELECT pg_advisory_unlock(hashtext(${name}))`.execute(connection);
    }
  });
}

/** How long one wait for a named lock lasts before its holder is looked at. */
const lockWaitStep = "2s";

/**
 * Takes the session advisory lock `name` on `connection`, waiting in steps: after each, a holder
 * that is a dead instance's connection is ended. A session lock lives as long as its connection,
 * and the server keeps the connection of a frozen or cut-off instance (a stopped process, a host
 * gone from the network) until TCP gives up, two hours by default: every other instance waited
 * that long for the workspace's campaign sends, although its job had been taken over.
 */
async function takeAdvisoryLock(connection: Db, name: string): Promise<void> {
  for (;;) {
    try {
      await connection.transaction().execute(async (trx) => {
        await sql.raw(`SET LOCAL lock_timeout = '${lockWaitStep}'`).execute(trx);
        await sql`SELECT pg_advisory_lock(hashtext(${name}))`.execute(trx);
      });
      return;
    } catch (error) {
      // lock_not_available: the step is over and the lock still held.
      if ((error as { code?: unknown }).code !== "55P03") throw error;
      await endDeadHolder(connection, name);
    }
  }
}

/**
 * How long after its process started an instance writes its first heartbeat at most (the
 * migrations and set-up of a start come first): a heartbeat row started later is another
 * process's with the same pid (a container's pid 1 on a host of the same name).
 */
const firstBeatWithinMs = 60_000;

/**
 * Ends the server's connection that holds the advisory lock `name` in this database when it
 * belongs to a dead instance: one of this service's processes (its connections' application_name,
 * see connection-names.ts) whose heartbeats stopped past the time its jobs are taken over. A
 * process that never beat (one starting up) is left alone. The end is asked in one statement
 * that checks again that the same connection still holds the lock, so a connection that ended
 * meanwhile, and a pid the server gave another one since, is never ended.
 */
async function endDeadHolder(connection: Db, name: string): Promise<void> {
  // backend_start as text: a Date would drop its microseconds, and the check below compares it.
  const holders = await sql<{ pid: number; application_name: string; backend_start: string }>`
    SELECT l.pid, a.application_name, a.backend_start::text AS backend_start
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE ${holdsLock(name)}`.execute(connection);
  const staleBefore = new Date(Date.now() - defaultDeadAfterMs).toISOString();
  for (const holder of holders.rows) {
    const owner = processOfConnection(holder.application_name);
    if (!owner) continue;
    const beats = await connection
      .selectFrom("instances")
      .select("last_seen_at")
      .where("pid", "=", owner.pid)
      .where(sql<string>`left(md5(host), ${owner.hostKey.length})`, "=", owner.hostKey)
      .where("started_at", ">=", new Date(owner.startedMs).toISOString())
      .where("started_at", "<", new Date(owner.startedMs + firstBeatWithinMs).toISOString())
      .execute();
    if (beats.length === 0 || beats.some((beat) => beat.last_seen_at >= staleBefore)) continue;
    await sql`SELECT pg_terminate_backend(l.pid)
      FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE ${holdsLock(name)} AND l.pid = ${holder.pid}
        AND a.application_name = ${holder.application_name}
        AND a.backend_start::text = ${holder.backend_start}`.execute(connection);
  }
}

/** The condition on `pg_locks l` of a connection holding the advisory lock `name` here. */
function holdsLock(name: string) {
  return sql`l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = ((hashtext(${name})::bigint >> 32) & 4294967295)::oid
    AND l.objid = (hashtext(${name})::bigint & 4294967295)::oid`;
}

/**
 * How long a SQLite lease lasts: a process that died holding one frees it then. A holder whose
 * work outlasts it shares the name with the next (SQLite has no lock that outlives a transaction
 * and dies with its process); a campaign batch takes well under a second in the sandbox.
 */
export const sqliteLeaseMs = 60_000;

/**
 * `work` under a lease on `name` that every process on the SQLite file respects: a row
 * `lock:<name>` in `settings` holding its expiry and holder, taken by an upsert that only
 * replaces an expired one, and deleted after. Another process's holder is waited for in steps
 * of 5 ms (this process's own are queued by inTurn before they get here).
 */
async function withSqliteLease<T>(db: Db, name: string, work: (db: Db) => Promise<T>): Promise<T> {
  const key = `lock:${name}`;
  const holder = randomUUID();
  let held: string;
  for (;;) {
    const now = Date.now();
    held = `${now + sqliteLeaseMs}:${holder}`;
    // CAST reads the expiry before the ':' (SQLite takes a text's leading number).
    const taken = await sql`INSERT INTO settings (key, value) VALUES (${key}, ${held})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value
      WHERE CAST(settings.value AS INTEGER) <= ${now}`.execute(db);
    if (Number(taken.numAffectedRows ?? 0) > 0) break;
    await sleep(5);
  }
  try {
    return await work(db);
  } finally {
    await sql`DELETE FROM settings WHERE key = ${key} AND value = ${held}`.execute(db);
  }
}

/** The holders of each name in this process, per database: each waits for the one before. */
const turns = new WeakMap<Db, Map<string, Promise<void>>>();

/**
 * Runs `work` once every earlier holder of `name` has finished, in this process (where awaits
 * interleave two jobs' reads and writes on one connection) and across processes or instances
 * (withNamedLock). For a check that must see the writes of the work before it, such as a
 * workspace's message quota read before a batch goes out and counted once it has.
 */
export async function inTurn<T>(db: Db, name: string, work: (db: Db) => Promise<T>): Promise<T> {
  let byName = turns.get(db);
  if (!byName) {
    byName = new Map();
    turns.set(db, byName);
  }
  const before = byName.get(name) ?? Promise.resolve();
  let done = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const mine = before.then(() => finished);
  byName.set(name, mine);
  await before;
  try {
    return await withNamedLock(db, name, work);
  } finally {
    done();
    if (byName.get(name) === mine) byName.delete(name);
  }
}

/** What `unlessLocked` answers when another connection held SQLite's write lock. */
export const lockedOut = Symbol("locked out");

/**
 * Runs a write that can wait for a later try (bookkeeping such as rate-limit counts) without
 * sleeping on SQLite's write lock: while another connection holds it (an import's worker
 * thread), the service's thread would stop answering requests for the batch it is writing.
 * Answers `lockedOut` then, and nothing was written. On PostgreSQL a wait never holds the event
 * loop, so the write simply runs.
 */
export async function unlessLocked<T>(
  db: Db,
  write: (connection: Db) => Promise<T>,
): Promise<T | typeof lockedOut> {
  if (engineOf(db) !== "sqlite") return write(db);
  const sqlite = sqliteHandleOf(db);
  // On the one connection, held: no other statement runs while the timeout is zero.
  return db.connection().execute(async (connection) => {
    const timeout = sqlite.pragma("busy_timeout", { simple: true }) as number;
    sqlite.pragma("busy_timeout = 0");
    try {
      return await withoutLockWaits(sqlite, () => write(connection));
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith("SQLITE_BUSY")) return lockedOut;
      throw error;
    } finally {
      sqlite.pragma(`busy_timeout = ${timeout}`);
    }
  });
}
