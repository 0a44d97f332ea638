import { rmSync } from "node:fs";
import { sql } from "kysely";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { createTestDatabase, onPostgres } from "../helpers/postgres-databases.js";
import { type ServedService, startServe } from "../helpers/serve.js";

/**
 * Several `reseller serve` processes on one database, as several instances behind a load
 * balancer share one: a fresh PostgreSQL database in the `postgres` project, otherwise one SQLite
 * file (WAL lets the processes share it). The first instance creates the reseller account; the
 * others join. `db` reads the shared database through Kysely, so one test body serves both.
 */
export async function startInstances(count: number, args: string[] = []) {
  const postgres = onPostgres() ? await createTestDatabase() : null;
  const first = await startServe({ args, ...(postgres ? { database: postgres.url } : {}) });
  const shared = postgres ? { database: postgres.url } : { dbFile: first.dbFile };
  const all: ServedService[] = [first];
  for (let i = 1; i < count; i++) {
    all.push(await startServe({ args, ...shared, token: first.token }));
  }
  const handle: DatabaseHandle = await openDatabase(first.database);
  return {
    all,
    /** The shared database: the SQLite file or the PostgreSQL URL. */
    database: first.database,
    token: first.token,
    /** The shared database, to see e.g. who holds a job or what the sandbox sent. */
    db: handle.db,
    /** The instances still running (neither stopped nor killed). */
    alive(): ServedService[] {
      return all.filter((s) => s.process.exitCode === null && !s.process.killed);
    },
    /** The instance whose heartbeat row holds the lease of the running job of `kind`. */
    async holderOf(
      kind: string,
    ): Promise<{ jobId: string; instanceId: string; service: ServedService } | null> {
      const row = await handle.db
        .selectFrom("jobs as j")
        .innerJoin("instances as i", "i.id", "j.lease_owner")
        .select(["j.id as jobId", "i.id", "i.pid"])
        .where("j.kind", "=", kind)
        .where("j.state", "=", "running")
        .executeTakeFirst();
      const service = all.find((s) => s.process.pid === row?.pid);
      return row && service ? { jobId: row.jobId, instanceId: row.id, service } : null;
    },
    /**
     * Waits until another instance than `from` holds job `jobId` (or it is done), and answers
     * how long that took.
     */
    async takenOver(jobId: string, from: string, timeoutMs: number): Promise<number> {
      const since = Date.now();
      for (;;) {
        const job = await handle.db
          .selectFrom("jobs")
          .select(["state", "lease_owner"])
          .where("id", "=", jobId)
          .executeTakeFirstOrThrow();
        const owner = job.lease_owner;
        if (job.state === "done" || (job.state === "running" && owner && owner !== from)) {
          return Date.now() - since;
        }
        if (Date.now() - since > timeoutMs) {
          throw new Error(`job ${jobId} was not taken over from ${from} in ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /**
     * What to look at when work stalls: the database's sessions that are not idle (on
     * PostgreSQL: what each waits for and who blocks it) and the error lines `service` logged.
     */
    async stallReport(service: ServedService | undefined): Promise<string> {
      const sessions = postgres
        ? (
            await sql<Record<string, unknown>>`SELECT pid, state, wait_event_type, wait_event,
                pg_blocking_pids(pid) AS blocked_by, now() - xact_start AS in_transaction,
                left(query, 160) AS query
              FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`.execute(
              handle.db,
            )
          ).rows
        : [];
      const errors = (service?.stdout() ?? "")
        .split("\n")
        .filter((line) => /"level":(50|60)/.test(line))
        .slice(-5);
      return `sessions: ${JSON.stringify(sessions)}; its errors: ${errors.join(" | ") || "none"}`;
    },
    /** Stops whatever still runs and removes the files and the database. */
    async close(): Promise<void> {
      for (const service of all) {
        if (service.process.exitCode === null && !service.process.killed) await service.stop();
      }
      await handle.close();
      await postgres?.drop();
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
