import { closedLoop, ownCpuSeconds, postgresCpuSeconds } from "./closed-loop.js";
import { generatedCsv } from "./contacts-data.js";
import { benchDatabase } from "./postgres.js";
import { benchWorkspace, importAndWait } from "./service-api.js";
import { cpuSeconds, loadAverage, median, percentile, startServiceOn } from "./support.js";

type Service = Awaited<ReturnType<typeof startServiceOn>>;

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/**
 * Requests/s with all connections on the first service (one instance) and with them spread
 * over both (two instances), alternated `rounds` times; medians of each, and where the CPU went
 * (cores used by each service, PostgreSQL and this client) in the last round of each.
 */
async function oneVersusTwo(
  services: [Service, Service],
  port: number,
  connections: number,
  seconds: number,
  rounds: number,
  path: (connection: number, n: number) => string,
) {
  const headers = { authorization: `Bearer ${services[0].token}` };
  const one: number[] = [];
  const two: number[] = [];
  const p99 = { one: [] as number[], two: [] as number[] };
  let non2xx = 0;
  let failures = 0;
  const cpu = { one: {}, two: {} } as Record<"one" | "two", Record<string, number>>;
  for (let round = 0; round < rounds; round++) {
    for (const shape of ["one", "two"] as const) {
      const urls = shape === "one" ? [services[0].url] : services.map((s) => s.url);
      const before = {
        a: cpuSeconds(services[0].child.pid),
        b: cpuSeconds(services[1].child.pid),
        pg: postgresCpuSeconds(port),
        client: ownCpuSeconds(),
      };
      const started = performance.now();
      const result = await closedLoop(urls, connections, seconds, path, headers);
      const elapsed = (performance.now() - started) / 1000;
      (shape === "one" ? one : two).push(result.requests_per_s);
      p99[shape].push(percentile(result.ms, 99));
      non2xx += result.non_2xx;
      failures += result.failures;
      cpu[shape] = {
        service_a: round2((cpuSeconds(services[0].child.pid) - before.a) / elapsed),
        service_b: round2((cpuSeconds(services[1].child.pid) - before.b) / elapsed),
        postgres: round2((postgresCpuSeconds(port) - before.pg) / elapsed),
        client: round2((ownCpuSeconds() - before.client) / elapsed),
      };
    }
  }
  const ratio = median(two) / median(one);
  return {
    one_instance_rps: Math.round(median(one)),
    two_instances_rps: Math.round(median(two)),
    ratio_two_to_one: round(ratio, 2),
    one_instance_p99_ms: round(median(p99.one)),
    two_instances_p99_ms: round(median(p99.two)),
    runs_rps: { one: one.map(Math.round), two: two.map(Math.round) },
    cpu_cores_one_instance: cpu.one,
    cpu_cores_two_instances: cpu.two,
    non_2xx: non2xx,
    failures,
  };
}

const round2 = (n: number) => Number(n.toFixed(2));

type Comparison = Awaited<ReturnType<typeof oneVersusTwo>>;

function cpuSum(cpu: Record<string, number>): number {
  return round2(Object.values(cpu).reduce((sum, n) => sum + n, 0));
}

/** What limits two instances here, said with this run's CPU figures and load average. */
function limitsNote(plans: Comparison, contacts: Comparison | null, load: number[]): string {
  const shape = (c: Comparison) =>
    `one instance ${JSON.stringify(c.cpu_cores_one_instance)} = ${cpuSum(c.cpu_cores_one_instance)} cores, two ${JSON.stringify(c.cpu_cores_two_instances)} = ${cpuSum(c.cpu_cores_two_instances)} cores`;
  const busiest = Math.max(
    cpuSum(plans.cpu_cores_one_instance),
    contacts ? cpuSum(contacts.cpu_cores_one_instance) : 0,
  );
  return [
    "What limits two instances here is the machine's 2 cores, shared by both services, PostgreSQL, this load generator and other sessions' work.",
    `CPU used per second: plans: ${shape(plans)}${contacts ? `; contact reads: ${shape(contacts)}` : ""}.`,
    busiest >= 1.6
      ? "One instance with its client and PostgreSQL already keeps both cores busy, so a second instance adds an event loop but no CPU: it takes cores from the first, from PostgreSQL and from the client, and the ratio stays near 1."
      : `Our processes used at most ${busiest} of the 2 cores while the load average was ${load[0]}: other work on the machine took the rest, so these rates are a share of the machine, not its capacity, and the ratio says little beyond that.`,
    "GET /plans reaches the database only for batched rate-limit counts and token rechecks, so it is bound by the Node processes; each contact read is also a query, whose PostgreSQL backend takes its share of the same cores.",
    "With the instances on machines of their own, they would scale until PostgreSQL's CPU or connections (10 per instance) became the limit.",
  ].join(" ");
}

/**
 * Issue 12's scaling figure: two `serve` instances on one PostgreSQL database against one, with
 * the same total client concurrency, same run: GET /api/v1/plans, and contact reads (a contact
 * by id, a 20-row page by cursor) on a workspace of `seed` contacts imported first.
 */
export async function postgresInstances(
  connections = Number(process.env.BENCH_INSTANCES_CONNECTIONS ?? 32),
  seconds = Number(process.env.BENCH_INSTANCES_SECONDS ?? 5),
  seed = Number(process.env.BENCH_INSTANCES_SEED ?? 20_000),
  rounds = 3,
) {
  const database = await benchDatabase("instances");
  const port = Number(new URL(database.url).port);
  const limits = ["--rate-limit", "100000000/1m"];
  // One after the other: the first migrates and creates the bootstrap token, the second finds them.
  const first = await startServiceOn(["--database", database.url], limits);
  const services: Service[] = [first];
  try {
    services.push(await startServiceOn(["--database", database.url], limits));
    const pair = services as [Service, Service];
    const loadBefore = loadAverage();
    const { url, token } = first;
    const workspace = await benchWorkspace(url, token);
    const base = `/api/v1/workspaces/${workspace}/contacts`;
    const seeded = await importAndWait(url, token, workspace, generatedCsv(seed));
    const headers = { authorization: `Bearer ${token}` };
    const ids: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    if (seeded.status === "completed") {
      for (let page = 0; page < 10; page++) {
        const response = await fetch(
          `${url}${base}?per_page=100${cursor ? `&cursor=${cursor}` : ""}`,
          { headers },
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
    }
    // Warm-up of both instances (code, pools, caches).
    for (const service of pair)
      await closedLoop([service.url], 8, 1, () => "/api/v1/plans", headers);
    const plans = await oneVersusTwo(
      pair,
      port,
      connections,
      seconds,
      rounds,
      () => "/api/v1/plans",
    );
    const contacts =
      ids.length > 0
        ? await oneVersusTwo(pair, port, connections, seconds, rounds, (connection, n) =>
            (connection + n) % 2 === 0
              ? `${base}/${ids[(connection * 31 + n) % ids.length]}`
              : `${base}?per_page=20&cursor=${cursors[(connection * 7 + n) % cursors.length]}`,
          )
        : null;
    return {
      name: `two serve instances on one PostgreSQL database against one, ${connections} client connections in all, ${seconds} s per run, runs alternated ${rounds}×, medians`,
      plans,
      contact_reads: contacts ?? `not measured: seeding import ended ${seeded.status}`,
      ratio_goal:
        "scales (report the ratio of two to one; no number is set for 2 cores shared with the database)",
      load_average_before: loadBefore,
      load_average_after: loadAverage(),
      note: limitsNote(plans, contacts, loadBefore),
    };
  } finally {
    for (const service of services) await service.stop();
    await database.drop();
  }
}
