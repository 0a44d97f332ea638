import { once } from "node:events";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { contactImportJobKind } from "../../src/service/jobs/job-kinds.js";
import { enqueueJob } from "../../src/service/jobs/job-queue.js";
import { logLines } from "../helpers/log-lines.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const template = JSON.parse(
  readFileSync(new URL("../../examples/template.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

/** Sends raw bytes to the listening service and returns what it answered. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(request);
  });
}

function envelopeOf(answer: string) {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return { head, body: JSON.parse(body) as Record<string, unknown> };
}

describe("HTTP edges", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());
  /** POSTs `payload` as it is, with the admin token and this Content-Type. */
  const post = (url: string, contentType: string, payload: string | Buffer) =>
    t.app.inject({
      method: "POST",
      url,
      headers: { authorization: `Bearer ${t.token}`, "content-type": contentType },
      payload,
    });

  it("takes a POST with Content-Type: application/json and no body as one without a body", async () => {
    const ws = await t.createWorkspace();
    const created = await t.request("POST", `/api/v1/workspaces/${ws}/templates`, {
      body: { ...template, draft: true },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { data: { id: string } }).data.id;
    const submitted = await t.app.inject({
      method: "POST",
      url: `/api/v1/workspaces/${ws}/templates/${id}/submit`,
      headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
    });
    expect(submitted.statusCode, submitted.body).toBe(200);
  });

  it("names the Content-Type it refuses (415) and what to send instead", async () => {
    const ws = await t.createWorkspace();
    const res = await post(
      `/api/v1/workspaces/${ws}/contacts/import`,
      "multipart/form-data; boundary=x",
      "--x--",
    );
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ error_code: "unsupported_media_type" });
    expect(res.json().message).toContain(
      "(multipart/form-data) is not accepted: send application/json",
    );
  });

  it("refuses a CSV body on every route but the import with 415, whatever its size, before any of it is read", async () => {
    const ws = await t.createWorkspace();
    const created = await post(
      "/api/v1/workspaces",
      "text/csv",
      "name,contact_email\nx,a@example.test",
    );
    expect(created.statusCode).toBe(415);
    expect(created.json().message).toContain("(text/csv) is not accepted");
    const big = await post("/api/v1/tokens", "text/csv", "x".repeat(5 * 1024 * 1024));
    expect(big.statusCode).toBe(415);
    const res = await post(
      `/api/v1/workspaces/${ws}/campaigns/cmp_nope/launch`,
      "text/csv",
      "a\n1",
    );
    expect(res.statusCode).toBe(415);
  });

  it.each(["text/plain", "text/xml", "application/x-www-form-urlencoded"])(
    "refuses a JSON body sent as %s with 415, as every type no route takes",
    async (type) => {
      const res = await post(
        "/api/v1/workspaces",
        type,
        '{"name":"A","contact_email":"a@example.test"}',
      );
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ error_code: "unsupported_media_type" });
      expect(res.json().message).toContain(`(${type}) is not accepted`);
    },
  );

  it("refuses a body that says something on a route that takes none, doing nothing (422 naming each field)", async () => {
    const ws = await t.createWorkspace();
    const created = await t.request("POST", `/api/v1/workspaces/${ws}/templates`, {
      body: { ...template, draft: true },
    });
    const id = (created.json() as { data: { id: string } }).data.id;
    const submit = (payload: string) =>
      post(`/api/v1/workspaces/${ws}/templates/${id}/submit`, "application/json", payload);
    const refused = await submit('{"dry_run":true}');
    expect(refused.statusCode).toBe(422);
    expect(refused.json().details).toEqual([
      { field: "dry_run", message: "is not a field this endpoint accepts: it takes no body" },
    ]);
    expect((await submit("[1]")).json().details[0].field).toBe("(body)");
    const stored = await t.request("GET", `/api/v1/workspaces/${ws}/templates/${id}`);
    expect(stored.json().data.status).toBe("draft");
    // What HTTP wrappers send with every POST is no body: each submits a draft of its own.
    for (const none of ["{}", "null"]) {
      const other = await t.request("POST", `/api/v1/workspaces/${ws}/templates`, {
        body: { ...template, name: `none_${none === "{}" ? "object" : "null"}`, draft: true },
      });
      const otherId = (other.json() as { data: { id: string } }).data.id;
      const answer = await post(
        `/api/v1/workspaces/${ws}/templates/${otherId}/submit`,
        "application/json",
        none,
      );
      expect(answer.statusCode, none).toBe(200);
    }
  });

  it("answers a path whose id is empty (a trailing slash) as no endpoint, and a body sent to a mistyped path with its 404", async () => {
    const empty = await t.app.inject({
      method: "GET",
      url: "/api/v1/workspaces/",
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(empty.statusCode).toBe(404);
    expect(empty.json().message).toBe("No endpoint GET /api/v1/workspaces/.");
    const typo = await post("/api/v1/wokspaces", "application/json", '{"name":"x"}');
    expect(typo.statusCode).toBe(404);
  });

  it("takes an empty text/plain body as no body, as a browser's fetch sends with a body-less POST", async () => {
    const ws = await t.createWorkspace();
    const res = await post(
      `/api/v1/workspaces/${ws}/campaigns/cmp_nope/cancel`,
      "text/plain;charset=UTF-8",
      "",
    );
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error_code: "not_found" });
  });

  it("says a JSON object body is needed when a POST sends none", async () => {
    const ws = await t.createWorkspace();
    const res = await t.app.inject({
      method: "POST",
      url: `/api/v1/workspaces/${ws}/contacts`,
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      {
        field: "(body)",
        message: "the request needs a JSON object as its body (Content-Type: application/json)",
      },
    ]);
  });

  it("refuses invalid UTF-8 inside a JSON string (400 invalid_json) and stores nothing", async () => {
    const before = await t.request("GET", "/api/v1/workspaces");
    const bytes = Buffer.concat([
      Buffer.from('{"name":"Caf'),
      Buffer.from([0xe9]),
      Buffer.from('","contact_email":"x@example.test","send_invitation":false}'),
    ]);
    const res = await post("/api/v1/workspaces", "application/json", bytes);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: "error", error_code: "invalid_json" });
    expect(res.json().message).toContain("UTF-8");
    const after = await t.request("GET", "/api/v1/workspaces");
    expect(after.json().data).toHaveLength(before.json().data.length);
  });

  it.each([
    '{"name":"A","contact_email":"a@example.test","__proto__":{"x":1}}',
    '{"name":"A","contact_email":"a@example.test","constructor":{"prototype":{"x":1}}}',
  ])(
    "refuses parseable JSON with a prototype key (%s) as 422 naming the key, and stores nothing",
    async (body) => {
      const before = await t.request("GET", "/api/v1/workspaces");
      const res = await post("/api/v1/workspaces", "application/json", body);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ status: "error", error_code: "validation_failed" });
      expect(res.json().details).toEqual([
        { field: "(body)", message: expect.stringContaining("__proto__") },
      ]);
      const after = await t.request("GET", "/api/v1/workspaces");
      expect(after.json().data).toHaveLength(before.json().data.length);
    },
  );

  it("answers headers over 16 KB with 431 in the error envelope, with an X-Request-Id and the address's rate budget", async () => {
    const answer = await raw(
      port,
      `GET /api/v1/plans HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    const { head, body } = envelopeOf(answer);
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/\r\nX-Request-Id: req_\w+/i);
    expect(head).toMatch(/\r\nRateLimit-Limit: \d+/i);
    expect(head).toMatch(/\r\nRateLimit-Remaining: \d+/i);
    expect(head).toMatch(/\r\nRateLimit-Reset: \d+/i);
    expect(body).toMatchObject({ status: "error", error_code: "headers_too_large" });
  });

  it("answers a URL over 16 KB with the same 431, saying the URL counts", async () => {
    const answer = await raw(
      port,
      `GET /api/v1/plans?search=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const { head, body } = envelopeOf(answer);
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(body).toMatchObject({
      error_code: "headers_too_large",
      message: "The request's URL and headers are larger than the service accepts (16 KB in all).",
    });
  });

  it("answers a request Node cannot parse with 400 bad_request in the envelope", async () => {
    const answer = await raw(port, "GET /api/v1/plans HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    const { head, body } = envelopeOf(answer);
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\nX-Request-Id: req_\w+/i);
    expect(head).toMatch(/\r\nRateLimit-Remaining: \d+/i);
    expect(body).toMatchObject({ status: "error", error_code: "bad_request" });
  });

  it("answers a path whose escapes do not decode with 400 invalid_url, its request id and rate budget", async () => {
    const answer = await raw(
      port,
      "GET /api/v1/plans%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    const { head, body } = envelopeOf(answer);
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\nX-Request-Id: req_\w+/i);
    expect(head).toMatch(/\r\nRateLimit-Limit: \d+/i);
    expect(head).toMatch(/\r\nRateLimit-Remaining: \d+/i);
    expect(head).toMatch(/\r\nRateLimit-Reset: \d+/i);
    expect(body).toMatchObject({ status: "error", error_code: "invalid_url" });
  });

  it("answers 2,000 headers with the envelope too", async () => {
    const headers = Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${i}\r\n`).join("");
    const answer = await raw(port, `GET /api/v1/plans HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
    const { head, body } = envelopeOf(answer);
    expect(head).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(head).toMatch(/\r\nX-Request-Id: req_\w+/i);
    expect(body).toMatchObject({ status: "error" });
  });
});

describe("a client that hangs up mid-body", () => {
  it("is logged as the client's doing, never as the database failing", async () => {
    const { logger, lines } = logLines();
    const t = await startTestApp({ logger });
    try {
      await t.app.listen({ host: "127.0.0.1", port: 0 });
      const { port } = t.app.server.address() as AddressInfo;
      const socket = connect(port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      const arrived = once(t.app.server, "request");
      socket.write(
        `POST /api/v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"a",`,
      );
      // Its head read, and a moment for the token's check, so its body is being read when the
      // client goes.
      await arrived;
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await vi.waitFor(
        () =>
          expect(lines.map((line) => line.msg)).toContain(
            "the client closed the connection before the request's body ended",
          ),
        { timeout: 10_000 },
      );
      expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe("campaign input messages", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const create = async (extra: Record<string, unknown>) => {
    const ws = await t.createWorkspace();
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/campaigns`, {
      body: {
        name: "Spring",
        channel_id: "ch_x",
        template_name: "t",
        template_language: "en",
        ...extra,
      },
    });
    expect(res.statusCode).toBe(422);
    return res.json() as { details: { field: string; message: string }[] };
  };

  it("says scheduled_at needs an offset when it has none", async () => {
    const body = await create({ audience: { all: true }, scheduled_at: "2026-12-01T09:00:00" });
    expect(body.details).toContainEqual({
      field: "scheduled_at",
      message: expect.stringContaining("needs a time-zone offset"),
    });
  });

  it("names the three forms of an audience when none fits", async () => {
    const body = await create({ audience: { everyone: true } });
    const detail = body.details.find((d) => d.field === "audience");
    expect(detail?.message).toContain('{"all": true}');
    expect(detail?.message).toContain('{"tags"');
    expect(detail?.message).toContain('{"contact_ids"');
  });
});

describe("missing and mistyped fields", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const details = async (path: string, body: Record<string, unknown>) => {
    const res = await t.request("POST", path, { body });
    expect(res.statusCode).toBe(422);
    return (res.json() as { details: { field: string; message: string }[] }).details;
  };

  it("says a missing field is required, and what it takes", async () => {
    expect(await details("/api/v1/workspaces", { contact_email: "a@example.test" })).toContainEqual(
      {
        field: "name",
        message: "name is required: a string",
      },
    );
    const ws = await t.createWorkspace();
    const phone = await details(`/api/v1/workspaces/${ws}/contacts`, { first_name: "Ada" });
    expect(phone).toContainEqual({
      field: "phone",
      message: expect.stringMatching(/^phone is required: a string in E\.164/),
    });
  });

  it("says a field of the wrong type must be of the right one, not that it is missing", async () => {
    const ws = await t.createWorkspace();
    const phone = await details(`/api/v1/workspaces/${ws}/contacts`, { phone: 4915112345678 });
    expect(phone).toContainEqual({
      field: "phone",
      message: expect.stringMatching(/^phone must be a string in E\.164/),
    });
    expect(
      await details("/api/v1/workspaces", { name: 7, contact_email: "a@example.test" }),
    ).toContainEqual({
      field: "name",
      message: "name must be a string",
    });
  });

  it("words a wrong type the same way for fields without a message of their own", async () => {
    const ws = await t.createWorkspace();
    expect(
      await details("/api/v1/tokens", { name: "CI", scopes: ["plans:read"], expires_at: 7 }),
    ).toContainEqual({ field: "expires_at", message: "expires_at must be a string; got a number" });
    expect(
      await details(`/api/v1/workspaces/${ws}/campaigns`, { variable_mapping: ["first_name"] }),
    ).toContainEqual({
      field: "variable_mapping",
      message: "variable_mapping must be an object; got a list",
    });
  });
});

describe("an instance that begins a graceful stop", () => {
  it("finishes the request in flight and answers the next one on that connection with the service's 503", async () => {
    const t = await startTestApp();
    let closing: Promise<void> | undefined;
    try {
      await t.app.listen({ host: "127.0.0.1", port: 0 });
      const { port } = t.app.server.address() as AddressInfo;
      const socket = connect(port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString();
      });
      const body = JSON.stringify({ name: "In flight", contact_email: "a@example.com" });
      const head = `POST /api/v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      // In flight once the service has read its head: a connection without one is idle, and closed.
      const arrived = once(t.app.server, "request");
      socket.write(head + body.slice(0, 10));
      await arrived;
      closing = t.app.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Without a token: refused as stopping, not as unauthenticated, and counted nowhere.
      socket.write(`${body.slice(10)}GET /api/v1/workspaces HTTP/1.1\r\nHost: x\r\n\r\n`);
      await vi.waitFor(() => expect(answer).toMatch(/HTTP\/1\.1 503[\s\S]*\r\n\r\n\{[\s\S]*\}$/), {
        timeout: 10_000,
      });
      const [first, second = ""] = answer.split(/(?=HTTP\/1\.1 )/);
      expect(first).toMatch(/^HTTP\/1\.1 201/);
      const refused = envelopeOf(second);
      expect(refused.body).toMatchObject({ status: "error", error_code: "service_unavailable" });
      expect(refused.head).toMatch(/x-request-id: /i);
      expect(refused.head).toMatch(/retry-after: 1/i);
      expect(refused.head).toMatch(/ratelimit-limit: /i);
      socket.destroy();
    } finally {
      await closing;
      await t.close();
    }
  });

  it("claims no more jobs once the stop begins, while a client still holds a connection open", async () => {
    const t = await startTestApp();
    let closing: Promise<void> | undefined;
    const socket = { destroy: () => {} } as { destroy(): void };
    try {
      await t.app.listen({ host: "127.0.0.1", port: 0 });
      await t.app.jobs.start();
      const { port } = t.app.server.address() as AddressInfo;
      const held = connect(port, "127.0.0.1");
      socket.destroy = () => held.destroy();
      await new Promise((resolve) => held.once("connect", resolve));
      // A request whose head never ends: the server's close waits for this connection.
      held.write("GET /api/v1/plans HTTP/1.1\r\nHost: x\r\n");
      closing = t.app.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const id = await enqueueJob(t.database.db, t.clock, {
        kind: contactImportJobKind,
        payload: { import_id: "imp_none" },
      });
      t.app.jobs.poke();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const job = await t.database.db
        .selectFrom("jobs")
        .select("state")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      // Left for another instance (or this one's restart), not claimed on the way out.
      expect(job.state).toBe("queued");
    } finally {
      socket.destroy();
      await closing;
      await t.close();
    }
  });
});
