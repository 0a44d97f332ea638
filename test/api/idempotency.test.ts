import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestFingerprint } from "../../src/service/plugins/idempotency.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const body = { name: "Acme", contact_email: "owner@acme.test" };

describe("Idempotency-Key on POST", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  function post(key: string | undefined, payload: unknown = body, token?: string) {
    return t.request("POST", "/api/v1/workspaces", {
      body: payload,
      headers: key === undefined ? {} : { "idempotency-key": key },
      ...(token ? { token } : {}),
    });
  }

  async function workspaceCount() {
    return (await t.database.db.selectFrom("workspaces").select("id").execute()).length;
  }

  async function outboxCount() {
    return (await t.database.db.selectFrom("outbox").select("id").execute()).length;
  }

  it("replays the first response unchanged for a retry and does the work once", async () => {
    const first = await post("create-acme-1");
    expect(first.statusCode).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    t.clock.advance(60_000);
    const retry = await post("create-acme-1");
    expect(retry.statusCode).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.headers["content-type"]).toContain("application/json");
    expect(retry.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
    expect(retry.body).toBe(first.body);
    expect(await workspaceCount()).toBe(1);
    expect(await outboxCount()).toBe(1);
  });

  it("treats the same body in another key order as the same request", async () => {
    await post("k", { name: "Acme", contact_email: "owner@acme.test" });
    const retry = await post("k", { contact_email: "owner@acme.test", name: "Acme" });
    expect(retry.headers["idempotent-replayed"]).toBe("true");
  });

  it("refuses the same key with a different body with 422 idempotency_key_reused", async () => {
    await post("create-acme-2");
    const res = await post("create-acme-2", { ...body, name: "Other" });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error_code: "idempotency_key_reused" });
    expect(await workspaceCount()).toBe(1);
  });

  it("refuses the same key on another endpoint as a reused key", async () => {
    await post("shared");
    const res = await t.request("POST", "/api/v1/tokens", {
      body: { name: "ci", scopes: ["plans:read"] },
      headers: { "idempotency-key": "shared" },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ error_code: "idempotency_key_reused" });
  });

  it("accepts keys up to 255 characters and refuses longer ones with a 422", async () => {
    expect((await post("k".repeat(255))).statusCode).toBe(201);
    const res = await post("k".repeat(256));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      error_code: "validation_failed",
      details: [{ field: "Idempotency-Key" }],
    });
  });

  it("counts a key's characters, not its UTF-8 bytes: 130 'é' is a key of 130", async () => {
    // As Node hands a header's UTF-8 bytes over: one character per byte.
    const asReceived = (text: string) => Buffer.from(text, "utf8").toString("latin1");
    expect((await post(asReceived("é".repeat(130)))).statusCode).toBe(201);
    expect((await post(asReceived("é".repeat(256)))).statusCode).toBe(422);
  });

  it("keeps keys per token: another token's same key is a new request", async () => {
    const otherToken = await t.tokenWith(["workspaces:write"]);
    await post("per-token");
    const res = await post("per-token", body, otherToken);
    expect(res.statusCode).toBe(201);
    expect(res.headers["idempotent-replayed"]).toBeUndefined();
    expect(await workspaceCount()).toBe(2);
  });

  it("forgets a key after 24 hours of the service's clock", async () => {
    await post("daily");
    t.clock.advance(24 * 60 * 60 * 1000 - 1000);
    expect((await post("daily")).headers["idempotent-replayed"]).toBe("true");
    t.clock.advance(1000);
    const fresh = await post("daily", { ...body, name: "Tomorrow" });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
    expect(await workspaceCount()).toBe(2);
  });

  it("replays an error response too, such as a validation failure", async () => {
    const first = await post("bad", { name: "Acme" });
    expect(first.statusCode).toBe(422);
    const retry = await post("bad", { name: "Acme" });
    expect(retry.statusCode).toBe(422);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.body).toBe(first.body);
  });

  it("does the work once when duplicates arrive while the first is still running", async () => {
    // The first request stays inside its SMTP send until released, so the duplicates really
    // arrive while it runs.
    await t.close();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sends = 0;
    let reached = () => {};
    const firstIsSending = new Promise<void>((resolve) => {
      reached = resolve;
    });
    t = await startTestApp({
      mailer: {
        send: async () => {
          sends++;
          reached();
          await gate;
        },
      },
    });
    const first = post("burst");
    await firstIsSending;
    const duplicates = [post("burst"), post("burst")];
    // Lets the duplicates get as far as they can while the first still holds the key.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sends).toBe(1);
    release();
    const responses = await Promise.all([first, ...duplicates]);
    expect(responses.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(responses.map((r) => r.headers["idempotent-replayed"])).toEqual([
      undefined,
      "true",
      "true",
    ]);
    expect(await workspaceCount()).toBe(1);
    expect(sends).toBe(1);
  });

  it("answers 409 with Retry-After while another process still holds the key", async () => {
    const tokenId = (await t.request("GET", "/api/v1/tokens/current")).json().data.id;
    await t.database.db
      .insertInto("idempotency_keys")
      .values({
        token_id: tokenId,
        key: "held",
        request_hash: requestFingerprint("POST", "/api/v1/workspaces", body),
        state: "in_progress",
        response_status: null,
        response_headers: null,
        response_body: null,
        locked_until: "2026-11-22T09:30:30Z",
        created_at: "2026-11-22T09:30:00Z",
        expires_at: "2026-11-23T09:30:00Z",
      })
      .execute();
    const res = await post("held");
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error_code: "idempotency_request_in_progress" });
    expect(res.headers["retry-after"]).toBe("30");
    // A claim whose process died is taken over once its lease has run out.
    t.clock.advance(30_000);
    expect((await post("held")).statusCode).toBe(201);
    expect(await workspaceCount()).toBe(1);
  });

  it("replays a retried token create to its caller, storing the secret only sealed with the caller's token", async () => {
    const headers = { "idempotency-key": "new-token" };
    const payload = { name: "ci", scopes: ["plans:read"] };
    const first = await t.request("POST", "/api/v1/tokens", { body: payload, headers });
    expect(first.statusCode).toBe(201);
    const { token } = first.json().data;
    const retry = await t.request("POST", "/api/v1/tokens", { body: payload, headers });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.json()).toEqual(first.json());
    const stored = await t.database.db.selectFrom("idempotency_keys").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
    const tokens = await t.request("GET", "/api/v1/tokens");
    expect(tokens.json().meta.pagination.total).toBe(2);
  });

  it("answers 409 secret_not_replayable, never a secret, when a sealed answer cannot be opened", async () => {
    const headers = { "idempotency-key": "tampered" };
    const payload = { name: "ci", scopes: ["plans:read"] };
    const first = await t.request("POST", "/api/v1/tokens", { body: payload, headers });
    expect(first.statusCode).toBe(201);
    const [row] = await t.database.db.selectFrom("idempotency_keys").selectAll().execute();
    const body = String(row?.response_body);
    const flipped = `${body.slice(0, -4)}${body.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    await t.database.db
      .updateTable("idempotency_keys")
      .set({ response_body: flipped })
      .where("key", "=", "tampered")
      .execute();
    const retry = await t.request("POST", "/api/v1/tokens", { body: payload, headers });
    expect(retry.statusCode).toBe(409);
    expect(retry.json()).toMatchObject({ error_code: "secret_not_replayable" });
    expect(retry.body).not.toContain(first.json().data.token);
  });

  it("compares a CSV streamed as text/csv by its bytes: a retry replays, another file is 422", async () => {
    const ws = await t.createWorkspace();
    const upload = (csv: string) =>
      t.request("POST", `/api/v1/workspaces/${ws}/contacts/import?default_country=DE`, {
        body: csv,
        headers: { "content-type": "text/csv", "idempotency-key": "import-1" },
      });
    const first = await upload("phone\n0151 12340001\n");
    expect(first.statusCode).toBe(202);
    const retry = await upload("phone\n0151 12340001\n");
    expect(retry.statusCode).toBe(202);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.body).toBe(first.body);
    const other = await upload("phone\n0151 12340002\n");
    expect(other.statusCode).toBe(422);
    expect(other.json().error_code).toBe("idempotency_key_reused");
    const imports = await t.database.db.selectFrom("contact_imports").select("id").execute();
    expect(imports).toHaveLength(1);
  });

  it("ignores the header on requests that are not POST", async () => {
    const id = await t.createWorkspace();
    const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
      body: { name: "Renamed" },
      headers: { "idempotency-key": "x".repeat(300) },
    });
    expect(res.statusCode).toBe(200);
  });
});
