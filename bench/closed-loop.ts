// A closed-loop HTTP load: a fixed number of connections, each sending its next request when the
// previous answer has been read, spread over one or more services.
import { readdirSync, readFileSync } from "node:fs";
import { Pool } from "undici";
import { cpuSeconds } from "./support.js";

export interface LoopResult {
  requests: number;
  requests_per_s: number;
  non_2xx: number;
  failures: number;
  ms: number[];
}

/**
 * `connections` connections in all, shared equally by `urls`, for `seconds`: each sends
 * `path(connection, n)` with `headers` and reads the whole answer before its next request.
 */
export async function closedLoop(
  urls: string[],
  connections: number,
  seconds: number,
  path: (connection: number, n: number) => string,
  headers: Record<string, string>,
): Promise<LoopResult> {
  const perUrl = Math.ceil(connections / urls.length);
  const pools = urls.map((url) => new Pool(url, { connections: perUrl }));
  const result: LoopResult = { requests: 0, requests_per_s: 0, non_2xx: 0, failures: 0, ms: [] };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async (_, connection) => {
        const pool = pools[connection % pools.length] as Pool;
        for (let n = 0; performance.now() < deadline; n++) {
          const sent = performance.now();
          try {
            const response = await pool.request({
              path: path(connection, n),
              method: "GET",
              headers,
            });
            await response.body.text();
            result.ms.push(performance.now() - sent);
            if (response.statusCode < 200 || response.statusCode >= 300) result.non_2xx += 1;
          } catch {
            result.failures += 1;
          }
        }
      }),
    );
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  result.requests = result.ms.length;
  result.requests_per_s = result.requests / ((performance.now() - started) / 1000);
  return result;
}

/**
 * CPU seconds used so far by the PostgreSQL server listening on `port`: its postmaster (with
 * the children it has reaped) and its live backends.
 */
export function postgresCpuSeconds(port: number): number {
  const pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  let postmaster: string | null = null;
  for (const pid of pids) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (cmdline[0]?.endsWith("/postgres") && cmdline.includes(String(port))) {
        postmaster = pid;
        break;
      }
    } catch {}
  }
  if (!postmaster) return 0;
  let total = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      if (pid === postmaster) {
        // utime, stime, cutime, cstime: reaped children (ended backends) count too.
        total +=
          (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
      } else if (fields[1] === postmaster) {
        total += cpuSeconds(Number(pid));
      }
    } catch {}
  }
  return total;
}

/** CPU seconds this process (the load's client) has used so far. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}
