import type BetterSqlite3 from "better-sqlite3";
import type { Db } from "./database.js";
import { engineOf, sqliteHandleOf } from "./engine.js";

interface VersionStatements {
  dataVersion: BetterSqlite3.Statement<[], number>;
  changes: BetterSqlite3.Statement<[], number>;
}

const statements = new WeakMap<BetterSqlite3.Database, VersionStatements>();

/**
 * A value that differs from every earlier one once anything in the database may have changed,
 * or null when there is none to trust: on PostgreSQL (other instances write without telling),
 * and on SQLite while a transaction is open on the service's connection (its writes may yet be
 * rolled back). On SQLite it pairs the rows this connection has written (`total_changes()`, which
 * a rollback never lowers) with `data_version`, which moves at every commit of any other
 * connection: an import's worker thread, another process on the same file.
 */
export function dataVersionOf(db: Db): string | null {
  if (engineOf(db) !== "sqlite") return null;
  const sqlite = sqliteHandleOf(db);
  if (sqlite.inTransaction) return null;
  let read = statements.get(sqlite);
  if (!read) {
    // Two statements: the pragma alone costs about 2 µs, as a table-valued function twice that.
    read = {
      dataVersion: sqlite.prepare<[], number>("PRAGMA data_version").pluck(),
      changes: sqlite.prepare<[], number>("SELECT total_changes()").pluck(),
    };
    statements.set(sqlite, read);
  }
  try {
    return `${read.changes.get()}:${read.dataVersion.get()}`;
  } catch {
    // SQLITE_BUSY starting the read (another connection resetting the log): no version this
    // time, so the request reads its page as it would without the memo.
    return null;
  }
}
