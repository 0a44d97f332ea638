import { createHash } from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";

/**
 * Tables any request may write, refused or not: stored Idempotency-Key answers (4xx answers
 * too), rate limit counts (refused requests count) and instance heartbeats.
 */
const bookkeeping = ["idempotency_keys", "rate_limit_buckets", "instances"];

/**
 * What a refused request must leave alone: the row count and a hash of the rows of every table,
 * except those given (bookkeeping such as stored Idempotency-Key answers, which legitimately
 * record 4xx answers too). FTS shadow tables are covered through their content.
 */
export function tableSnapshot(
  sqlite: BetterSqlite3.Database,
  ignore: readonly string[] = bookkeeping,
): Record<string, string> {
  const tables = sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all() as { name: string }[];
  const snapshot: Record<string, string> = {};
  for (const { name } of tables) {
    if (ignore.includes(name)) continue;
    // Sorted, so the hash does not depend on scan order (some tables are WITHOUT ROWID).
    const rows = (sqlite.prepare(`SELECT * FROM "${name}"`).raw().all() as unknown[])
      .map((row) => JSON.stringify(row, bigintSafe))
      .sort();
    const hash = createHash("sha1");
    for (const row of rows) hash.update(row);
    snapshot[name] = `${rows.length} rows ${hash.digest("hex").slice(0, 12)}`;
  }
  return snapshot;
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === "bigint"
    ? value.toString()
    : Buffer.isBuffer(value)
      ? value.toString("hex")
      : value;
}

/** The tables whose snapshot differs, as `table: before → after`. */
export function snapshotChanges(
  before: Record<string, string>,
  after: Record<string, string>,
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter((name) => before[name] !== after[name])
    .map((name) => `${name}: ${before[name] ?? "absent"} → ${after[name] ?? "absent"}`);
}

/**
 * Counts every row written (inserted, updated or deleted) in every table but those ignored,
 * through temporary triggers on this connection: a cheap "did anything change" for suites that
 * check thousands of requests. FTS shadow tables are left out; their content tables are watched.
 */
export function writeCounter(
  sqlite: BetterSqlite3.Database,
  ignore: readonly string[] = bookkeeping,
): () => number {
  const tables = sqlite
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    .all() as { name: string; sql: string }[];
  const virtual = tables.filter((t) => /^CREATE VIRTUAL/i.test(t.sql)).map((t) => `${t.name}_`);
  sqlite.exec("CREATE TEMP TABLE IF NOT EXISTS watched_writes (n INTEGER NOT NULL)");
  sqlite.exec("DELETE FROM temp.watched_writes; INSERT INTO temp.watched_writes VALUES (0)");
  for (const { name, sql } of tables) {
    if (ignore.includes(name) || /^CREATE VIRTUAL/i.test(sql)) continue;
    if (virtual.some((prefix) => name.startsWith(prefix))) continue;
    for (const event of ["INSERT", "UPDATE", "DELETE"]) {
      sqlite.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS "watch_${name}_${event}" AFTER ${event} ON main."${name}" BEGIN UPDATE temp.watched_writes SET n = n + 1; END`,
      );
    }
  }
  const read = sqlite.prepare("SELECT n FROM temp.watched_writes");
  return () => (read.get() as { n: number }).n;
}
