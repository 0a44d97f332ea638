import type BetterSqlite3 from "better-sqlite3";

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
export function copyLogBack(sqlite: BetterSqlite3.Database): boolean {
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
export function handLogBack(sqlite: BetterSqlite3.Database): void {
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
export const autocheckpointPages = 4000;

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
