import { createHash } from "node:crypto";
import BetterSqlite3 from "better-sqlite3";
import { api } from "../helpers/campaign-world.js";

/** Polls `probe` until it returns a value, at most `timeoutMs`; never a fixed sleep. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 60_000, everyMs = 25 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface ImportRecord {
  id: string;
  status: string;
  total_rows: number;
  processed_rows: number;
  created: number;
  updated: number;
  skipped: number;
  error_count: number;
  errors: unknown[];
  ignored_columns: string[];
}

/**
 * A large CSV, the same on every call: `rows` data rows with names, emails, tags, a custom
 * field and consent; every 97th row repeats an earlier phone (one contact, the later row wins)
 * and every 211th has a phone that is no number (a row error).
 */
export function largeCsv(rows: number): Buffer {
  const lines = ["phone,first_name,last_name,email,tags,custom.city,opt_in_status,notes"];
  const cities = ["Berlin", "Köln", "München", "Zürich", "Wien"];
  const statuses = ["opted_in", "not_set", "opted_out"];
  for (let i = 0; i < rows; i++) {
    const n = i % 97 === 96 ? i - 50 : i;
    const phone = i % 211 === 210 ? `+00${i}` : `+49151${String(30_000_000 + n).padStart(8, "0")}`;
    const tags = `"vip${i % 7},batch${i % 13}"`;
    lines.push(
      `${phone},Ann${i},Muster${i % 1000},ann${i}@example.test,${tags},${cities[i % 5]},${statuses[i % 3]},note ${i}`,
    );
  }
  return Buffer.from(`${lines.join("\n")}\n`);
}

/** A fresh workspace on `url` and a started import of `csv` into it. */
export async function startImport(url: string, token: string, csv: Buffer) {
  const call = api(url, token);
  const ws = await call("POST", "/api/v1/workspaces", {
    name: "Import crash",
    contact_email: "crash@example.test",
    send_invitation: false,
  });
  const base = `/api/v1/workspaces/${ws.id}`;
  const imported = await call("POST", `${base}/contacts/import`, {
    csv: csv.toString("base64"),
    duplicate_handling: "update",
  });
  return { workspaceId: ws.id, importPath: `${base}/contacts/imports/${imported.id}` };
}

/** The import's record through the API of the service at `url`. */
export function importOf(url: string, token: string, importPath: string) {
  const call = api(url, token);
  return async () => (await call("GET", importPath)) as unknown as ImportRecord;
}

/** Waits for the import to end (completed or failed) and returns its record. */
export function finished(url: string, token: string, importPath: string, timeoutMs = 90_000) {
  const read = importOf(url, token, importPath);
  return until(
    "the import to finish",
    async () => {
      const record = await read();
      return record.status === "completed" || record.status === "failed" ? record : undefined;
    },
    { timeoutMs, everyMs: 100 },
  );
}

/** The counts of an import record that must not depend on how the import got there. */
export function countsOf(record: ImportRecord) {
  const { status, total_rows, processed_rows, created, updated, skipped, error_count } = record;
  return { status, total_rows, processed_rows, created, updated, skipped, error_count };
}

/**
 * What the import left in the database file, free of ids and times: every contact of the
 * workspace (phone, names, email, tags, custom fields, consent), the tags with their counts, the
 * consent counters and the row errors, each as a count and a hash.
 */
export function importedState(dbFile: string, workspaceId: string, importId: string) {
  const db = new BetterSqlite3(dbFile, { readonly: true });
  try {
    const digest = (sql: string, ...params: unknown[]) => {
      const rows = db
        .prepare(sql)
        .raw()
        .all(...params) as unknown[][];
      const hash = createHash("sha256");
      for (const row of rows) hash.update(JSON.stringify(row));
      return `${rows.length} rows ${hash.digest("hex").slice(0, 16)}`;
    };
    return {
      contacts: digest(
        // opt_in_source names the import (`import:imp_…`): the same import, whatever its id.
        "SELECT phone, first_name, last_name, email, tags, custom_fields, opt_in_status, replace(opt_in_source, ?, 'IMPORT'), opted_in_at IS NULL, opted_out_at IS NULL FROM contacts WHERE workspace_id = ? ORDER BY phone",
        importId,
        workspaceId,
      ),
      tags: digest(
        "SELECT name, contact_count FROM contact_tags WHERE workspace_id = ? ORDER BY name",
        workspaceId,
      ),
      counters: digest(
        "SELECT opt_in_status, count FROM contact_counts WHERE workspace_id = ? ORDER BY opt_in_status",
        workspaceId,
      ),
      errors: digest(
        "SELECT row, phone, field, message FROM contact_import_errors WHERE import_id = ? ORDER BY row",
        importId,
      ),
      links: digest(
        "SELECT count(*) FROM contact_tag_links l JOIN contact_tags t ON t.seq = l.tag_seq WHERE t.workspace_id = ?",
        workspaceId,
      ),
    };
  } finally {
    db.close();
  }
}
