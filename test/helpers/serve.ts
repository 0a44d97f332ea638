import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll } from "vitest";

export const binPath = resolve(import.meta.dirname, "../../bin/reseller.cjs");

export interface ServedService {
  url: string;
  token: string;
  /** The SQLite file it serves (unused when it runs on `database`). */
  dbFile: string;
  /** What it serves: the SQLite file, or the PostgreSQL URL it was given. */
  database: string;
  dir: string;
  process: ResultPromise;
  /** Everything the service wrote to stderr so far. */
  stderr(): string;
  /** Everything the service wrote to stdout (its log lines) so far. */
  stdout(): string;
  /** SIGTERM, then waits for a clean exit. */
  stop(): Promise<{ exitCode: number | undefined; stderr: string }>;
}

/**
 * Starts the built `reseller serve` on a free port, as a user would: on a fresh SQLite file, on
 * `dbFile`, or on the PostgreSQL database `database` (a `postgres://` URL).
 */
export async function startServe(
  options: {
    args?: string[];
    dbFile?: string;
    database?: string;
    token?: string;
    env?: Record<string, string>;
  } = {},
): Promise<ServedService> {
  const dir = mkdtempSync(join(tmpdir(), "reseller-e2e-"));
  const dbFile = options.dbFile ?? join(dir, "reseller.db");
  const database = options.database ?? dbFile;
  const token = options.token ?? "rsk_e2e_bootstrap_token_0001";
  const child = execa(
    "node",
    [
      binPath,
      "serve",
      "--port",
      "0",
      ...(options.database ? ["--database", options.database] : ["--db", dbFile]),
      "--log-level",
      "warn",
      ...(options.args ?? []),
    ],
    {
      env: { RESELLER_BOOTSTRAP_TOKEN: token, NODE_EXTRA_CA_CERTS: "", ...options.env },
      reject: false,
      buffer: false,
    },
  );
  let stderr = "";
  let stdout = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 20_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    child.on("exit", () => reject(new Error(`serve exited early:\n${stderr}`)));
  });
  return {
    url,
    token,
    dbFile,
    database,
    dir,
    process: child,
    stderr: () => stderr,
    stdout: () => stdout,
    stop: async () => {
      child.kill("SIGTERM");
      const result = await child;
      return { exitCode: result.exitCode, stderr };
    },
  };
}

/** The environment that points the CLI at a served service with its bootstrap token. */
export function serviceEnv(service: ServedService): Record<string, string> {
  return { RESELLER_BASE_URL: service.url, RESELLER_TOKEN: service.token };
}

/**
 * Serves one service for the enclosing suite: started before its tests, stopped after them.
 * `env` is filled in once it runs (so it can be destructured at suite level).
 */
export function serveDuringSuite(options: Parameters<typeof startServe>[0] = {}): {
  env: Record<string, string>;
  service(): ServedService;
} {
  let served: ServedService | undefined;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    served = await startServe(options);
    Object.assign(env, serviceEnv(served));
  });
  afterAll(async () => {
    await served?.stop();
  });
  return {
    env,
    service: () => {
      if (!served) throw new Error("the suite's service is not started yet");
      return served;
    },
  };
}

/** Runs the built CLI binary like a script would: no terminal, no stdin unless given. */
export function reseller(
  args: string[],
  options: { env?: Record<string, string>; input?: string } = {},
) {
  return execa("node", [binPath, ...args], {
    env: { NODE_EXTRA_CA_CERTS: "", CI: "true", ...options.env },
    ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
    reject: false,
  });
}
