import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * Opens a text/event-stream and reads it for `ms` (or until `close()`): `connected` settles once
 * the service's first chunk has come (from then on new events reach it), `done` with what arrived.
 */
function openStream(
  url: string,
  token: string,
  ms: number,
): { connected: Promise<void>; done: Promise<{ status: number; text: string }>; close(): void } {
  const abort = new AbortController();
  let connect = () => {};
  const connected = new Promise<void>((resolve) => {
    connect = resolve;
  });
  const done = (async () => {
    try {
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
      });
      let text = "";
      const timer = setTimeout(() => abort.abort(), ms);
      try {
        const decoder = new TextDecoder();
        for await (const chunk of response.body ?? []) {
          text += decoder.decode(chunk, { stream: true });
          connect();
        }
      } catch {
        // Aborted at the end of the window.
      } finally {
        clearTimeout(timer);
      }
      return { status: response.status, text };
    } finally {
      connect();
    }
  })();
  return { connected, done, close: () => abort.abort() };
}

/** Reads a text/event-stream for `ms` and answers what arrived. */
function readStream(url: string, token: string, ms: number) {
  return openStream(url, token, ms).done;
}

describe("GET /api/v1/events/stream", () => {
  let t: TestApp;
  let base: string;
  beforeEach(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const address = t.app.server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}/api/v1/events/stream`;
  });
  afterEach(() => t.close());

  it("streams the caller's new events as they happen, filtered by type, and no one else's", async () => {
    const other = await t.otherReseller();
    const mine = openStream(`${base}?types=workspace.created`, t.token, 3000);
    const theirs = openStream(base, other, 3000);
    await Promise.all([mine.connected, theirs.connected]);
    const id = await t.createWorkspace({ name: "Streamed" });
    await t.request("PATCH", `/api/v1/workspaces/${id}`, { body: { name: "Renamed" } });
    const [own, foreign] = await Promise.all([mine.done, theirs.done]);
    expect(own.status).toBe(200);
    const events = own.text
      .split("\n\n")
      .filter((block) => block.includes("data: "))
      .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "workspace.created", workspace_id: id });
    expect(own.text).toContain(`id: ${events[0].id}\nevent: workspace.created\n`);
    expect(foreign.status).toBe(200);
    expect(foreign.text).not.toContain("data: ");
  });

  it("starts with the position it streams from as an id, so a reconnect before any event misses none", async () => {
    const empty = await readStream(base, t.token, 400);
    expect(empty.text.startsWith(": connected\nid: evt_0\n\n")).toBe(true);
    const ws = await t.createWorkspace({ name: "Before" });
    const [latest] = (await t.request("GET", "/api/v1/events")).json().data as { id: string }[];
    const later = await readStream(base, t.token, 400);
    expect(later.text.startsWith(`: connected\nid: ${latest?.id}\n\n`)).toBe(true);
    // A workspace token is not told the reseller's newest event, which may be another workspace's.
    const client = await t.tokenWith(["webhooks:read"], ws);
    const own = await readStream(base, client, 400);
    expect(own.text.startsWith(": connected\n\n")).toBe(true);
  });

  it("refuses unknown types, missing tokens and tokens without webhooks:read", async () => {
    expect((await t.request("GET", "/api/v1/events/stream?types=nope")).statusCode).toBe(422);
    expect((await t.request("GET", "/api/v1/events/stream", { token: null })).statusCode).toBe(401);
    const token = await t.tokenWith(["workspaces:read"]);
    expect((await t.request("GET", "/api/v1/events/stream", { token })).statusCode).toBe(403);
  });

  it("ends an open stream within a second once its token is revoked", async () => {
    const created = await t.request("POST", "/api/v1/tokens", {
      body: { name: "listener", scopes: ["webhooks:read"] },
    });
    const { id, token } = created.json().data as { id: string; token: string };
    const started = Date.now();
    const stream = openStream(base, token, 10_000);
    await stream.connected;
    const revokedAt = Date.now();
    expect((await t.request("DELETE", `/api/v1/tokens/${id}`)).statusCode).toBe(200);
    const { status, text } = await stream.done;
    expect(status).toBe(200);
    expect(text).toContain("the token no longer works");
    expect(Date.now() - revokedAt).toBeLessThan(2000);
    expect(Date.now() - started).toBeLessThan(9000);
  });

  it("holds at most five streams of one token open at once", async () => {
    const open = [1, 2, 3, 4, 5].map(() => openStream(base, t.token, 30_000));
    await Promise.all(open.map((stream) => stream.connected));
    const sixth = await readStream(base, t.token, 300);
    expect(sixth.status).toBe(429);
    expect(JSON.parse(sixth.text)).toMatchObject({ error_code: "rate_limited" });
    for (const stream of open) stream.close();
    expect((await Promise.all(open.map((stream) => stream.done))).map((s) => s.status)).toEqual([
      200, 200, 200, 200, 200,
    ]);
  });
});
