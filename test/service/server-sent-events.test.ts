import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openSse, sseKeepAliveMs } from "../../src/service/server-sent-events.js";

// The one writer of the service's Server-Sent Events (the event log's stream and the dashboard's).

function fakeResponse() {
  const written: string[] = [];
  const head: Record<string, unknown> = {};
  let ended = false;
  const out = Object.assign(new EventEmitter(), {
    writeHead: (_status: number, headers: Record<string, unknown>) => Object.assign(head, headers),
    write: (chunk: string) => written.push(chunk),
    end: () => {
      ended = true;
    },
  });
  return {
    out: out as unknown as ServerResponse,
    emitter: out,
    head,
    text: () => written.join(""),
    ended: () => ended,
  };
}

describe("server-sent events", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends the stream's head, and each frame's fields in the order EventSource reads them", () => {
    const response = fakeResponse();
    const stream = openSse(response.out, { "x-request-id": "req_1" });
    stream.send({ comment: "connected", id: "evt_0" });
    stream.send({ id: "evt_1", event: "contact.created", data: '{"id":"evt_1"}' });
    stream.send({ retryMs: 2000 });
    expect(response.head).toMatchObject({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-request-id": "req_1",
    });
    expect(response.text()).toBe(
      ': connected\nid: evt_0\n\nid: evt_1\nevent: contact.created\ndata: {"id":"evt_1"}\n\nretry: 2000\n\n',
    );
    stream.end();
  });

  it("says it is alive after each quiet stretch of 15 s, so a busy stream carries no keep-alive lines", () => {
    const response = fakeResponse();
    const stream = openSse(response.out, {});
    vi.advanceTimersByTime(sseKeepAliveMs - 1000);
    stream.send({ event: "stats", data: "{}" });
    vi.advanceTimersByTime(1000);
    expect(response.text()).not.toContain("keep-alive");
    vi.advanceTimersByTime(sseKeepAliveMs - 1000);
    expect(response.text()).toContain(": keep-alive\n\n");
    // Then one per quiet stretch, never more than that apart.
    vi.advanceTimersByTime(2 * sseKeepAliveMs);
    expect(response.text().split(": keep-alive").length - 1).toBe(3);
    stream.end();
  });

  it("writes nothing once the client went or the stream ended", () => {
    const response = fakeResponse();
    const stream = openSse(response.out, {});
    response.emitter.emit("close");
    stream.send({ event: "stats", data: "{}" });
    vi.advanceTimersByTime(3 * sseKeepAliveMs);
    expect(response.text()).toBe("");
    expect(stream.ended).toBe(true);
    const other = fakeResponse();
    const second = openSse(other.out, {});
    second.end();
    second.end();
    second.send({ event: "stats", data: "{}" });
    expect(other.ended()).toBe(true);
    expect(other.text()).toBe("");
  });
});
