import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, importOf, largeCsv, startImport, until } from "../crash/crash-support.js";
import { call, type Instances, startInstances } from "./instances.js";

/** A fresh reseller token with `scopes`, created through the first instance. */
async function tokenOn(
  service: Instances,
  scopes: string[],
): Promise<{ id: string; token: string }> {
  const created = await call(service.all[0]?.url ?? "", service.token, "POST", "/api/v1/tokens", {
    name: `multi ${Math.random()}`,
    scopes,
  });
  expect(created.status).toBe(201);
  return { id: created.body?.data?.id ?? "", token: String(created.body?.data?.token) };
}

/**
 * Three `reseller serve` processes on one database behave as one service: what one instance
 * does (revoking a token, counting requests, holding a job) every other one respects.
 */
describe("several instances on one database", () => {
  let service: Instances;
  const urls = () => service.all.map((s) => s.url);

  beforeAll(async () => {
    service = await startInstances(3, ["--review-delay", "0"]);
  }, 60_000);
  afterAll(() => service?.close(), 60_000);

  const newToken = (scopes: string[]) => tokenOn(service, scopes);
  const workspacesNamed = async (name: string) =>
    (
      await service.db
        .selectFrom("workspaces")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("name", "=", name)
        .executeTakeFirstOrThrow()
    ).n;

  it("refuses a token on every instance within a second of its revocation on one", async () => {
    const [a, b, c] = urls() as [string, string, string];
    const { id, token } = await newToken(["plans:read", "workspaces:read", "workspaces:write"]);
    // Every instance has seen (and remembers) the token as valid.
    for (const url of [a, b, c]) {
      expect((await call(url, token, "GET", "/api/v1/plans")).status).toBe(200);
    }
    expect((await call(a, token, "DELETE", `/api/v1/tokens/${id}`)).status).toBe(200);
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      [b, c].map((url) =>
        until(
          `the revocation to reach ${url}`,
          async () =>
            (await call(url, token, "GET", "/api/v1/plans")).status === 401
              ? Date.now() - revokedAt
              : undefined,
          { timeoutMs: 5000, everyMs: 20 },
        ),
      ),
    );
    for (const ms of refusedAfter) expect(ms).toBeLessThan(1000);
    // Nor can it mint a new token on any instance.
    for (const url of [a, b, c]) {
      const attempt = await call(url, token, "POST", "/api/v1/tokens", {
        name: "successor",
        scopes: ["plans:read"],
      });
      expect(attempt.status).toBe(401);
    }
  });

  it("refuses a new token asked for with a token revoked on another instance a moment ago", async () => {
    const [a, b] = urls() as [string, string, string];
    const { id, token } = await newToken(["plans:read", "workspaces:read", "workspaces:write"]);
    // b has seen the token as valid and remembers it for a moment.
    expect((await call(b, token, "GET", "/api/v1/plans")).status).toBe(200);
    expect((await call(a, token, "DELETE", `/api/v1/tokens/${id}`)).status).toBe(200);
    const attempt = await call(b, token, "POST", "/api/v1/tokens", {
      name: "successor",
      scopes: ["plans:read"],
    });
    expect(attempt.status).toBe(401);
  });

  it("records when a token was last used, whichever instance it called", async () => {
    const { id, token } = await newToken(["plans:read", "workspaces:read", "workspaces:write"]);
    const before = await call(urls()[0] ?? "", token, "GET", "/api/v1/tokens/current");
    expect(before.status).toBe(200);
    const listed = await call(urls()[2] ?? "", service.token, "GET", "/api/v1/tokens?limit=100");
    const tokens = (listed.body?.data ?? []) as unknown as {
      id: string;
      last_used_at: string | null;
    }[];
    const row = tokens.find((t) => t.id === id);
    expect(row?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("replays an Idempotency-Key retried on another instance instead of doing the work twice", async () => {
    const [a, b] = urls() as [string, string];
    const send = (url: string) =>
      fetch(`${url}/api/v1/workspaces`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${service.token}`,
          "content-type": "application/json",
          "idempotency-key": "multi-instance-retry-1",
        },
        body: JSON.stringify({
          name: "Retried once",
          contact_email: "retry@example.test",
          send_invitation: false,
        }),
      });
    const first = await send(a);
    expect(first.status).toBe(201);
    const retried = await send(b);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await retried.json()).toEqual(await first.json());
    expect(await workspacesNamed("Retried once")).toBe(1);
  });

  it("continues a contacts walk begun on one instance on each of the others", async () => {
    const [a, b, c] = urls() as [string, string, string];
    const { token } = await newToken(["workspaces:write", "contacts:write", "contacts:read"]);
    const created = await call(a, token, "POST", "/api/v1/workspaces", {
      name: "Walked across instances",
      contact_email: "walk@example.test",
      send_invitation: false,
    });
    const contacts = `/api/v1/workspaces/${created.body?.data?.id}/contacts`;
    for (const phone of ["+4915112345001", "+4915112345002", "+4915112345003"]) {
      expect((await call(b, token, "POST", contacts, { phone })).status).toBe(201);
    }
    const walked: string[] = [];
    let cursor: string | null = null;
    for (const url of [a, b, c]) {
      const query = `?per_page=1${cursor ? `&cursor=${cursor}` : ""}`;
      const page = (await (
        await fetch(`${url}${contacts}${query}`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        data: { phone: string }[];
        meta: { pagination: { next_cursor: string | null } };
      };
      walked.push(...page.data.map((contact) => contact.phone));
      cursor = page.meta.pagination.next_cursor;
    }
    expect(walked).toEqual(["+4915112345003", "+4915112345002", "+4915112345001"]);
    expect(cursor).toBeNull();
  });

  it("does the work once when two instances get the same Idempotency-Key at the same time", async () => {
    const [a, b, c] = urls() as [string, string, string];
    const send = (url: string) =>
      fetch(`${url}/api/v1/workspaces`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${service.token}`,
          "content-type": "application/json",
          "idempotency-key": "multi-instance-race-1",
        },
        body: JSON.stringify({
          name: "Raced thrice",
          contact_email: "race@example.test",
          send_invitation: false,
        }),
      });
    const answers = await Promise.all([send(a), send(b), send(c)]);
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    const replayed = answers.filter((r) => r.headers.get("idempotent-replayed") === "true");
    expect(replayed).toHaveLength(2);
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(await workspacesNamed("Raced thrice")).toBe(1);
  });

  it("finishes an import on another instance when the one running it is killed", async () => {
    const csv = largeCsv(40_000);
    const [a] = urls() as [string];
    const { importPath } = await startImport(a, service.token, csv);
    const read = importOf(a, service.token, importPath);
    await until(
      "the import to be under way",
      async () => ((await read()).processed_rows > 0 ? true : undefined),
      { timeoutMs: 30_000, everyMs: 5 },
    );
    // Whichever instance claimed the import job, that one dies without warning.
    const holder = await service.holderOf("contact_import");
    const victim = holder?.service;
    expect(victim).toBeDefined();
    victim?.process.kill("SIGKILL");
    await victim?.process;
    const survivor = service.all.find((s) => s !== victim && s.process.exitCode === null);
    const killedAt = Date.now();
    // The contract: a dead instance's leases are taken over within 30 s.
    const takeoverMs = await service.takenOver(
      holder?.jobId ?? "",
      holder?.instanceId ?? "",
      30_000,
    );
    const record = await finished(survivor?.url ?? "", service.token, importPath, 120_000);
    console.log(
      `import taken over ${takeoverMs} ms and finished ${Date.now() - killedAt} ms after its instance was killed`,
    );
    expect(takeoverMs).toBeLessThan(30_000);
    expect(record).toMatchObject({ status: "completed", total_rows: 40_000 });
    expect(record.processed_rows).toBe(40_000);
    expect(record.created + record.updated + record.skipped + record.error_count).toBe(40_000);
  }, 180_000);

  it("hands its job to another instance at once when stopped with SIGTERM, and exits 0", async () => {
    const alive = service.alive();
    expect(alive.length).toBeGreaterThanOrEqual(2);
    const [first] = alive as [(typeof alive)[number]];
    const { importPath } = await startImport(first.url, service.token, largeCsv(40_000));
    const read = importOf(first.url, service.token, importPath);
    await until(
      "the import to be under way",
      async () => ((await read()).processed_rows > 0 ? true : undefined),
      { timeoutMs: 30_000, everyMs: 5 },
    );
    const owner = await service.holderOf("contact_import");
    const stopping = owner?.service;
    expect(stopping).toBeDefined();
    const { exitCode } = (await stopping?.stop()) ?? {};
    expect(exitCode).toBe(0);
    // Its lease was handed back and it left the instances: nobody waits for a timeout.
    const ownerId = owner?.instanceId ?? "";
    expect(
      await service.db.selectFrom("instances").select("id").where("id", "=", ownerId).execute(),
    ).toEqual([]);
    expect(
      await service.db.selectFrom("jobs").select("id").where("lease_owner", "=", ownerId).execute(),
    ).toEqual([]);
    const other = alive.find((s) => s !== stopping);
    // Another instance claims it at its next poll, not after a lease or heartbeat timeout.
    const takeoverMs = await service.takenOver(owner?.jobId ?? "", ownerId, 30_000);
    expect(takeoverMs).toBeLessThan(5_000);
    const record = await finished(other?.url ?? "", service.token, importPath, 120_000).catch(
      async (error: Error) => {
        // Seen once in CI on PostgreSQL (taken over, then not finished in 120 s): say why.
        const job = await service.db
          .selectFrom("jobs")
          .select(["state", "attempts", "run_at", "lease_owner", "last_error", "checkpoint"])
          .where("id", "=", owner?.jobId ?? "")
          .executeTakeFirst();
        throw new Error(
          `${error.message}; the job: ${JSON.stringify(job)}; ${await service.stallReport(other)}`,
        );
      },
    );
    expect(record).toMatchObject({ status: "completed", processed_rows: 40_000 });
  }, 180_000);
});

describe("rate limits of several instances on one database", () => {
  let service: Instances;
  const urls = () => service.all.map((s) => s.url);
  beforeAll(async () => {
    service = await startInstances(3, ["--rate-limit", "40/1m"]);
  }, 60_000);
  afterAll(() => service?.close(), 60_000);
  const newToken = (scopes: string[]) => tokenOn(service, scopes);

  it("counts a token's rate limit across all instances", async () => {
    const { token } = await newToken(["plans:read"]);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 60; i++) {
      last = await call(urls()[i % 3] ?? "", token, "GET", "/api/v1/plans");
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(40);
    expect(statuses.slice(40).every((s) => s === 429)).toBe(true);
    expect(last?.headers.get("ratelimit-limit")).toBe("40");
    expect(last?.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("counts requests with a bad or missing token per address across instances, with the headers on every refusal", async () => {
    // The bootstrap token and the other tests' tokens have their own budgets; this address has not
    // spent any on unauthenticated requests yet.
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const url = urls()[i % 3] ?? "";
      const answer =
        i % 5 === 4
          ? await call(url, null, "GET", "/api/v1/no-such-route")
          : await call(url, i % 2 ? `rsk_guess_${i}` : null, "GET", "/api/v1/workspaces");
      expect(answer.headers.get("ratelimit-limit")).toBe("40");
      expect(answer.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
      expect(answer.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, 40).every((s) => s === 401 || s === 404)).toBe(true);
    expect(statuses.slice(40)).toEqual(Array(10).fill(429));
  });
});
