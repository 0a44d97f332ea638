import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { secretBoxFromKey } from "../../src/service/domain/secret-box.js";
import { storedSigningSecret } from "../../src/service/domain/webhook-secrets.js";
import { logLines } from "../helpers/log-lines.js";
import { openTestDatabase, startTestApp, type TestApp } from "../helpers/test-app.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

type Json = Record<string, unknown> & { id: string };
type Verify = (
  secret: string,
  header: unknown,
  body: string,
  tolerance?: number,
  now?: number,
) => boolean;

/** The verification helper exactly as docs/webhooks.md prints it, loaded as a module. */
async function verifierFromDocs(): Promise<Verify> {
  const doc = readFileSync(new URL("../../docs/webhooks.md", import.meta.url), "utf8");
  const block = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/webhooks.md has no verification helper");
  const file = join(mkdtempSync(join(tmpdir(), "verify-")), "verify.mjs");
  writeFileSync(file, block);
  const module = (await import(pathToFileURL(file).href)) as { verifyResellerSignature: Verify };
  return module.verifyResellerSignature;
}

describe("webhook endpoints and events", () => {
  let t: TestApp;
  const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

  beforeEach(async () => {
    t = await startTestApp({ webhooks: { retryBaseMs: 60_000 } });
  });
  afterEach(async () => {
    await t.close();
  });

  async function createEndpoint(url: string, events: string[] = ["*"]) {
    const res = await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url, events, description: "CRM" },
    });
    expect(res.statusCode).toBe(201);
    return res.json().data as Json & { secret: string };
  }

  it("queues each delivery to be made one at a time per endpoint (its job's serial key)", async () => {
    const a = await createEndpoint("https://a.example.test/hooks");
    const b = await createEndpoint("https://b.example.test/hooks");
    await t.createWorkspace();
    const keys = await t.database.db
      .selectFrom("jobs")
      .select("serial_key")
      .where("kind", "=", "webhook.deliver")
      .execute();
    expect(keys.map((k) => k.serial_key).sort()).toEqual(
      [`webhook-endpoint:${a.id}`, `webhook-endpoint:${b.id}`].sort(),
    );
  });

  it("gives a delivery queued without its key (by an older release) the key when it runs", async () => {
    const receiver = await startReceiver({ decide: () => 500 });
    try {
      const endpoint = await createEndpoint(receiver.url, ["workspace.created"]);
      await t.createWorkspace();
      await t.database.db
        .updateTable("jobs")
        .set({ serial_key: null })
        .where("kind", "=", "webhook.deliver")
        .execute();
      await t.runJobs();
      // Refused, so retried later: from now on one at a time with the endpoint's others.
      const jobs = await t.database.db
        .selectFrom("jobs")
        .select(["state", "serial_key"])
        .where("kind", "=", "webhook.deliver")
        .execute();
      expect(jobs).toEqual([{ state: "queued", serial_key: `webhook-endpoint:${endpoint.id}` }]);
    } finally {
      await receiver.close();
    }
  });

  it("shows an endpoint's secret once, at creation, and manages it with CRUD", async () => {
    const created = await createEndpoint("https://crm.example.test/hooks", [
      "workspace.created",
      "workspace.created",
    ]);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(created.events).toEqual(["workspace.created"]);
    expect(created.enabled).toBe(true);

    const got = (await t.request("GET", `/api/v1/webhook-endpoints/${created.id}`)).json().data;
    expect(got.secret).toBeUndefined();
    expect(got.secret_hint).toBe(`whsec_…${created.secret.slice(-4)}`);

    const list = (await t.request("GET", "/api/v1/webhook-endpoints")).json();
    expect(list.data.map((e: Json) => e.id)).toEqual([created.id]);

    const patched = await t.request("PATCH", `/api/v1/webhook-endpoints/${created.id}`, {
      body: { enabled: false, events: ["*"], description: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ enabled: false, events: ["*"], description: null });

    expect((await t.request("DELETE", `/api/v1/webhook-endpoints/${created.id}`)).statusCode).toBe(
      200,
    );
    expect((await t.request("GET", `/api/v1/webhook-endpoints/${created.id}`)).statusCode).toBe(
      404,
    );
  });

  it("replays a retried endpoint create with its secret, which is stored only sealed", async () => {
    const request = () =>
      t.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: "https://crm.example.test/hooks", events: ["*"] },
        headers: { "idempotency-key": "endpoint-1" },
      });
    const first = await request();
    const retry = await request();
    expect(retry.statusCode).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.json()).toEqual(first.json());
    const stored = await t.database.db.selectFrom("idempotency_keys").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(first.json().data.secret);
    const list = (await t.request("GET", "/api/v1/webhook-endpoints")).json();
    expect(list.data).toHaveLength(1);
  });

  it("refuses a bad url, unknown event types and tokens without the webhooks scopes", async () => {
    const bad = await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "ftp://crm.example.test" },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().details[0].field).toBe("url");
    const unknown = await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "https://crm.example.test", events: ["campaign.exploded"] },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().details[0]).toMatchObject({
      field: "events.0",
      message: expect.stringMatching(
        /^'campaign\.exploded' is not an event type: events must list event types \(.*contact\.opted_out.*\) or "\*"$/,
      ),
    });
    // One event type as a plain string, not a list: told what the field takes.
    const notList = await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "https://crm.example.test", events: "contact.opted_out" },
    });
    expect(notList.statusCode).toBe(422);
    expect(notList.json().details).toEqual([
      {
        field: "events",
        message:
          'events must be a list of event types, e.g. ["contact.opted_out"], or ["*"] for all',
      },
    ]);
    const reader = await t.tokenWith(["webhooks:read"]);
    const denied = await t.request("POST", "/api/v1/webhook-endpoints", {
      token: reader,
      body: { url: "https://crm.example.test" },
    });
    expect(denied.statusCode).toBe(403);
    const noScope = await t.tokenWith(["workspaces:read"]);
    expect((await t.request("GET", "/api/v1/events", { token: noScope })).statusCode).toBe(403);
  });

  it("refuses a url with a user name or password, which no delivery could carry, on create and update", async () => {
    const withPassword = await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "https://user:hunter2@crm.example.test/hooks" },
    });
    expect(withPassword.statusCode).toBe(422);
    expect(withPassword.json().details[0]).toMatchObject({
      field: "url",
      message: expect.stringContaining("must not hold a user name or password"),
    });
    const endpoint = await createEndpoint("https://crm.example.test/hooks");
    const update = await t.request("PATCH", `/api/v1/webhook-endpoints/${endpoint.id}`, {
      body: { url: "https://user@crm.example.test/hooks" },
    });
    expect(update.statusCode).toBe(422);
    const portZero = await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "http://crm.example.test:0/hooks" },
    });
    expect(portZero.statusCode).toBe(422);
  });

  it("refuses a url holding a line break or a space, which it would not call as shown", async () => {
    for (const url of [
      "https://crm.example.test/a\r\nX-Injected: 1",
      "https://crm.example.test/a b",
    ]) {
      const res = await t.request("POST", "/api/v1/webhook-endpoints", { body: { url } });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().details[0]).toMatchObject({
        field: "url",
        message: expect.stringContaining("spaces or control characters"),
      });
    }
  });

  it("keeps another reseller's endpoints and events out of sight", async () => {
    const endpoint = await createEndpoint("https://crm.example.test/hooks");
    await t.createWorkspace();
    const other = await t.otherReseller();
    expect(
      (await t.request("GET", `/api/v1/webhook-endpoints/${endpoint.id}`, { token: other }))
        .statusCode,
    ).toBe(404);
    expect((await t.request("GET", "/api/v1/events", { token: other })).json().data).toEqual([]);
  });

  it("records workspace.created with the workspace as the API shows it, filterable and paged", async () => {
    const first = await t.createWorkspace({ name: "First" });
    const second = await t.createWorkspace({ name: "Second" });
    await t.request("PATCH", `/api/v1/workspaces/${first}`, { body: { name: "First Ltd" } });

    const all = (await t.request("GET", "/api/v1/events?per_page=2")).json();
    expect(all.meta.pagination.total).toBe(3);
    expect(all.data.map((e: Json) => e.type)).toEqual(["workspace.updated", "workspace.created"]);
    expect(all.data[0]).toMatchObject({
      workspace_id: first,
      data: { id: first, name: "First Ltd" },
    });
    expect(all.data[0].id).toMatch(/^evt_/);
    const next = (
      await t.request("GET", `/api/v1/events?per_page=2&cursor=${all.meta.pagination.next_cursor}`)
    ).json();
    expect(next.data.map((e: Json) => e.workspace_id)).toEqual([first]);

    const created = (await t.request("GET", "/api/v1/events?type=workspace.created")).json();
    expect(created.data.map((e: Json) => e.workspace_id)).toEqual([second, first]);
    const ofSecond = (await t.request("GET", `/api/v1/events?workspace_id=${second}`)).json();
    expect(ofSecond.data).toHaveLength(1);
    const one = await t.request("GET", `/api/v1/events/${ofSecond.data[0].id}`);
    expect(one.json().data.data).toMatchObject({ id: second, name: "Second", status: "active" });
    expect((await t.request("GET", "/api/v1/events?type=nope")).statusCode).toBe(422);
  });

  it("forgets events after 30 days", async () => {
    await t.createWorkspace();
    t.clock.advance(31 * 86_400_000);
    expect((await t.request("GET", "/api/v1/events")).json().data).toEqual([]);
  });

  it("delivers signed events that a receiver written from docs/webhooks.md accepts", async () => {
    const verify = await verifierFromDocs();
    let secret = "";
    const receiver = await startReceiver({
      decide: ({ headers, body }) =>
        verify(secret, headers["reseller-signature"], body, 300, nowSeconds()) ? 204 : 400,
    });
    try {
      secret = (await createEndpoint(receiver.url, ["workspace.created"])).secret;
      const workspaceId = await t.createWorkspace();
      await t.request("PATCH", `/api/v1/workspaces/${workspaceId}`, { body: { name: "Other" } });
      await t.runJobs();
      expect(receiver.received).toHaveLength(1);
      const [delivery] = receiver.received;
      expect(delivery?.status).toBe(204);
      const event = JSON.parse(delivery?.body ?? "{}");
      expect(event).toMatchObject({ type: "workspace.created", workspace_id: workspaceId });
      expect(delivery?.headers["reseller-event-id"]).toBe(event.id);
      const header = String(delivery?.headers["reseller-signature"]);
      const [, t0, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
      expect(v1).toBe(createHmac("sha256", secret).update(`${t0}.${delivery?.body}`).digest("hex"));
      // The doc's helper refuses a tampered body, a wrong secret and a stale timestamp.
      expect(verify(secret, header, `${delivery?.body} `, 300, nowSeconds())).toBe(false);
      expect(verify("whsec_wrong", header, delivery?.body ?? "", 300, nowSeconds())).toBe(false);
      expect(verify(secret, header, delivery?.body ?? "", 300, nowSeconds() + 301)).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it("keeps signing secrets sealed under RESELLER_SECRET_KEY, and signs with them all the same", async () => {
    const key = Buffer.alloc(32, 9).toString("base64");
    const sealed = await startTestApp({ whatsapp: { secretKey: key } });
    const receiver = await startReceiver({ decide: () => 204 });
    try {
      const res = await sealed.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: receiver.url, events: ["workspace.created"] },
      });
      expect(res.statusCode).toBe(201);
      const { id, secret, secret_hint } = res.json().data;
      expect(secret_hint).toBe(`whsec_…${secret.slice(-4)}`);
      const stored = await sealed.database.db
        .selectFrom("webhook_endpoints")
        .select("secret")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      // The database, a backup or a copy alone cannot sign events as the service.
      expect(stored.secret).toMatch(/^sealed:/);
      expect(stored.secret).not.toContain(secret.slice("whsec_".length, -4));
      const shown = (await sealed.request("GET", `/api/v1/webhook-endpoints/${id}`)).json().data;
      expect(shown.secret_hint).toBe(secret_hint);
      await sealed.createWorkspace();
      await sealed.runJobs();
      const [delivery] = receiver.received;
      const [, t0, v1] =
        /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery?.headers["reseller-signature"])) ?? [];
      expect(v1).toBe(createHmac("sha256", secret).update(`${t0}.${delivery?.body}`).digest("hex"));
    } finally {
      await receiver.close();
      await sealed.close();
    }
  });

  it("seals, as it starts with a key, the signing secrets stored before the key was set", async () => {
    const database = await openTestDatabase();
    // The first instance runs without a key; the database outlives it.
    const before = await startTestApp({ database: { ...database, close: async () => {} } });
    const receiver = await startReceiver({ decide: () => 204 });
    try {
      const created = await before.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: receiver.url, events: ["workspace.created"] },
      });
      const { id, secret } = created.json().data;
      const stored = async () =>
        (
          await database.db
            .selectFrom("webhook_endpoints")
            .select("secret")
            .where("id", "=", id)
            .executeTakeFirstOrThrow()
        ).secret;
      expect(await stored()).toBe(secret);
      await before.close();
      const keyed = await startTestApp({
        database,
        whatsapp: { secretKey: Buffer.alloc(32, 5).toString("base64") },
      });
      try {
        expect(await stored()).toMatch(/^sealed:/);
        expect(await stored()).not.toContain(secret.slice("whsec_".length, -4));
        await keyed.createWorkspace();
        await keyed.runJobs();
        const [delivery] = receiver.received;
        const [, t0, v1] =
          /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery?.headers["reseller-signature"])) ?? [];
        expect(v1).toBe(
          createHmac("sha256", secret).update(`${t0}.${delivery?.body}`).digest("hex"),
        );
      } finally {
        await keyed.close();
      }
    } finally {
      await receiver.close();
    }
  });

  it("warns as it starts without a key while signing secrets are stored in clear", async () => {
    const database = await openTestDatabase();
    const first = await startTestApp({ database: { ...database, close: async () => {} } });
    const { logger, lines } = logLines();
    const warnings = () => lines.filter((line) => line.level === 40).map((line) => line.msg);
    try {
      await first.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: "https://crm.example.test/hooks", events: ["workspace.created"] },
      });
    } finally {
      await first.close();
    }
    const again = await startTestApp({ database: { ...database, close: async () => {} }, logger });
    await again.close();
    expect(warnings()).toEqual([
      "1 webhook endpoint keeps its signing secret in clear in the database: set RESELLER_SECRET_KEY (32 bytes, base64) to seal it at the next start (docs/webhooks.md)",
    ]);
    const keyed = await startTestApp({
      database,
      whatsapp: { secretKey: Buffer.alloc(32, 5).toString("base64") },
      logger,
    });
    await keyed.close();
    expect(warnings()).toHaveLength(1);
  });

  it("records a sealed secret it cannot open (another key, or none) as the attempt's error, and retries", async () => {
    const receiver = await startReceiver({ decide: () => 204 });
    try {
      const endpoint = await createEndpoint(receiver.url, ["workspace.created"]);
      const otherKey = secretBoxFromKey(Buffer.alloc(32, 3).toString("base64"));
      // Sealed by an instance with another key (an `admin copy`, a rotated key); this one has none.
      await t.database.db
        .updateTable("webhook_endpoints")
        .set({ secret: storedSigningSecret(endpoint.secret, otherKey) })
        .execute();
      await t.createWorkspace();
      await t.runJobs();
      const attempts = (
        await t.request("GET", `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`)
      ).json().data;
      expect(attempts).toMatchObject([
        {
          attempt: 1,
          delivered: false,
          error:
            "not sent: its signing secret is sealed and this instance has no RESELLER_SECRET_KEY to open it",
        },
      ]);
      expect(receiver.received).toHaveLength(0);
      const keyed = await startTestApp({
        whatsapp: { secretKey: Buffer.alloc(32, 4).toString("base64") },
      });
      try {
        const other = await keyed.request("POST", "/api/v1/webhook-endpoints", {
          body: { url: receiver.url, events: ["workspace.created"] },
        });
        const { id, secret } = other.json().data;
        await keyed.database.db
          .updateTable("webhook_endpoints")
          .set({ secret: storedSigningSecret(secret, otherKey) })
          .execute();
        await keyed.createWorkspace();
        await keyed.runJobs();
        const tried = (
          await keyed.request("GET", `/api/v1/webhook-endpoints/${id}/deliveries`)
        ).json().data;
        expect(tried[0].error).toBe(
          "not sent: its signing secret was sealed under another RESELLER_SECRET_KEY; set that key, or create the endpoint again",
        );
      } finally {
        await keyed.close();
      }
    } finally {
      await receiver.close();
    }
  });

  it("retries a failed delivery with backoff and sends the same event id again", async () => {
    const receiver = await startReceiver({ answers: [500, 200] });
    try {
      const endpoint = await createEndpoint(receiver.url);
      await t.createWorkspace();
      await t.runJobs();
      expect(receiver.received.map((r) => r.status)).toEqual([500]);
      // Not before the first retry delay (60 s here).
      t.clock.advance(59_000);
      await t.runJobs();
      expect(receiver.received).toHaveLength(1);
      t.clock.advance(1_000);
      await t.runJobs();
      expect(receiver.received.map((r) => r.status)).toEqual([500, 200]);
      const ids = receiver.received.map((r) => r.headers["reseller-event-id"]);
      expect(ids[0]).toBe(ids[1]);
      // Delivered: nothing more is sent.
      t.clock.advance(3_600_000);
      await t.runJobs();
      expect(receiver.received).toHaveLength(2);

      const attempts = (
        await t.request("GET", `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`)
      ).json();
      expect(attempts.data).toMatchObject([
        { attempt: 2, status_code: 200, delivered: true, error: null, event_id: ids[0] },
        { attempt: 1, status_code: 500, delivered: false, error: "the receiver answered 500" },
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("shows on the endpoint what it still owes and how its latest delivery went, so a failing receiver is seen", async () => {
    const receiver = await startReceiver({ answers: [500, 200] });
    try {
      const endpoint = await createEndpoint(receiver.url);
      expect(endpoint).toMatchObject({ pending_deliveries: 0, last_attempt: null });
      await t.createWorkspace();
      await t.runJobs();
      const failing = (await t.request("GET", `/api/v1/webhook-endpoints/${endpoint.id}`)).json()
        .data;
      expect(failing).toMatchObject({
        pending_deliveries: 1,
        last_attempt: { attempt: 1, status_code: 500, delivered: false },
      });
      t.clock.advance(60_000);
      await t.runJobs();
      const [listed] = (await t.request("GET", "/api/v1/webhook-endpoints")).json().data;
      expect(listed).toMatchObject({
        id: endpoint.id,
        pending_deliveries: 0,
        last_attempt: { attempt: 2, status_code: 200, delivered: true },
      });
    } finally {
      await receiver.close();
    }
  });

  it("counts the retry delay from the attempt's end, so a receiver that times out still gets the full wait", async () => {
    // The receiver takes 12 s (past the 10 s limit, as the clock sees it) and then fails.
    const receiver = await startReceiver({
      decide: () => {
        t.clock.advance(12_000);
        return 500;
      },
    });
    try {
      await createEndpoint(receiver.url);
      await t.createWorkspace();
      const sentAt = t.clock.now().getTime();
      await t.runJobs();
      expect(receiver.received).toHaveLength(1);
      const [job] = await t.database.db
        .selectFrom("jobs")
        .select("run_at")
        .where("kind", "=", "webhook.deliver")
        .execute();
      // 60 s after the answer came (12 s after the attempt began), not 60 s after it began.
      expect(new Date(job?.run_at ?? 0).getTime() - sentAt).toBe(72_000);
    } finally {
      await receiver.close();
    }
  });

  it("gives up three days after the event, recording every attempt", async () => {
    const endpoint = await createEndpoint("http://127.0.0.1:9/unreachable");
    await t.createWorkspace();
    for (let i = 0; i < 40; i++) {
      await t.runJobs();
      t.clock.advance(6 * 3_600_000);
    }
    const attempts = (
      await t.request("GET", `/api/v1/webhook-endpoints/${endpoint.id}/deliveries?per_page=100`)
    ).json().data as { error: string; delivered: boolean }[];
    // 1, 2, 4 … minutes, then every 6 hours at most, within 72 hours.
    expect(attempts.length).toBeGreaterThan(10);
    expect(attempts.length).toBeLessThan(25);
    expect(attempts.every((a) => !a.delivered && a.error !== null)).toBe(true);
    const jobs = await t.database.db
      .selectFrom("jobs")
      .select("state")
      .where("kind", "=", "webhook.deliver")
      .execute();
    expect(jobs.map((j) => j.state)).toEqual(["done"]);
  });

  it("lets only a reseller token redeliver: a client's workspace token reads its events but cannot resend them", async () => {
    await createEndpoint("https://crm.example.test/hooks");
    const ws = await t.createWorkspace();
    const client = await t.tokenWith(["webhooks:read", "webhooks:write"], ws);
    const [event] = (await t.request("GET", "/api/v1/events", { token: client })).json()
      .data as Json[];
    expect(event).toBeDefined();
    const res = await t.request("POST", `/api/v1/events/${event?.id}/redeliver`, {
      token: client,
      body: {},
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error_code: "insufficient_scope" });
    expect(res.body).not.toMatch(/we_/);
  });

  it("redelivers an event on request, and not to a disabled endpoint", async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpoint(receiver.url);
      await t.createWorkspace();
      await t.runJobs();
      const [event] = (await t.request("GET", "/api/v1/events")).json().data as Json[];
      const res = await t.request("POST", `/api/v1/events/${event?.id}/redeliver`, { body: {} });
      expect(res.statusCode).toBe(202);
      expect(res.json().data.deliveries).toEqual([
        { id: expect.stringMatching(/^wd_/), endpoint_id: endpoint.id },
      ]);
      await t.runJobs();
      expect(receiver.received.map((r) => r.headers["reseller-event-id"])).toEqual([
        event?.id,
        event?.id,
      ]);

      await t.request("PATCH", `/api/v1/webhook-endpoints/${endpoint.id}`, {
        body: { enabled: false },
      });
      await t.createWorkspace({ name: "Quiet" });
      await t.runJobs();
      expect(receiver.received).toHaveLength(2);
      // Named, a disabled endpoint is a refusal that says so, not a redelivery to no one.
      const named = await t.request("POST", `/api/v1/events/${event?.id}/redeliver`, {
        body: { endpoint_id: endpoint.id },
      });
      expect(named.statusCode).toBe(422);
      expect(named.json().details[0]).toMatchObject({ field: "endpoint_id" });
      expect(named.json().message).toContain("disabled");
      expect(
        (await t.request("POST", "/api/v1/events/evt_missing/redeliver", { body: {} })).statusCode,
      ).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});

describe("--block-private-webhooks", () => {
  it("refuses endpoint URLs that resolve to loopback, private or link-local addresses", async () => {
    const t = await startTestApp({ webhooks: { blockPrivate: true } });
    try {
      for (const url of [
        "http://127.0.0.1:4000/hooks",
        "http://localhost/hooks",
        "http://10.1.2.3/hooks",
        "http://192.168.1.10/hooks",
        "http://169.254.169.254/latest",
        "http://[::1]/hooks",
        "http://[fe80::1]/hooks",
      ]) {
        const res = await t.request("POST", "/api/v1/webhook-endpoints", { body: { url } });
        expect(res.statusCode, url).toBe(422);
        expect(res.json().details[0].field).toBe("url");
      }
      const publicUrl = await t.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: "https://93.184.215.14/hooks" },
      });
      expect(publicUrl.statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it("refuses a delivery whose host resolves to a private address by the time it is sent (DNS rebinding)", async () => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    // Public when the endpoint is created and checked, loopback when the delivery connects.
    let lookups = 0;
    const resolver = async () => {
      lookups += 1;
      return [{ address: lookups <= 2 ? "93.184.215.14" : "127.0.0.1", family: 4 }];
    };
    const t = await startTestApp({ webhooks: { blockPrivate: true, resolver, retryBaseMs: 1000 } });
    try {
      const created = await t.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: `http://rebind.example:${port}/hooks` },
      });
      expect(created.statusCode).toBe(201);
      await t.createWorkspace();
      await t.runJobs();
      expect(receiver.received).toHaveLength(0);
      const attempts = await t.database.db.selectFrom("webhook_attempts").selectAll().execute();
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts[0]?.error).toContain("127.0.0.1");
      expect(attempts[0]?.delivered).toBe(0);
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
