import type BetterSqlite3 from "better-sqlite3";
import { type RawBuilder, sql } from "kysely";
import { redactedUrl } from "../../contract/redacted-url.js";
import { bootstrapLock } from "../bootstrap.js";
import { defaultHeartbeatMs } from "../jobs/instances.js";
import { defaultDeadAfterMs } from "./connection-names.js";
import type { ContactRow } from "./contact-rows/contact-rows.js";
import { searchTermsText } from "./contact-rows/postgres-contact-rows.js";
import { type Db, migrationTable, openDatabase } from "./database.js";
import { migrationProvider } from "./migrations/index.js";
import { lockNamed } from "./write-conflicts.js";

/**
 * `reseller admin copy`: a whole SQLite deployment moved into an empty PostgreSQL database.
 *
 * The source is read through better-sqlite3, read-only, inside one read transaction (one
 * snapshot even if a process still writes it). The target is migrated first, then filled in
 * ONE transaction: a failure anywhere, or row counts that differ at the end, roll it back and
 * leave the target as empty as it was. Rows are copied as they are stored (tokens are hashes,
 * so they keep working); only what exists on one engine alone is left out or derived: the FTS5
 * tables and SQLite's bookkeeping are skipped, and PostgreSQL's `contacts.search_terms` is
 * computed with the contact writer's own function, so search finds the same contacts.
 */

/** One table's row count on each side, once the copy is done. */
export interface TableCount {
  table: string;
  source: number;
  target: number;
}

/** An identity column whose sequence was moved past the copied ids. */
export interface SequenceReset {
  table: string;
  column: string;
  /** The sequence's value now (the next id is one more); null when the table is empty. */
  value: number | null;
}

export interface CopyReport {
  /** The SQLite file. */
  from: string;
  /** The PostgreSQL URL without its password. */
  to: string;
  /** Whether the rows were committed (false: counts differed and everything was rolled back). */
  copied: boolean;
  /** Migrations the target was brought to before copying (usually all of them). */
  migrationsApplied: string[];
  tables: TableCount[];
  sequences: SequenceReset[];
}

/** A copy refused before any row was written: the target holds rows, or the source is not current. */
export class CopyRefusedError extends Error {
  constructor(
    /** Why, for scripts (`--json`'s error_code). */
    readonly code:
      | "target_not_empty"
      | "source_not_reseller"
      | "source_not_migrated"
      | "source_newer"
      | "source_in_use",
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "CopyRefusedError";
  }
}

/** Tables that exist on SQLite only: the FTS5 index and its shadow tables, SQLite's and Kysely's bookkeeping. */
function sqliteOnly(table: string): boolean {
  return /^(sqlite_|contacts_fts)/.test(table) || bookkeeping(table);
}

/** Kysely's own tables: written by the migrator on each side, never copied or counted. */
function bookkeeping(table: string): boolean {
  // The migration log and its lock table.
  return table.startsWith(migrationTable);
}

/** A column PostgreSQL has and SQLite does not: a text computed per row, then SQL over it. */
interface DerivedColumn {
  text(row: Record<string, unknown>): string;
  expression(column: string): RawBuilder<unknown>;
}

/**
 * The derived columns per table. The search terms are exactly those the contact writer stores
 * (searchTermsText), as lexemes taken verbatim.
 */
const derivedColumns: Record<string, Record<string, DerivedColumn>> = {
  contacts: {
    search_terms: {
      // The row is read from the contacts table with every column, so it is a ContactRow.
      text: (row) => searchTermsText(row as unknown as ContactRow),
      expression: (column) =>
        sql`array_to_tsvector(array_remove(string_to_array(${sql.ref(column)}, ' '), ''))`,
    },
  },
};

/** Rows per statement: each column travels as one array parameter, whatever the batch size. */
const maxBatchRows = 5_000;
/** Large values (import chunks) are sent a few megabytes at a time. */
const maxBatchBytes = 8 * 1024 * 1024;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface SourceTable {
  name: string;
  columns: string[];
  rows: number;
}

/** The SQLite side: its tables, their columns and counts, read within one snapshot. */
function readSourceLayout(source: BetterSqlite3.Database): {
  tables: SourceTable[];
  autoincrement: Map<string, number>;
} {
  const names = (
    source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  const tables = names
    .filter((name) => !sqliteOnly(name))
    .map((name) => ({
      name,
      columns: (
        source.prepare("SELECT name FROM pragma_table_info(?)").all(name) as {
          name: string;
        }[]
      ).map((c) => c.name),
      rows: (source.prepare(`SELECT count(*) AS n FROM ${quoted(name)}`).get() as { n: number }).n,
    }));
  // AUTOINCREMENT tables (plans) never reuse an id, even a deleted one's: the target continues after it.
  const autoincrement = new Map<string, number>();
  if (names.includes("sqlite_sequence")) {
    for (const row of source.prepare("SELECT name, seq FROM sqlite_sequence").all() as {
      name: string;
      seq: number;
    }[]) {
      autoincrement.set(row.name, row.seq);
    }
  }
  return { tables, autoincrement };
}

/** Refuses a source whose migrations differ from this version's: its tables would not match. */
async function checkSourceMigrations(source: BetterSqlite3.Database, from: string): Promise<void> {
  const known = Object.keys(await migrationProvider.getMigrations());
  const hasTable = source
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(migrationTable);
  if (!hasTable) {
    throw new CopyRefusedError(
      "source_not_reseller",
      `${from} is not a reseller database (it has no migration table).`,
      "Point --from at the file `reseller serve --db` uses.",
    );
  }
  const applied = new Set(
    (source.prepare(`SELECT name FROM ${migrationTable}`).all() as { name: string }[]).map(
      (r) => r.name,
    ),
  );
  const missing = known.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new CopyRefusedError(
      "source_not_migrated",
      `${from} lacks migrations of this version: ${missing.join(", ")}.`,
      `Bring it up to date first: reseller admin migrate --db ${from}`,
    );
  }
  const unknown = [...applied].filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new CopyRefusedError(
      "source_newer",
      `${from} was written by a newer version of reseller (migrations ${unknown.join(", ")}).`,
      "Run admin copy with the version that serves this database.",
    );
  }
}

/**
 * Refuses a source a running `serve` still writes to: what it writes after the snapshot would
 * never reach PostgreSQL, and the operator would start the new deployment without it. A recent
 * heartbeat alone does not tell: a backup of a running service (`sqlite3 … ".backup"`) carries
 * its instance's last one. So a recent heartbeat is read again once the next would be due; only
 * one that moved is a serve at work.
 */
async function refuseLiveSource(source: BetterSqlite3.Database, from: string): Promise<void> {
  const heartbeats = () =>
    new Map(
      (
        source.prepare("SELECT id, last_seen_at FROM instances").all() as {
          id: string;
          last_seen_at: string;
        }[]
      ).map((r) => [r.id, r.last_seen_at]),
    );
  const before = heartbeats();
  const recent = [...before].filter(
    ([, seen]) => Date.now() - Date.parse(seen) < defaultDeadAfterMs,
  );
  if (recent.length === 0) return;
  // Two heartbeats' time: a serve under load may beat late, and a live one missed is a copy
  // without what it writes next. Bounded, whatever a skewed clock wrote as last seen.
  const longest = 2 * defaultHeartbeatMs + 1000;
  const latest = Math.max(...recent.map(([, seen]) => Date.parse(seen)));
  const wait = Math.min(longest, latest + longest - Date.now());
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const after = heartbeats();
  const live = [...after].find(([id, seen]) => before.get(id) !== seen);
  if (!live) return;
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(live[1])) / 1000));
  throw new CopyRefusedError(
    "source_in_use",
    `${from} is in use: a reseller serve on it (instance ${live[0]}) was alive ${seconds} s ago.`,
    `Stop every serve on the file (SIGTERM) first: what it wrote after the copy would not reach PostgreSQL. A serve that was killed counts as gone ${defaultDeadAfterMs / 1000} s after its last heartbeat.`,
  );
}

interface TargetColumn {
  table_name: string;
  column_name: string;
}

/** A target table: its columns in order, with their PostgreSQL types (`udt_name`). */
type TargetTable = Map<string, string>;

/** The PostgreSQL side: tables with their columns, and which table references which. */
async function readTargetLayout(db: Db): Promise<{
  columns: Map<string, TargetTable>;
  references: { child: string; parent: string }[];
  identities: TargetColumn[];
}> {
  const { rows } = await sql<TargetColumn & { identity: boolean; udt_name: string }>`SELECT
      c.table_name, c.column_name, c.udt_name, (c.is_identity = 'YES' OR c.column_default LIKE 'nextval(%') AS identity
    FROM information_schema.columns c
    JOIN information_schema.tables t
      ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`.execute(db);
  const columns = new Map<string, TargetTable>();
  for (const row of rows) {
    if (bookkeeping(row.table_name)) continue;
    const table = columns.get(row.table_name) ?? new Map<string, string>();
    table.set(row.column_name, row.udt_name);
    columns.set(row.table_name, table);
  }
  const references = await sql<{ child: string; parent: string }>`SELECT child.relname AS child,
      parent.relname AS parent
    FROM pg_constraint k
    JOIN pg_class child ON child.oid = k.conrelid
    JOIN pg_class parent ON parent.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = k.connamespace
    WHERE k.contype = 'f' AND n.nspname = current_schema()`.execute(db);
  return {
    columns,
    references: references.rows,
    identities: rows.filter((r) => r.identity && !bookkeeping(r.table_name)),
  };
}

/** Tables ordered so that every table comes after those its foreign keys point at. */
function foreignKeyOrder(
  tables: string[],
  references: { child: string; parent: string }[],
): string[] {
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (placed.has(table)) return;
    if (visiting.has(table)) throw new Error(`foreign keys form a cycle through ${table}`);
    visiting.add(table);
    for (const { child, parent } of references) {
      if (child === table && parent !== table && tables.includes(parent)) visit(parent);
    }
    visiting.delete(table);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of [...tables].sort()) visit(table);
  return ordered;
}

function byteSize(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (Buffer.isBuffer(value)) return value.length;
  return 8;
}

/**
 * Copies one table's rows in batches; answers how many were written. A batch is one
 * `INSERT … SELECT FROM unnest(<one array per column>)`: a handful of parameters instead of one
 * per value, which PostgreSQL parses and binds several times faster than a long VALUES list.
 */
async function copyTable(
  trx: Db,
  source: BetterSqlite3.Database,
  table: string,
  columns: string[],
  types: TargetTable,
  derived: Record<string, DerivedColumn>,
  onRows: (written: number) => void,
): Promise<number> {
  const derivedNames = Object.keys(derived);
  const names = [...columns, ...derivedNames];
  const typeOf = (name: string) => (derivedNames.includes(name) ? "text" : types.get(name));
  // Integers as BigInt: ids and counters arrive exactly, whatever their size.
  const rows = source
    .prepare(`SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)}`)
    .safeIntegers(true)
    .iterate() as IterableIterator<Record<string, unknown>>;
  const target = sql.join(names.map((n) => sql.ref(n)));
  const selected = sql.join(
    names.map((n) =>
      derivedNames.includes(n) ? (derived[n] as DerivedColumn).expression(n) : sql.ref(n),
    ),
  );
  let written = 0;
  let arrays: unknown[][] = names.map(() => []);
  let count = 0;
  let bytes = 0;
  const flush = async () => {
    if (count === 0) return;
    const parameters = arrays.map(
      (values, i) =>
        sql`${values}::${sql.raw(`${quoted(typeOf(names[i] as string) ?? "text")}[]`)}`,
    );
    await sql`INSERT INTO ${sql.table(table)} (${target}) SELECT ${selected}
      FROM unnest(${sql.join(parameters)}) AS r(${target})`.execute(trx);
    written += count;
    onRows(written);
    arrays = names.map(() => []);
    count = 0;
    bytes = 0;
  };
  for (const row of rows) {
    columns.forEach((column, i) => {
      const value = row[column];
      bytes += byteSize(value);
      arrays[i]?.push(value);
    });
    derivedNames.forEach((name, i) => {
      arrays[columns.length + i]?.push((derived[name] as DerivedColumn).text(row));
    });
    count++;
    if (count >= maxBatchRows || bytes >= maxBatchBytes) await flush();
  }
  await flush();
  return written;
}

/** Rows the target's tables hold, for the tables that hold any. */
async function tablesWithRows(trx: Db, tables: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM ${sql.table(
      table,
    )}) AS any`.execute(trx);
    if (rows[0]?.any) found.push(table);
  }
  return found;
}

/** Refuses a target whose tables (any of its schema's, bar the migration log) hold rows. */
async function refuseOccupiedTarget(to: string): Promise<void> {
  const probe = await openDatabase(to, { migrate: false });
  try {
    const { rows } = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema()
      ORDER BY tablename`.execute(probe.db);
    const occupied = await tablesWithRows(
      probe.db,
      rows.map((r) => r.name).filter((name) => !bookkeeping(name)),
    );
    if (occupied.length > 0) {
      throw new CopyRefusedError(
        "target_not_empty",
        `${redactedUrl(to)} is not empty: ${occupied.join(", ")} already hold rows. Nothing was copied or changed.`,
        "admin copy only fills an empty database: create a new one (createdb) and do not start `serve` on it before the copy.",
      );
    }
  } finally {
    await probe.close();
  }
}

async function countRows(trx: Db, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(
    trx,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Thrown inside the target's transaction to roll it back when the counts differ. */
class CountsDiffer extends Error {
  constructor(readonly tables: TableCount[]) {
    super("row counts differ");
  }
}

/**
 * Copies the SQLite deployment at `from` into the empty PostgreSQL database at `to`: migrates
 * the target, refuses it when any table has rows, copies every table in foreign-key order in one
 * transaction, moves identity sequences past the copied ids, and verifies every table's count.
 */
export async function copyDatabase(options: {
  from: string;
  to: string;
  /** Told how many rows of a table are written so far (for progress lines). */
  onProgress?: (table: string, written: number, total: number) => void;
}): Promise<CopyReport> {
  const { default: BetterSqlite3 } = await import("better-sqlite3");
  const source = new BetterSqlite3(options.from, { readonly: true, fileMustExist: true });
  try {
    await checkSourceMigrations(source, options.from);
    await refuseLiveSource(source, options.from);
    // One snapshot for the counts and every row (WAL readers see a fixed state until COMMIT).
    source.exec("BEGIN");
    const layout = readSourceLayout(source);
    // Looked at before migrating it: a database in use (another version of this service, or
    // another application's) must be refused without a single change.
    await refuseOccupiedTarget(options.to);
    const target = await openDatabase(options.to);
    try {
      const migrationsApplied = target.applied;
      const targetLayout = await readTargetLayout(target.db);
      const targetTables = [...targetLayout.columns.keys()];
      for (const table of layout.tables) {
        const columns = targetLayout.columns.get(table.name);
        if (!columns)
          throw new Error(`table ${table.name} of ${options.from} is missing on PostgreSQL`);
        const missing = table.columns.filter((c) => !columns.has(c));
        if (missing.length > 0) {
          throw new Error(`columns ${table.name}.${missing.join(", ")} are missing on PostgreSQL`);
        }
      }
      const sourceTables = new Map(layout.tables.map((t) => [t.name, t]));
      const order = foreignKeyOrder(targetTables, targetLayout.references);
      try {
        return await target.db.transaction().execute(async (trx) => {
          // A `serve` starting meanwhile would find no account and create one: it waits for
          // this lock (bootstrap.ts takes it) and then finds the copied accounts instead.
          await lockNamed(trx, bootstrapLock);
          // Nobody writes these tables until the copy commits or rolls back; reads go on.
          await sql`LOCK TABLE ${sql.join(order.map((t) => sql.table(t)))} IN SHARE ROW EXCLUSIVE MODE`.execute(
            trx,
          );
          const occupied = await tablesWithRows(trx, order);
          if (occupied.length > 0) {
            throw new CopyRefusedError(
              "target_not_empty",
              `${redactedUrl(options.to)} is not empty: ${occupied.join(", ")} already hold rows. Nothing was copied.`,
              "admin copy only fills an empty database: create a new one (createdb) and do not start `serve` on it before the copy.",
            );
          }
          for (const table of order) {
            const from = sourceTables.get(table);
            if (!from || from.rows === 0) continue;
            options.onProgress?.(table, 0, from.rows);
            try {
              await copyTable(
                trx,
                source,
                table,
                from.columns,
                targetLayout.columns.get(table) ?? new Map(),
                derivedColumns[table] ?? {},
                (n) => options.onProgress?.(table, n, from.rows),
              );
            } catch (error) {
              throw new Error(
                `copying ${table} failed: ${(error as Error).message}. The target was rolled back: it is as empty as before.`,
                { cause: error },
              );
            }
          }
          const sequences: SequenceReset[] = [];
          for (const { table_name: table, column_name: column } of targetLayout.identities) {
            const floor = layout.autoincrement.get(table) ?? null;
            const { rows } = await sql<{ value: number | null }>`SELECT setval(
                pg_get_serial_sequence(${quoted(table)}, ${column}),
                greatest((SELECT max(${sql.ref(column)}) FROM ${sql.table(table)}), ${floor}::bigint)
              ) AS value`.execute(trx);
            sequences.push({ table, column, value: rows[0]?.value ?? null });
          }
          const tables: TableCount[] = [];
          for (const table of [...new Set([...sourceTables.keys(), ...targetTables])].sort()) {
            tables.push({
              table,
              source: sourceTables.get(table)?.rows ?? 0,
              target: await countRows(trx, table),
            });
          }
          if (tables.some((t) => t.source !== t.target)) throw new CountsDiffer(tables);
          return {
            from: options.from,
            to: redactedUrl(options.to),
            copied: true,
            migrationsApplied,
            tables,
            sequences,
          };
        });
      } catch (error) {
        if (!(error instanceof CountsDiffer)) throw error;
        return {
          from: options.from,
          to: redactedUrl(options.to),
          copied: false,
          migrationsApplied,
          tables: error.tables,
          sequences: [],
        };
      }
    } finally {
      await target.close();
    }
  } finally {
    if (source.inTransaction) source.exec("COMMIT");
    source.close();
  }
}
