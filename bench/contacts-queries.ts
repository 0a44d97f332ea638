import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { Agent, request } from "undici";
import { bootstrap } from "../src/service/bootstrap.js";
import { openDatabase } from "../src/service/db/database.js";
import { systemClock } from "../src/service/domain/clock.js";
import { ContactWriter } from "../src/service/domain/contact-store.js";
import { importBatchRows } from "../src/service/jobs/contact-import-job.js";
import { generatedContact } from "./contacts-data.js";
import { bin, cleanEnv, percentile, root, stop, waitForLine } from "./support.js";

const token = "rsk_bench_token_000000000001";
/** A workspace id of the real shape (`ws_` and a ULID): search terms carry it as their prefix. */
const workspaceId = "ws_01jd7x3k9m2p4q6r8s0t1v3w5y";

/**
 * A database (SQLite file or PostgreSQL URL) with one workspace of `rows` generated contacts,
 * written with the import's contact writer in batches of the import's size.
 */
export async function filledDatabase(target: string, rows: number): Promise<string> {
  const handle = await openDatabase(target);
  try {
    const { db } = handle;
    await bootstrap(db, systemClock, { bootstrapToken: token });
    const reseller = await db.selectFrom("resellers").select("id").executeTakeFirstOrThrow();
    await db
      .insertInto("workspaces")
      .values({
        id: workspaceId,
        reseller_id: reseller.id,
        name: "Bench",
        contact_email: "bench@example.test",
        plan_id: null,
        status: "active",
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
      } as never)
      .execute();
    const context = { now: "2026-11-22T09:30:00Z", source: "import:imp_bench" };
    for (let start = 0; start < rows; start += importBatchRows) {
      await db.transaction().execute(async (trx) => {
        const writer = new ContactWriter(trx, workspaceId);
        for (let i = start; i < Math.min(rows, start + importBatchRows); i++) {
          const c = generatedContact(i);
          writer.create(
            c.phone,
            {
              first_name: c.first_name,
              last_name: c.last_name,
              email: c.email,
              tags: c.tags,
              opt_in_status: c.opt_in_status,
              custom_fields: { city: c.city },
            },
            context,
          );
        }
        await writer.flush();
      });
    }
    return workspaceId;
  } finally {
    await handle.close();
  }
}

interface Timed {
  ms: number[];
  non200: number;
}

async function timed(
  agent: Agent,
  url: string,
  paths: () => Promise<string> | string,
  count: number,
): Promise<Timed> {
  const result: Timed = { ms: [], non200: 0 };
  for (let i = 0; i < count; i++) {
    const path = await paths();
    const started = performance.now();
    const response = await request(`${url}${path}`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}` },
    });
    const body = await response.body.text();
    result.ms.push(performance.now() - started);
    if (response.statusCode !== 200) result.non200 += 1;
    lastBody = body;
  }
  return result;
}
let lastBody = "";

const round = (n: number) => Number(n.toFixed(2));

/**
 * Requests per second of a 20-row contacts page (auth, rate limit, query, serialisation)
 * against bare fastify answering a body of the same size, 10 connections for 5 s each. The same
 * first page, asked again and again, is kept by the service while the database is unchanged
 * (domain/contact-page-memo.ts); `distinct` asks 2,000 different pages by cursor in turn, more
 * than it keeps, so that every one is read from the database: reported beside, without a goal.
 */
async function pageThroughput(url: string, base: string) {
  const path = `${base}?per_page=20`;
  const body = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(
    (r) => r.text(),
  );
  const bare = spawn(
    process.execPath,
    [join(root, "node_modules", "tsx", "dist", "cli.mjs"), join(root, "bench", "bare-server.ts")],
    { env: cleanEnv({ BARE_BODY: body }), stdio: ["ignore", "ignore", "pipe"] },
  );
  try {
    const bareUrl = await waitForLine(bare, /listening on (http:\/\/\S+)/);
    const rps = async (target: string, auth: boolean, paths?: string[]) =>
      (
        await autocannon({
          url: target,
          connections: 10,
          duration: 5,
          headers: auth ? { authorization: `Bearer ${token}` } : {},
          ...(paths
            ? {
                requests: [
                  {
                    setupRequest: (req: autocannon.Request) => {
                      turn = (turn + 1) % paths.length;
                      return { ...req, path: paths[turn] ?? path };
                    },
                  },
                ],
              }
            : {}),
        })
      ).requests.average;
    let turn = 0;
    const reseller = await rps(`${url}${path}`, true);
    const bareRps = await rps(`${bareUrl}/api/v1/plans`, false);
    const distinct = await rps(`${url}${path}`, true, await cursorPaths(url, path, 2000));
    return {
      reseller: Math.round(reseller),
      bare: Math.round(bareRps),
      ratio: Number((reseller / bareRps).toFixed(2)),
      distinct: Math.round(distinct),
      distinctRatio: Number((distinct / bareRps).toFixed(2)),
    };
  } finally {
    await stop(bare);
  }
}

/** The paths of the first `count` pages of `path`'s list, walked by cursor. */
async function cursorPaths(url: string, path: string, count: number): Promise<string[]> {
  const paths = [path];
  while (paths.length < count) {
    const response = await fetch(`${url}${paths[paths.length - 1]}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as {
      meta: { pagination: { next_cursor: string | null } };
    };
    const next = body.meta.pagination.next_cursor;
    if (next === null) break;
    paths.push(`${path}&cursor=${encodeURIComponent(next)}`);
  }
  return paths;
}

/**
 * The query mix of this benchmark through the HTTP API at `url` (one request at a time on
 * `agent`): first pages, pages deep in the list by cursor, tag and status filters, selective
 * searches and broad prefixes, on the contacts at `base` (`/api/v1/workspaces/<id>/contacts`).
 */
export async function queryMix(agent: Agent, url: string, base: string) {
  // Warm-up: the first queries read the indexes from disk.
  await timed(agent, url, () => `${base}?search=anna`, 20);
  await timed(agent, url, () => base, 20);

  let cursor: string | null = null;
  const walk = await timed(
    agent,
    url,
    () => {
      if (lastBody.startsWith('{"status":"success"') && lastBody.includes("next_cursor")) {
        cursor = (JSON.parse(lastBody) as { meta: { pagination: { next_cursor: string | null } } })
          .meta.pagination.next_cursor;
      }
      return `${base}?per_page=20${cursor ? `&cursor=${cursor}` : ""}`;
    },
    300,
  );
  const firstPages = await timed(agent, url, () => `${base}?per_page=20`, 200);
  const filters = [
    "tag=vip",
    "opt_in_status=opted_in",
    "tag=newsletter",
    "opt_in_status=opted_out",
  ];
  let f = 0;
  const filtered = await timed(agent, url, () => `${base}?${filters[f++ % filters.length]}`, 200);
  const list = [...walk.ms, ...firstPages.ms, ...filtered.ms];

  const selective = [
    "anna schmidt",
    "lena.mueller1",
    "felix.koch120@example.com",
    "+4915110001",
    "015110001",
    "10001",
    "zoe krause",
  ];
  // Each matches 2.5% to 40% of the contacts: the searches whose `total` used to cost a scan.
  const broad = ["anna", "max", "müller", "wagner", "a", "s", "m", "k"];
  let s = 0;
  const selectiveSearch = await timed(
    agent,
    url,
    () => `${base}?search=${encodeURIComponent(selective[s++ % selective.length] ?? "")}`,
    300,
  );
  let b = 0;
  const broadSearch = await timed(
    agent,
    url,
    () => `${base}?search=${encodeURIComponent(broad[b++ % broad.length] ?? "")}`,
    300,
  );
  const search = {
    ms: [...selectiveSearch.ms, ...broadSearch.ms],
    non200: selectiveSearch.non200 + broadSearch.non200,
  };
  return {
    walk,
    firstPages,
    filtered,
    list,
    selectiveSearch,
    broadSearch,
    search,
    selective,
    broad,
  };
}

/**
 * Latency of contact list pages and searches at `rows` contacts, through the HTTP API of a real
 * `reseller serve`: first pages, pages deep in the list by cursor, tag and status filters, and
 * searches by first name, full name, last name, email and phone prefix.
 */
export async function contactsQueries(rows = Number(process.env.BENCH_QUERY_ROWS ?? 1_000_000)) {
  const dir = mkdtempSync(join(tmpdir(), "reseller-bench-queries-"));
  const file = join(dir, "bench.db");
  const filling = performance.now();
  const workspace = await filledDatabase(file, rows);
  const fillSeconds = (performance.now() - filling) / 1000;
  const child = spawn(
    process.execPath,
    [
      bin,
      "serve",
      "--port",
      "0",
      "--db",
      file,
      "--log-level",
      "silent",
      "--rate-limit",
      "100000000/1m",
    ],
    { env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] },
  );
  const agent = new Agent({ connections: 1 });
  try {
    const url = await waitForLine(child, /listening on (http:\/\/\S+)/);
    const base = `/api/v1/workspaces/${workspace}/contacts`;
    const { walk, firstPages, filtered, list, selectiveSearch, broadSearch, search } =
      await queryMix(agent, url, base);
    const page = await pageThroughput(url, base);
    return {
      name: `contact list and search latency at ${rows.toLocaleString("en-US")} contacts (HTTP, one connection)`,
      fill_rows_per_s: Math.round(rows / fillSeconds),
      list_p50_ms: round(percentile(list, 50)),
      list_p99_ms: round(percentile(list, 99)),
      list_deep_cursor_p99_ms: round(percentile(walk.ms, 99)),
      list_filtered_p99_ms: round(percentile(filtered.ms, 99)),
      list_p99_goal: "< 20",
      search_selective_p99_ms: round(percentile(selectiveSearch.ms, 99)),
      search_broad_p50_ms: round(percentile(broadSearch.ms, 50)),
      search_broad_p99_ms: round(percentile(broadSearch.ms, 99)),
      search_p99_ms: round(percentile(search.ms, 99)),
      search_p99_goal: "< 20 (broad prefixes included)",
      page_rps: page.reseller,
      bare_same_body_rps: page.bare,
      page_ratio: page.ratio,
      page_ratio_goal: ">= 0.3",
      distinct_pages_rps: page.distinct,
      distinct_pages_ratio: page.distinctRatio,
      distinct_pages_goal: "reported (each page read from the database)",
      non_200: walk.non200 + firstPages.non200 + filtered.non200 + search.non200,
      note: "one run on a shared 2-core machine (other work running): figures are noisy",
      misses: [
        percentile(list, 99) < 20 ? null : "list p99",
        percentile(search.ms, 99) < 20 ? null : "search p99",
        page.ratio >= 0.3 ? null : "page ratio",
        walk.non200 + firstPages.non200 + filtered.non200 + search.non200 === 0 ? null : "non-200",
      ].filter((m) => m !== null),
    };
  } finally {
    await agent.close();
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}
