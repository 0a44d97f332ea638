import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/service/db/database.js";
import { importBatchRows } from "../src/service/domain/contact-imports.js";
import { ContactWriter } from "../src/service/domain/contact-store.js";
import { generatedContact, generatedCsv } from "./contacts-data.js";
import { startService } from "./support.js";

/** Peak resident memory of a process (VmHWM), in MB. */
export function peakRssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function api(url: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { data: Record<string, unknown> };
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

/**
 * The same upserts the import makes (ContactWriter, batches of importBatchRows in one
 * transaction each) straight into better-sqlite3 on a fresh database, from rows already parsed
 * and checked: the ceiling an import through the API could reach.
 */
async function rawRate(rows: number): Promise<number> {
  const file = join(tmpdir(), `reseller-bench-raw-${process.pid}.db`);
  const handle = await openDatabase(file);
  try {
    const { sqlite } = handle;
    sqlite
      .prepare(
        "INSERT INTO resellers (id, name, created_at) VALUES ('rs_bench', 'bench', '2026-01-01T00:00:00Z')",
      )
      .run();
    sqlite
      .prepare(
        `INSERT INTO workspaces (id, reseller_id, name, contact_email, plan_id, status, created_at, updated_at)
         VALUES ('ws_bench', 'rs_bench', 'bench', 'a@b.test', NULL, 'active', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
      )
      .run();
    const context = { now: "2026-11-22T09:30:00Z", source: "import:imp_bench" };
    const started = performance.now();
    for (let start = 0; start < rows; start += importBatchRows) {
      sqlite.transaction(() => {
        const writer = new ContactWriter(sqlite, "ws_bench");
        for (let i = start; i < Math.min(rows, start + importBatchRows); i++) {
          const c = generatedContact(i);
          const changes = {
            first_name: c.first_name,
            last_name: c.last_name,
            email: c.email,
            tags: c.tags,
            opt_in_status: c.opt_in_status,
            custom_fields: { city: c.city },
          };
          const existing = writer.byPhone(c.phone);
          if (existing) writer.update(existing, changes, context);
          else writer.create(c.phone, changes, context);
        }
      })();
    }
    return rows / ((performance.now() - started) / 1000);
  } finally {
    await handle.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  }
}

/**
 * A 1,000,000-row CSV imported end to end through the API of a real `reseller serve`: upload,
 * background job, until the import reports completed. Beside it, the raw rate of the same
 * upserts, and the service's peak memory.
 */
export async function contactsImport(rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000)) {
  const csv = generatedCsv(rows);
  const raw = await rawRate(rows);
  const service = await startService(["--rate-limit", "100000000/1m"]);
  try {
    const workspace = await api(service.url, service.token, "POST", "/api/v1/workspaces", {
      name: "Bench",
      contact_email: "bench@example.test",
      send_invitation: false,
    });
    const path = `/api/v1/workspaces/${workspace.id}/contacts`;
    const started = performance.now();
    const queued = await api(service.url, service.token, "POST", `${path}/import`, {
      csv: csv.toString("base64"),
    });
    const accepted = performance.now();
    let record = queued;
    while (record.status === "queued" || record.status === "processing") {
      await new Promise((r) => setTimeout(r, 200));
      record = await api(service.url, service.token, "GET", `${path}/imports/${queued.id}`);
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = rows / seconds;
    const rss = peakRssMb(service.child.pid);
    return {
      name: `contact import of ${rows.toLocaleString("en-US")} CSV rows through the API`,
      csv_mb: Number((csv.length / 1048576).toFixed(1)),
      upload_ms: Math.round(accepted - started),
      seconds: Number(seconds.toFixed(1)),
      import_rows_per_s: Math.round(rate),
      raw_rows_per_s: Math.round(raw),
      ratio: Number((rate / raw).toFixed(2)),
      service_peak_rss_mb: rss,
      status: record.status,
      created: record.created,
      error_count: record.error_count,
      goal: "ratio >= 0.5, peak RSS < 1024 MB, every row created",
      pass: rate / raw >= 0.5 && rss !== null && rss < 1024 && record.created === rows,
    };
  } finally {
    await service.stop();
  }
}
