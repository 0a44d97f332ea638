import { spawn } from "node:child_process";
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { parse } from "csv-parse";
import { parse as parseSync } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import iconv from "iconv-lite";
import { bin, cleanEnv, percentile, startService } from "./support.js";
import { worldCsv } from "./world-contacts.js";

/** Resident memory of a process now and at its peak (VmRSS, VmHWM), in MB. */
function memoryMb(pid: number | undefined): { rss: number; peak: number } | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const mb = (key: string) =>
      Math.round(Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
    return { rss: mb("VmRSS"), peak: mb("VmHWM") };
  } catch {
    return null;
  }
}

/** Peak resident memory of a process (VmHWM), in MB. */
export function peakRssMb(pid: number | undefined): number | null {
  return memoryMb(pid)?.peak ?? null;
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
 * The bare work, as the issue defines it: csv-parse over the same file and a plain
 * `INSERT … ON CONFLICT(phone) DO UPDATE` into a table with only a primary key and
 * UNIQUE(phone), WAL, synchronous=NORMAL, 10,000-row transactions. No validation, no search
 * index, no tags, no counters: what any importer of this file must at least do.
 */
async function bareRate(file: string, dir: string): Promise<number> {
  const dbFile = join(dir, "bare.db");
  const db = new BetterSqlite3(dbFile);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE contacts (id INTEGER PRIMARY KEY, phone TEXT NOT NULL UNIQUE,
    first_name TEXT, last_name TEXT, email TEXT, tags TEXT, opt_in_status TEXT, city TEXT)`);
  const upsert = db.prepare(
    `INSERT INTO contacts (phone, first_name, last_name, email, tags, opt_in_status, city)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(phone) DO UPDATE SET first_name = excluded.first_name,
     last_name = excluded.last_name, email = excluded.email, tags = excluded.tags,
     opt_in_status = excluded.opt_in_status, city = excluded.city`,
  );
  const write = db.transaction((batch: string[][]) => {
    for (const r of batch) upsert.run(r[0], r[1], r[2], r[3], r[4], r[5], r[9]);
  });
  const started = performance.now();
  let rows = 0;
  let batch: string[][] = [];
  const parser = createReadStream(file).pipe(parse({ from_line: 2, relax_column_count: true }));
  for await (const record of parser as AsyncIterable<string[]>) {
    batch.push(record);
    rows += 1;
    if (batch.length === 10_000) {
      write(batch);
      batch = [];
    }
  }
  write(batch);
  const rate = rows / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

/** The CSV of the benchmark: contacts of many countries in random order, 0.5% bad phones. */
export function benchCsv(rows: number): Buffer {
  return worldCsv(rows);
}

/** Runs `reseller contacts import FILE …` against the service, sampling `probe` while it runs. */
export async function importThroughCli(
  service: { url: string; token: string },
  workspaceId: string,
  file: string,
  dir: string,
  args: string[],
  probe: () => Promise<number>,
) {
  const started = performance.now();
  const cli = spawn(process.execPath, [bin, "contacts", "import", file, "--json", ...args], {
    env: cleanEnv({
      RESELLER_BASE_URL: service.url,
      RESELLER_TOKEN: service.token,
      RESELLER_WORKSPACE: workspaceId,
      RESELLER_CONFIG_DIR: dir,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  cli.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  cli.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let cliPeak = 0;
  const exited = new Promise<number | null>((resolve) => cli.on("exit", resolve));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const during: number[] = [];
  while (running) {
    cliPeak = Math.max(cliPeak, memoryMb(cli.pid)?.peak ?? 0);
    during.push(await probe());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const code = await exited;
  return { code, stdout, stderr, cliPeak, during, seconds: (performance.now() - started) / 1000 };
}

/** Outlook-style headers for the same rows, mapped back with --map as a user would. */
const outlookHeaders: Record<string, string> = {
  phone: "Mobile Phone",
  first_name: "First Name",
  last_name: "Last Name",
  email: "E-mail Address",
  tags: "Categories",
};

/**
 * The same rows as a German Excel user saves them: `;`-separated, Windows-1252, Outlook-style
 * headers; with the `--map`, `--delimiter` and `--encoding` flags that import them.
 */
function spreadsheetVariant(csv: Buffer): { bytes: Buffer; args: string[] } {
  const records = parseSync(csv, { relax_column_count: true }) as string[][];
  const header = records[0] ?? [];
  records[0] = header.map((name) => outlookHeaders[name] ?? name);
  const args = ["--delimiter", ";", "--encoding", "windows-1252"];
  for (const [field, name] of Object.entries(outlookHeaders))
    args.push("--map", `${name}=${field}`);
  return { bytes: iconv.encode(stringify(records, { delimiter: ";" }), "windows-1252"), args };
}

const round = (n: number) => Number(n.toFixed(1));

/**
 * A CSV imported end to end through `reseller contacts import` (streamed upload, background job)
 * against a running `reseller serve`, beside the bare work on the same file in the same run.
 * GET /api/v1/plans is sampled every 50 ms while the import runs: its latency is what any
 * request waits behind the import. The service's event-loop delay over the import comes from
 * Node's own histogram in the service's main thread (bench/loop-delay-probe.mjs).
 */
export async function contactsImport(rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000)) {
  const dir = mkdtempSync(join(tmpdir(), "reseller-bench-import-"));
  const file = join(dir, "contacts.csv");
  const csv = benchCsv(rows);
  writeFileSync(file, csv);
  const csvMb = csv.length / 1048576;
  const bare = await bareRate(file, dir);
  const service = await startService(["--rate-limit", "100000000/1m"]);
  try {
    const workspace = await api(service.url, service.token, "POST", "/api/v1/workspaces", {
      name: "Bench",
      contact_email: "bench@example.test",
      send_invitation: false,
    });
    const plans = async () => {
      const started = performance.now();
      await api(service.url, service.token, "GET", "/api/v1/plans");
      return performance.now() - started;
    };
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push(await plans());

    await service.loopDelay(); // starts the measurement with the import
    const plain = await importThroughCli(service, String(workspace.id), file, dir, [], plans);
    const loop = await service.loopDelay();
    const { code, stdout, stderr, cliPeak, during } = plain;
    const seconds = plain.seconds;
    const record = (code === 0 ? JSON.parse(stdout) : {}) as Record<string, number | string>;
    // The same rows again, as a spreadsheet saves them: mapping and decoding on.
    const variant = spreadsheetVariant(csv);
    const variantFile = join(dir, "contacts-excel.csv");
    writeFileSync(variantFile, variant.bytes);
    const other = await api(service.url, service.token, "POST", "/api/v1/workspaces", {
      name: "Bench spreadsheet",
      contact_email: "bench@example.test",
      send_invitation: false,
    });
    const mapped = await importThroughCli(
      service,
      String(other.id),
      variantFile,
      dir,
      variant.args,
      plans,
    );
    const mappedRecord = (mapped.code === 0 ? JSON.parse(mapped.stdout) : {}) as Record<
      string,
      number | string
    >;
    const mappedRatio = rows / mapped.seconds / bare;
    const rate = rows / seconds;
    const servicePeak = peakRssMb(service.child.pid);
    const ratio = rate / bare;
    const p99 = percentile(during, 99);
    const max = Math.max(...during);
    return {
      name: `contact import of ${rows.toLocaleString("en-US")} CSV rows (${round(csvMb)} MB) through \`reseller contacts import\` and a running serve`,
      note: "one run on a shared 2-core machine: figures are noisy; the ratio compares two rates of the same run",
      cli_exit: code,
      cli_error: code === 0 ? undefined : stderr.slice(0, 500),
      seconds: round(seconds),
      import_rows_per_s: Math.round(rate),
      bare_upsert_rows_per_s: Math.round(bare),
      ratio: Number(ratio.toFixed(2)),
      ratio_goal: ">= 0.5",
      status: record.status,
      created: record.created,
      error_count: record.error_count,
      service_peak_rss_mb: servicePeak,
      service_peak_rss_goal: "< 1024",
      cli_peak_rss_mb: cliPeak,
      cli_peak_rss_goal: "< 300",
      plans_idle_p99_ms: round(percentile(idle, 99)),
      plans_during_import_p99_ms: round(p99),
      plans_during_import_p99_goal: "< 50",
      plans_during_import_max_ms: round(max),
      plans_samples: during.length,
      event_loop_delay_during_import_max_ms: loop.max_ms,
      event_loop_delay_during_import_max_goal: "< 100",
      event_loop_delay_during_import_p99_ms: loop.p99_ms,
      mapped_import: {
        what: "the same rows `;`-separated in Windows-1252 with Outlook headers, imported with --map --delimiter --encoding",
        cli_exit: mapped.code,
        cli_error: mapped.code === 0 ? undefined : mapped.stderr.slice(0, 500),
        import_rows_per_s: Math.round(rows / mapped.seconds),
        ratio: Number(mappedRatio.toFixed(2)),
        ratio_goal: ">= 0.5",
        status: mappedRecord.status,
        created: mappedRecord.created,
        error_count: mappedRecord.error_count,
      },
      misses: [
        ratio >= 0.5 ? null : "ratio",
        servicePeak !== null && servicePeak < 1024 ? null : "service RSS",
        cliPeak < 300 ? null : "CLI RSS",
        p99 < 50 ? null : "plans p99",
        loop.max_ms < 100 ? null : "event-loop delay max",
        record.status === "completed" ? null : "import did not complete",
        mappedRatio >= 0.5 ? null : "mapped import ratio",
        mappedRecord.status === "completed" ? null : "mapped import did not complete",
      ].filter((m) => m !== null),
    };
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
