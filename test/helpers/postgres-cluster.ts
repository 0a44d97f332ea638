import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";

/**
 * A throwaway PostgreSQL cluster for the test run: initdb into a temporary folder, started on a
 * free port with durability off (nothing here must survive a crash of the machine). As root the
 * server refuses to run, so it runs as the `postgres` user. RESELLER_TEST_POSTGRES_URL points
 * the tests at a server of your own instead.
 */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/` — append a database name. */
  baseUrl: string;
  stop(): void;
}

function binary(name: string): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql") : [];
  for (const version of versions.sort().reverse()) {
    const candidate = join("/usr/lib/postgresql", version, "bin", name);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(
    `PostgreSQL's ${name} is not installed: install Debian's postgresql package (apt-get install postgresql) or set RESELLER_TEST_POSTGRES_URL`,
  );
}

function asServerUser(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  if (!root) {
    execFileSync(command, args, { stdio: "pipe" });
    return;
  }
  const quoted = [command, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  execFileSync("su", ["postgres", "-s", "/bin/sh", "-c", quoted], { stdio: "pipe" });
}

/** Starts a fresh cluster (or uses RESELLER_TEST_POSTGRES_URL's server). */
export async function startCluster(): Promise<Cluster> {
  const given = process.env.RESELLER_TEST_POSTGRES_URL;
  if (given) return { baseUrl: given.endsWith("/") ? given : `${given}/`, stop: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "reseller-pg-"));
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  asServerUser(binary("initdb"), [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--no-sync",
  ]);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=400",
    "-c shared_buffers=128MB",
  ].join(" ");
  asServerUser(binary("pg_ctl"), [
    "-D",
    data,
    "-o",
    options,
    "-l",
    join(dir, "server.log"),
    "-w",
    "start",
  ]);
  return {
    baseUrl: `postgres://postgres@127.0.0.1:${port}/`,
    stop: () => {
      try {
        asServerUser(binary("pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
