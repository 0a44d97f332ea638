import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiClient } from "./api-client.js";
import { ApiError } from "./api-error.js";

/** A request through a proxy that misbehaves ends in time, as one without a proxy does. */
describe("the API client behind a broken HTTP_PROXY", () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  const saved = { ...process.env };
  afterEach(async () => {
    process.env = { ...saved };
    for (const socket of sockets.splice(0)) socket.destroy();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  /** A proxy whose tunnel requests get `answer`; the client's requests go through it. */
  async function clientBehind(answer: (socket: Socket) => void) {
    const proxy = createServer();
    proxy.on("connect", (_req, socket: Socket) => {
      sockets.push(socket);
      answer(socket);
    });
    servers.push(proxy);
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const { port } = proxy.address() as { port: number };
    process.env.HTTP_PROXY = `http://127.0.0.1:${port}`;
    process.env.http_proxy = process.env.HTTP_PROXY;
    process.env.NO_PROXY = "";
    process.env.no_proxy = "";
    return new ApiClient({
      baseUrl: "http://127.0.0.1:9",
      userAgent: "test",
      connectTimeoutMs: 300,
      responseTimeoutMs: 300,
      retry: { maxRetries: 0 },
    });
  }

  async function failure(client: ApiClient): Promise<{ error: unknown; ms: number }> {
    const started = performance.now();
    const error = await client.get("/api/v1/plans/1", z.unknown()).then(
      () => null,
      (e: unknown) => e,
    );
    return { error, ms: performance.now() - started };
  }

  it("gives up on a proxy that never answers the tunnel request, as a timeout", async () => {
    const client = await clientBehind(() => {});
    const { error, ms } = await failure(client);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe("timeout");
    expect((error as ApiError).message).toContain("through the proxy (HTTP_PROXY / HTTPS_PROXY)");
    expect((error as ApiError).message).toContain("did not open the tunnel in time");
    expect(ms).toBeLessThan(5_000);
  });

  it("gives up on a proxy that drops every tunnel request, instead of reconnecting forever", async () => {
    const client = await clientBehind((socket) => socket.destroy());
    const { error, ms } = await failure(client);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe("network");
    expect((error as ApiError).message).toContain("through the proxy (HTTP_PROXY / HTTPS_PROXY)");
    expect(ms).toBeLessThan(5_000);
  });
});

/** A service that took the request and went quiet is not asked again: the wait would multiply. */
describe("the API client and a service that never answers", () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((r) => (server ? server.close(r) : r(null)));
  });

  it("gives up after one response timeout instead of repeating the request", async () => {
    let requests = 0;
    server = createServer(() => {
      requests += 1;
    });
    server.on("connection", (socket) => sockets.push(socket));
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const client = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      userAgent: "test",
      responseTimeoutMs: 300,
      retry: { maxRetries: 3, baseBackoffMs: 1 },
    });
    const error = await client.get("/api/v1/plans", z.unknown()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe("timeout");
    expect((error as ApiError).message).toContain("did not answer in time");
    expect(requests).toBe(1);
  });
});

/** Whether an answer replayed under its Idempotency-Key is news: an earlier run's, not this one's. */
describe("the API client's replay notice", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
  });

  /** A service answering each POST in turn as `answers` say ("drop": closes the connection). */
  async function clientOf(answers: (number | "drop")[]) {
    server = createServer((req, res) => {
      const answer = answers.shift() ?? 201;
      if (answer === "drop") {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer, {
        "content-type": "application/json",
        ...(answer === 201 ? { "idempotent-replayed": "true" } : { "retry-after": "0" }),
      });
      res.end(JSON.stringify(answer === 201 ? { status: "success", data: {}, meta: {} } : {}));
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const replays: string[] = [];
    const client = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      userAgent: "test",
      retry: { maxRetries: 2 },
      sleep: async () => {},
      onReplay: (e) => replays.push(`${e.method} ${e.path}`),
    });
    return { client, replays };
  }

  it("says so for a replay on the first attempt and after a 429, which did nothing", async () => {
    for (const before of [[], [429]]) {
      const { client, replays } = await clientOf([...before, 201]);
      await client.call("POST", "/api/v1/workspaces", z.unknown(), { body: {} });
      expect(replays, String(before)).toEqual(["POST /api/v1/workspaces"]);
      await new Promise((r) => server?.close(r));
    }
  });

  it("keeps quiet after a lost answer, whose replay is this run's own", async () => {
    const { client, replays } = await clientOf(["drop", 201]);
    await client.call("POST", "/api/v1/workspaces", z.unknown(), { body: {} });
    expect(replays).toEqual([]);
  });
});

describe("the API client's retries after 429 and 503", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(null)));
  });

  it("repeats every method after a 429 or a 503, which did nothing: a PATCH too", async () => {
    for (const refusal of [429, 503]) {
      const seen: string[] = [];
      const answers = [refusal, 200];
      server = createServer((req, res) => {
        seen.push(req.method ?? "");
        const answer = answers.shift() ?? 200;
        res.writeHead(answer, { "content-type": "application/json", "retry-after": "0" });
        res.end(JSON.stringify({ status: "success", data: {}, meta: {} }));
      });
      await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
      const { port } = server.address() as { port: number };
      const client = new ApiClient({
        baseUrl: `http://127.0.0.1:${port}`,
        userAgent: "test",
        retry: { maxRetries: 2 },
        sleep: async () => {},
      });
      await client.call("PATCH", "/api/v1/workspaces/ws_1", z.unknown(), { body: { name: "N" } });
      expect(seen, String(refusal)).toEqual(["PATCH", "PATCH"]);
      await new Promise((r) => server?.close(r));
      server = undefined;
    }
  });
});

describe("the API client at a base URL that is not the service", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(null)));
  });

  async function answering(body: string, type: string): Promise<unknown> {
    server = createServer((_req, res) => res.writeHead(200, { "content-type": type }).end(body));
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, userAgent: "test" });
    return client.get("/api/v1/plans", z.object({ data: z.array(z.unknown()) })).then(
      () => null,
      (e: unknown) => e,
    );
  }

  it("says to check the base URL when the answer is no envelope of the service", async () => {
    for (const [body, type] of [
      ["ok", "text/plain"],
      ['{"hello":"world"}', "application/json"],
    ] as const) {
      const error = await answering(body, type);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toContain("without the reseller service's JSON envelope");
      expect((error as ApiError).message).toContain(
        "the base URL may not be the reseller service's",
      );
      // Which flag or variable set it is the CLI's to say (report-error.ts hintFor).
      expect((error as ApiError).message).not.toContain("--base-url");
    }
  });

  it("asks whether the base URL is right when a 404 is not the service's error envelope", async () => {
    server = createServer((_req, res) =>
      res.writeHead(404, { "content-type": "text/html" }).end("<!DOCTYPE HTML><title>404</title>"),
    );
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, userAgent: "test" });
    const error = await client.get("/api/v1/plans", z.unknown()).then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as ApiError).status).toBe(404);
    expect((error as ApiError).message).toContain("is the base URL right?");
  });

  it("still says the client may be older than the service when the envelope holds other data", async () => {
    const error = await answering('{"status":"success","data":{}}', "application/json");
    expect((error as ApiError).message).toContain("this client may be older than the service");
  });
});
