import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "..");
export const bin = join(root, "bin", "reseller.cjs");

/** The environment of every measured process: without the machine's extra CA bundle, which slows each Node start. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * A `reseller serve` child on a free port with a fresh database, removed when it stops: a 1M-row
 * run leaves 1.4 GB, and repeated runs filled the disk.
 */
export async function startService(args: string[] = [], token = "rsk_bench_token_000000000001") {
  const dir = mkdtempSync(join(tmpdir(), "reseller-bench-"));
  const service = await startServiceOn(["--db", join(dir, "bench.db")], args, token, dir);
  return {
    ...service,
    stop: async () => {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A `reseller serve` child on a free port with the database `target` names (`["--db", file]` or
 * `["--database", url]`); the bootstrap token is created only if the database has none yet.
 */
export async function startServiceOn(
  target: string[],
  args: string[] = [],
  token = "rsk_bench_token_000000000001",
  dir = mkdtempSync(join(tmpdir(), "reseller-bench-")),
) {
  const loopDelayFile = join(dir, "loop-delay.json");
  const child = spawn(
    process.execPath,
    [
      "--import",
      join(root, "bench", "loop-delay-probe.mjs"),
      bin,
      "serve",
      "--port",
      "0",
      ...target,
      "--log-level",
      "silent",
      ...args,
    ],
    {
      env: cleanEnv({ RESELLER_BOOTSTRAP_TOKEN: token, LOOP_DELAY_FILE: loopDelayFile }),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const url = await waitForLine(child, /listening on (http:\/\/\S+)/);
  /**
   * The service's event-loop delay since the previous call (or its start), from Node's histogram
   * in the service's main thread (bench/loop-delay-probe.mjs).
   */
  const loopDelay = async (): Promise<LoopDelay> => {
    rmSync(loopDelayFile, { force: true });
    child.kill("SIGUSR2");
    for (let waited = 0; waited < 10_000; waited += 10) {
      if (existsSync(loopDelayFile)) return JSON.parse(readFileSync(loopDelayFile, "utf8"));
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 10));
    }
    throw new Error("the service did not report its event-loop delay within 10 s");
  };
  return { url, token, dir, child, loopDelay, stop: () => stop(child) };
}

/** A service's event-loop delay over a stretch of time, in ms. */
export interface LoopDelay {
  max_ms: number;
  p99_ms: number;
  mean_ms: number;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The machine's load averages (1, 5, 15 min), rounded: printed beside figures of a shared machine. */
export function loadAverage(): number[] {
  return loadavg().map((n) => Number(n.toFixed(2)));
}

/** Resolves with the first capture of `pattern` in the child's stderr. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  let text = "";
  return new Promise((resolvePromise, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = pattern.exec(text);
      if (match?.[1]) resolvePromise(match[1]);
    });
    child.on("exit", (code) =>
      reject(new Error(`process exited (${code}) before it was ready:\n${text}`)),
    );
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null) return resolvePromise();
    child.on("exit", () => resolvePromise());
    child.kill("SIGTERM");
  });
}
