import pg from "pg";
import { expect, inject, it, vi } from "vitest";
import { openDatabase } from "../../src/service/db/database.js";
import { logLines } from "../helpers/log-lines.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";
import { startTestApp } from "../helpers/test-app.js";

async function asAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${inject("postgresBaseUrl")}postgres` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

it("answers 503 with Retry-After while the database does not answer, and serves again once it does", async () => {
  const target = await createTestDatabase();
  const name = new URL(target.url).pathname.slice(1);
  const t = await startTestApp({ database: await openDatabase(target.url) });
  try {
    const ws = await t.createWorkspace();
    // The database as an operator's maintenance (or a restarting server) leaves it: every
    // connection cut, none taken.
    await asAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await asAdmin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
    );
    for (const path of [`/api/v1/workspaces/${ws}/contacts`, `/api/v1/workspaces/${ws}`]) {
      const res = await t.request("GET", path);
      expect(res.statusCode, path).toBe(503);
      expect(res.json()).toMatchObject({ error_code: "service_unavailable" });
      expect(res.json().message).toContain("The database does not answer");
      expect(res.headers["retry-after"]).toBe("5");
    }
    // Asked by anyone without a token: it says nothing of the database's name or address.
    const ready = await t.request("GET", "/readyz", { token: null });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().message).toBe(
      "The database does not answer; this instance's log says why.",
    );
    expect(ready.body).not.toContain(name);
    await asAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    const back = await t.request("GET", `/api/v1/workspaces/${ws}/contacts`);
    expect(back.statusCode).toBe(200);
  } finally {
    await t.close();
    await target.drop();
  }
});

it("logs an outage in the job runner's polling once when it begins and once when it ends", async () => {
  const target = await createTestDatabase();
  const name = new URL(target.url).pathname.slice(1);
  const { logger, lines } = logLines();
  const t = await startTestApp({ database: await openDatabase(target.url), logger });
  const runnerLines = () => lines.filter((line) => line.msg.startsWith("job runner"));
  try {
    await t.app.jobs.start();
    await asAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await asAdmin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
    );
    // Polls every 200 ms: once the first has failed, about seven more fail while the database
    // refuses connections, and each would be a line if the outage were not logged once.
    await vi.waitFor(() => expect(runnerLines()).toHaveLength(1), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await asAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await vi.waitFor(() => expect(runnerLines()).toHaveLength(2), { timeout: 10_000 });
    const [began, ended] = runnerLines();
    expect(began?.msg).toContain("polling failed");
    expect(ended?.msg).toContain("polling works again");
    expect(ended?.failures).toBeGreaterThan(2);
  } finally {
    await t.close();
    await target.drop();
  }
});

it("says so when it stops while the database does not answer, leases left to run out", async () => {
  const target = await createTestDatabase();
  const name = new URL(target.url).pathname.slice(1);
  const { logger, lines } = logLines();
  const t = await startTestApp({ database: await openDatabase(target.url), logger });
  try {
    await t.app.jobs.start();
    await asAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await asAdmin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`,
    );
    await t.app.close();
    expect(lines.filter((line) => line.msg.startsWith("stopping without handing back"))).toEqual([
      expect.objectContaining({ level: 50 }),
    ]);
  } finally {
    await asAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await t.database.close();
    await target.drop();
  }
});
