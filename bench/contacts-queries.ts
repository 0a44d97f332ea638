import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { bootstrap } from "../src/service/bootstrap.js";
import { openDatabase } from "../src/service/db/database.js";
import { systemClock } from "../src/service/domain/clock.js";
import { importBatchRows } from "../src/service/domain/contact-imports.js";
import { ContactWriter } from "../src/service/domain/contact-store.js";
import { generatedContact } from "./contacts-data.js";
import { bin, cleanEnv, percentile, stop, waitForLine } from "./support.js";

const token = "rsk_bench_token_000000000001";

/** A database with one workspace of `rows` generated contacts, written with the import's upserts. */
async function filledDatabase(file: string, rows: number): Promise<string> {
  const handle = await openDatabase(file);
  try {
    await bootstrap(handle.db, systemClock, { bootstrapToken: token });
    const { sqlite } = handle;
    const reseller = sqlite.prepare("SELECT id FROM resellers LIMIT 1").get() as { id: string };
    sqlite
      .prepare(
        `INSERT INTO workspaces (id, reseller_id, name, contact_email, plan_id, status, created_at, updated_at)
         VALUES ('ws_bench', ?, 'Bench', 'bench@example.test', NULL, 'active', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
      )
      .run(reseller.id);
    const context = { now: "2026-11-22T09:30:00Z", source: "import:imp_bench" };
    for (let start = 0; start < rows; start += importBatchRows) {
      sqlite.transaction(() => {
        const writer = new ContactWriter(sqlite, "ws_bench");
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
      })();
    }
    return "ws_bench";
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
    // Warm-up: the first queries read the indexes from disk.
    await timed(agent, url, () => `${base}?search=anna`, 20);
    await timed(agent, url, () => base, 20);

    let cursor: string | null = null;
    const walk = await timed(
      agent,
      url,
      () => {
        if (lastBody.startsWith('{"status":"success"') && lastBody.includes("next_cursor")) {
          cursor = (
            JSON.parse(lastBody) as { meta: { pagination: { next_cursor: string | null } } }
          ).meta.pagination.next_cursor;
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

    const searches = [
      "anna",
      "anna schmidt",
      "wagner",
      "lena.mueller1",
      "felix.koch120@example.com",
      "+4915110001",
      "015110001",
      "müller",
      "zoe krause",
      "max",
    ];
    let s = 0;
    const search = await timed(
      agent,
      url,
      () => `${base}?search=${encodeURIComponent(searches[s++ % searches.length] ?? "")}`,
      500,
    );
    return {
      name: `contact list and search latency at ${rows.toLocaleString("en-US")} contacts (HTTP, one connection)`,
      fill_rows_per_s: Math.round(rows / fillSeconds),
      list_p50_ms: round(percentile(list, 50)),
      list_p99_ms: round(percentile(list, 99)),
      list_deep_cursor_p99_ms: round(percentile(walk.ms, 99)),
      list_filtered_p99_ms: round(percentile(filtered.ms, 99)),
      search_p50_ms: round(percentile(search.ms, 50)),
      search_p99_ms: round(percentile(search.ms, 99)),
      non_200: walk.non200 + firstPages.non200 + filtered.non200 + search.non200,
      goal: "list p99 < 20 ms, search p99 < 50 ms",
      pass:
        percentile(list, 99) < 20 &&
        percentile(search.ms, 99) < 50 &&
        walk.non200 + firstPages.non200 + filtered.non200 + search.non200 === 0,
    };
  } finally {
    await agent.close();
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}
