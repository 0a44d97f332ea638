import { rmSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { type ServedService, startServe } from "../helpers/serve.js";

/**
 * Several `reseller serve` processes on one SQLite file (WAL lets them share it), as several
 * instances behind a load balancer would share one database. The first one creates and migrates
 * the database; the others join it.
 */
export async function startInstances(count: number, args: string[] = []) {
  const first = await startServe({ args });
  const all: ServedService[] = [first];
  for (let i = 1; i < count; i++) {
    all.push(await startServe({ args, dbFile: first.dbFile, token: first.token }));
  }
  return {
    all,
    dbFile: first.dbFile,
    token: first.token,
    /** Reads the shared database directly (read-only), e.g. to see who holds a job. */
    query<T>(sql: string, ...params: unknown[]): T[] {
      const db = new BetterSqlite3(first.dbFile, { readonly: true });
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        db.close();
      }
    },
    /** Stops whatever still runs and removes the files. */
    async close(): Promise<void> {
      for (const service of all) {
        if (service.process.exitCode === null && !service.process.killed) await service.stop();
      }
      for (const service of all) rmSync(service.dir, { recursive: true, force: true });
    },
  };
}

export type Instances = Awaited<ReturnType<typeof startInstances>>;

/** One request with a bearer token (or none), answered with its status, headers and body. */
export async function call(
  url: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as {
      data?: Record<string, unknown> & { id: string };
      error_code?: string;
    } | null,
  };
}
