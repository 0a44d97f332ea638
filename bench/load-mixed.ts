import { Pool } from "undici";
import { postgresCpuSeconds } from "./closed-loop.js";
import { generatedContact, generatedCsv } from "./contacts-data.js";
import { benchDatabase } from "./postgres.js";
import { apiCaller, benchWorkspace, importAndWait } from "./service-api.js";
import { cpuSeconds, loadAverage, percentile, startService, startServiceOn } from "./support.js";

type Kind = "plans" | "list" | "list_cursor" | "search" | "get" | "upsert" | "import";
const reads: Kind[] = ["plans", "list", "list_cursor", "search", "get"];

/** Shares of the request mix (out of 100); imports come on top, one every `importEveryMs`. */
const mix: [Kind, number][] = [
  ["plans", 20],
  ["list", 12],
  ["list_cursor", 10],
  ["search", 18],
  ["get", 15],
  ["upsert", 25],
];
const importEveryMs = 3000;

/** The kind of request at `roll` (0 to the sum of the shares) in the mix. */
function kindAt(roll: number): Kind {
  let left = roll;
  for (const [kind, share] of mix) {
    left -= share;
    if (left < 0) return kind;
  }
  return "plans";
}
const importRows = 500;

/** Searches as people type them: selective ones and broad prefixes matching many contacts. */
const searches = [
  "anna",
  "anna schmidt",
  "max",
  "müller",
  "lena.mueller1",
  "+4915110001",
  "015110002",
  "s",
  "wagner",
  "zoe krause",
];

/** A small deterministic generator, so two runs send the same mix. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (n: number) => Number(n.toFixed(1));

/**
 * Issue 11's load figure: `connections` clients, each with one request in flight at a time, for
 * `seconds` against one `serve` (SQLite; BENCH_DATABASE=postgres: a throwaway PostgreSQL
 * database), mixing reads (plans, contact pages by page and cursor, searches, single contacts)
 * and writes (contact upserts, a 500-row import every 3 s) on a workspace of `seed` contacts.
 */
export async function loadMixed(
  connections = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 120),
  seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 30),
  seed = Number(process.env.BENCH_LOAD_SEED ?? 5000),
) {
  const engine = process.env.BENCH_DATABASE === "postgres" ? "postgres" : "sqlite";
  const database = engine === "postgres" ? await benchDatabase("load") : null;
  const limits = ["--rate-limit", "100000000/1m"];
  const service = database
    ? await startServiceOn(["--database", database.url], limits)
    : await startService(limits);
  const pool = new Pool(service.url, { connections });
  try {
    const workspace = await benchWorkspace(service.url, service.token);
    const base = `/api/v1/workspaces/${workspace}/contacts`;
    const seeded = await importAndWait(
      service.url,
      service.token,
      workspace,
      generatedCsv(seed),
      100,
    );
    if (seeded.status !== "completed")
      throw new Error(`seeding import ended ${seeded.status}: ${JSON.stringify(seeded)}`);
    const call = apiCaller(service.url, service.token);
    const ids: string[] = [];
    // Cursors into the list at several depths; the list requests add theirs as they go.
    const cursors: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const response = await fetch(
        `${service.url}${base}?per_page=100${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: { authorization: `Bearer ${service.token}` } },
      );
      const json = (await response.json()) as {
        data: { id: string }[];
        meta: { pagination: { next_cursor: string | null } };
      };
      ids.push(...json.data.map((c) => c.id));
      cursor = json.meta.pagination.next_cursor;
      if (!cursor) break;
      cursors.push(cursor);
    }
    await call("GET", "/api/v1/plans");

    const latencies = new Map<Kind, number[]>(
      [...mix.map(([kind]) => kind), "import" as Kind].map((kind) => [kind, []]),
    );
    const statuses = new Map<number, number>();
    const samples: string[] = [];
    let failures = 0;
    let nextFresh = seed;
    let lastImport = 0;
    const headers = { authorization: `Bearer ${service.token}` };
    const json = { ...headers, "content-type": "application/json" };
    const total = mix.reduce((sum, [, share]) => sum + share, 0);

    const one = async (kind: Kind, pick: () => number) => {
      let request: Parameters<Pool["request"]>[0];
      if (kind === "plans") request = { path: "/api/v1/plans", method: "GET", headers };
      else if (kind === "list") request = { path: `${base}?per_page=20`, method: "GET", headers };
      else if (kind === "list_cursor") {
        const at = cursors[Math.floor(pick() * cursors.length)];
        request = {
          path: `${base}?per_page=20${at ? `&cursor=${at}` : ""}`,
          method: "GET",
          headers,
        };
      } else if (kind === "search") {
        const term = searches[Math.floor(pick() * searches.length)] ?? "anna";
        request = { path: `${base}?search=${encodeURIComponent(term)}`, method: "GET", headers };
      } else if (kind === "get") {
        const id = ids[Math.floor(pick() * ids.length)];
        request = { path: `${base}/${id}`, method: "GET", headers };
      } else if (kind === "upsert") {
        // Four in five update a seeded contact; one in five creates a new one.
        const i = pick() < 0.8 ? Math.floor(pick() * seed) : nextFresh++;
        const c = generatedContact(i);
        request = {
          path: base,
          method: "POST",
          headers: json,
          body: JSON.stringify({
            phone: c.phone,
            first_name: c.first_name,
            last_name: c.last_name,
            email: c.email,
            tags: c.tags,
            custom_fields: { city: c.city, visits: String(Math.floor(pick() * 100)) },
          }),
        };
      } else {
        const start = nextFresh;
        nextFresh += importRows / 2;
        // Half the rows are new contacts, half update seeded ones.
        const csv = Buffer.concat([
          generatedCsv(importRows / 2, start),
          generatedCsv(importRows / 2, Math.floor(pick() * (seed - importRows))).subarray(
            generatedCsv(0).length,
          ),
        ]);
        request = {
          path: `${base}/import?duplicate_handling=update`,
          method: "POST",
          headers: { ...headers, "content-type": "text/csv" },
          body: csv,
        };
      }
      const started = performance.now();
      try {
        const response = await pool.request(request);
        const body = await response.body.text();
        latencies.get(kind)?.push(performance.now() - started);
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        if (response.statusCode >= 400 && samples.length < 5)
          samples.push(`${kind} ${response.statusCode} ${body.slice(0, 200)}`);
        if (kind === "list" || kind === "list_cursor") {
          const next = /"next_cursor":"([^"]+)"/.exec(body)?.[1];
          if (next && cursors.length < 500) cursors.push(next);
        }
      } catch (error) {
        failures += 1;
        if (samples.length < 5) samples.push(`${kind} ${String(error).slice(0, 200)}`);
      }
    };

    const port = database ? Number(new URL(database.url).port) : null;
    const cpuBefore = cpuSeconds(service.child.pid);
    const postgresBefore = port ? postgresCpuSeconds(port) : 0;
    const loadBefore = loadAverage();
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const worker = async (index: number) => {
      const pick = random(index + 1);
      while (performance.now() < deadline) {
        if (index === 0 && performance.now() - lastImport >= importEveryMs) {
          lastImport = performance.now();
          await one("import", pick);
          continue;
        }
        await one(kindAt(pick() * total), pick);
      }
    };
    await Promise.all(Array.from({ length: connections }, (_, i) => worker(i)));
    const elapsed = (performance.now() - started) / 1000;
    const serviceCores = (cpuSeconds(service.child.pid) - cpuBefore) / elapsed;
    const postgresCores = port ? (postgresCpuSeconds(port) - postgresBefore) / elapsed : null;

    const readMs = reads.flatMap((kind) => latencies.get(kind) ?? []);
    const writeMs = [...(latencies.get("upsert") ?? []), ...(latencies.get("import") ?? [])];
    const requests = readMs.length + writeMs.length;
    const server5xx = [...statuses].reduce((sum, [code, n]) => sum + (code >= 500 ? n : 0), 0);
    // A 4xx means the benchmark sent something the service refuses: not the load it claims.
    const client4xx = [...statuses].reduce(
      (sum, [code, n]) => sum + (code >= 400 && code < 500 ? n : 0),
      0,
    );
    const readP99 = percentile(readMs, 99);
    const perKind = Object.fromEntries(
      [...latencies].map(([kind, ms]) => [
        kind,
        { count: ms.length, p50_ms: round(percentile(ms, 50)), p99_ms: round(percentile(ms, 99)) },
      ]),
    );
    return {
      name: `${connections} connections mixing reads and writes for ${seconds} s against one serve on ${engine}, ${seed.toLocaleString("en-US")} contacts seeded`,
      engine,
      requests,
      requests_per_s: Math.round(requests / elapsed),
      server_5xx: server5xx,
      server_5xx_goal: "0",
      client_4xx: client4xx,
      connection_failures: failures,
      statuses: Object.fromEntries(statuses),
      read_p99_ms: round(readP99),
      read_p99_goal: "< 100",
      read_max_ms: round(Math.max(0, ...readMs)),
      read_p50_ms: round(percentile(readMs, 50)),
      write_p99_ms: round(percentile(writeMs, 99)),
      write_max_ms: round(Math.max(0, ...writeMs)),
      per_kind: perKind,
      imports_sent: latencies.get("import")?.length ?? 0,
      service_cpu_cores: Number(serviceCores.toFixed(2)),
      postgres_cpu_cores: postgresCores === null ? undefined : Number(postgresCores.toFixed(2)),
      load_average_before: loadBefore,
      load_average_after: loadAverage(),
      error_samples: samples.length > 0 ? samples : undefined,
      note: "client and service share a 2-core machine (the client's 120 loops take CPU the service would otherwise have); one run, figures are noisy",
      misses: [
        server5xx === 0 ? null : "5xx",
        failures === 0 ? null : "connection failures",
        client4xx === 0 ? null : "4xx (the mix is not what it claims)",
        readP99 < 100 ? null : "read p99",
      ].filter((m) => m !== null),
    };
  } finally {
    await pool.close();
    await service.stop();
    await database?.drop();
  }
}
