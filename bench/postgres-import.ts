import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Agent } from "undici";
import { postgresCpuSeconds } from "./closed-loop.js";
import { benchCsv, importThroughCli, peakRssMb } from "./contacts-import.js";
import { queryMix } from "./contacts-queries.js";
import { benchDatabase } from "./postgres.js";
import { apiCaller, benchWorkspace } from "./service-api.js";
import { cpuSeconds, loadAverage, percentile, startServiceOn } from "./support.js";

/**
 * The bare work on PostgreSQL, as issue 12 defines it: a server-side `COPY` of the same CSV
 * file into a table with only a primary key and a unique phone. No validation, no search
 * terms, no tags, no counters.
 */
async function bareCopyRate(file: string, rows: number): Promise<number> {
  const database = await benchDatabase("bare");
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE contacts (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, phone TEXT NOT NULL UNIQUE,
      first_name TEXT, last_name TEXT, email TEXT, tags TEXT, opt_in_status TEXT,
      opt_in_source TEXT, opted_in_at TEXT, opted_out_at TEXT, city TEXT)`);
    const started = performance.now();
    await client.query(
      `COPY contacts (phone, first_name, last_name, email, tags, opt_in_status, opt_in_source,
        opted_in_at, opted_out_at, city) FROM '${file}' WITH (FORMAT csv, HEADER true)`,
    );
    const rate = rows / ((performance.now() - started) / 1000);
    const copied = await client.query<{ n: string }>("SELECT count(*) AS n FROM contacts");
    if (Number(copied.rows[0]?.n) !== rows)
      throw new Error(`COPY wrote ${copied.rows[0]?.n} rows of ${rows}`);
    return rate;
  } finally {
    await client.end();
    await database.drop();
  }
}

const round = (n: number) => Number(n.toFixed(1));

/** The median latency of each search term (queryMix sends its terms in turn). */
function byTerm(queries: Awaited<ReturnType<typeof queryMix>>): Record<string, number> {
  const terms: Record<string, number> = {};
  for (const [ms, list] of [
    [queries.selectiveSearch.ms, queries.selective],
    [queries.broadSearch.ms, queries.broad],
  ] as const) {
    list.forEach((term, t) => {
      terms[term] = round(
        percentile(
          ms.filter((_, i) => i % list.length === t),
          50,
        ),
      );
    });
  }
  return terms;
}

/**
 * Issue 12's import figure: a generated CSV (1,000,000 rows; BENCH_IMPORT_ROWS to size it down)
 * imported end to end through `reseller contacts import` against `serve --database <url>` on a
 * throwaway PostgreSQL cluster, beside a bare server-side COPY of the same file in the same run;
 * then list and search latency at that size through the same service (the query mix of
 * contacts-queries.ts, one connection).
 */
export async function postgresImport(rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000)) {
  const dir = mkdtempSync(join(tmpdir(), "reseller-bench-pg-import-"));
  // The server reads the file for COPY as the postgres user.
  chmodSync(dir, 0o755);
  const file = join(dir, "contacts.csv");
  const csv = benchCsv(rows);
  writeFileSync(file, csv, { mode: 0o644 });
  const csvMb = csv.length / 1048576;
  const loadBefore = loadAverage();
  const bare = await bareCopyRate(file, rows);
  const database = await benchDatabase("import");
  const service = await startServiceOn(
    ["--database", database.url],
    ["--rate-limit", "100000000/1m"],
  );
  const agent = new Agent({ connections: 1 });
  try {
    const workspace = await benchWorkspace(service.url, service.token);
    const call = apiCaller(service.url, service.token);
    const plans = async () => {
      const started = performance.now();
      await call("GET", "/api/v1/plans");
      return performance.now() - started;
    };
    const port = Number(new URL(database.url).port);
    const cpuBefore = {
      service: cpuSeconds(service.child.pid),
      postgres: postgresCpuSeconds(port),
    };
    const imported = await importThroughCli(service, workspace, file, dir, [], plans);
    const cores = (used: number) => Number((used / imported.seconds).toFixed(2));
    const importCpu = {
      service: cores(cpuSeconds(service.child.pid) - cpuBefore.service),
      postgres: cores(postgresCpuSeconds(port) - cpuBefore.postgres),
    };
    const record = (imported.code === 0 ? JSON.parse(imported.stdout) : {}) as Record<
      string,
      number | string
    >;
    // A failed import has no rate: its seconds measure how soon it failed.
    const completed = record.status === "completed";
    const rate = completed ? rows / imported.seconds : 0;
    const ratio = rate / bare;
    const loadAfterImport = loadAverage();
    const queries = completed
      ? await queryMix(agent, service.url, `/api/v1/workspaces/${workspace}/contacts`)
      : null;
    const listP99 = queries ? percentile(queries.list, 99) : null;
    const searchP99 = queries ? percentile(queries.search.ms, 99) : null;
    const non200 = queries
      ? queries.walk.non200 +
        queries.firstPages.non200 +
        queries.filtered.non200 +
        queries.search.non200
      : null;
    return {
      name: `contact import of ${rows.toLocaleString("en-US")} CSV rows (${round(csvMb)} MB) through \`reseller contacts import\` and serve on PostgreSQL, then list and search at that size`,
      note: "one run on a shared 2-core machine, PostgreSQL (fsync off) on the same machine: figures are noisy; the ratio compares two rates of the same run",
      cli_exit: imported.code,
      cli_error: imported.code === 0 ? undefined : imported.stderr.slice(0, 500),
      seconds: round(imported.seconds),
      import_rows_per_s: completed ? Math.round(rate) : null,
      bare_copy_rows_per_s: Math.round(bare),
      ratio: completed ? Number(ratio.toFixed(2)) : null,
      ratio_goal: ">= 0.5",
      status: record.status,
      created: record.created,
      error_count: record.error_count,
      cpu_cores_during_import: importCpu,
      service_peak_rss_mb: peakRssMb(service.child.pid),
      cli_peak_rss_mb: imported.cliPeak,
      plans_during_import_p99_ms: round(percentile(imported.during, 99)),
      plans_during_import_max_ms: round(Math.max(0, ...imported.during)),
      list_p50_ms: queries ? round(percentile(queries.list, 50)) : null,
      list_p99_ms: listP99 === null ? null : round(listP99),
      list_deep_cursor_p99_ms: queries ? round(percentile(queries.walk.ms, 99)) : null,
      list_filtered_p99_ms: queries ? round(percentile(queries.filtered.ms, 99)) : null,
      list_p99_goal: "< 50",
      search_selective_p99_ms: queries ? round(percentile(queries.selectiveSearch.ms, 99)) : null,
      search_broad_p50_ms: queries ? round(percentile(queries.broadSearch.ms, 50)) : null,
      search_broad_p99_ms: queries ? round(percentile(queries.broadSearch.ms, 99)) : null,
      search_p99_ms: searchP99 === null ? null : round(searchP99),
      search_p50_ms_by_term: queries ? byTerm(queries) : null,
      search_p99_goal: "< 50 (broad prefixes included)",
      query_non_200: non200,
      load_average_before: loadBefore,
      load_average_after_import: loadAfterImport,
      load_average_after: loadAverage(),
      misses: [
        ratio >= 0.5 ? null : "ratio",
        record.status === "completed" ? null : "import did not complete",
        listP99 !== null && listP99 < 50 ? null : "list p99",
        searchP99 !== null && searchP99 < 50 ? null : "search p99",
        non200 === 0 ? null : "non-200 query answers",
      ].filter((m) => m !== null),
    };
  } finally {
    await agent.close();
    await service.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
