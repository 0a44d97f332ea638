import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App } from "../../src/service/app-types.js";
import {
  settleMaxMs,
  settleQuietMs,
  settlingPollMs,
  streamCampaignStats,
  streamPollMs,
} from "../../src/service/dashboard/campaign-stream.js";

// The dashboard's campaign stream against a scripted API: how often it reads, when it stops,
// and what a 429 does. Fake timers, so minutes pass in no time.

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  campaign?: { status: string };
  stats?: { sent: number; read: number };
}

/** An App whose inject answers the campaign and its stats from `now()`, counting the calls. */
function scriptedApp(now: () => Scripted) {
  const calls: string[] = [];
  const app = {
    log: { error: vi.fn() },
    inject: async (request: { url: string }) => {
      calls.push(request.url);
      const answer = now();
      const body =
        answer.status >= 400
          ? { status: "error", error_code: "x", message: "no" }
          : {
              data: request.url.endsWith("/stats")
                ? (answer.stats ?? { sent: 0, read: 0 })
                : (answer.campaign ?? { status: "sending" }),
            };
      return {
        statusCode: answer.status,
        headers: answer.headers ?? {},
        body: JSON.stringify(body),
      };
    },
  };
  return { app: app as unknown as App, calls };
}

function fakeResponse() {
  const written: string[] = [];
  let ended = false;
  const out = {
    writeHead: () => out,
    on: () => out,
    write: (chunk: string) => written.push(chunk),
    end: () => {
      ended = true;
    },
  };
  return {
    out: out as unknown as ServerResponse,
    text: () => written.join(""),
    ended: () => ended,
  };
}

const ids = { workspaceId: "ws_1", campaignId: "cmp_1" };

describe("the dashboard's campaign stream", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads once a second while the campaign runs, slower once it is final, and ends when its reports settled", async () => {
    let answer: Scripted = {
      status: 200,
      campaign: { status: "sending" },
      stats: { sent: 1, read: 0 },
    };
    const { app, calls } = scriptedApp(() => answer);
    const response = fakeResponse();
    streamCampaignStats(app, async () => "rsk_x", response.out, ids);
    await vi.advanceTimersByTimeAsync(10 * streamPollMs);
    expect(calls.length).toBeGreaterThanOrEqual(20);
    answer = { status: 200, campaign: { status: "completed" }, stats: { sent: 5, read: 0 } };
    await vi.advanceTimersByTimeAsync(streamPollMs);
    const atFinal = calls.length;
    // A read report after the end still reaches the page.
    await vi.advanceTimersByTimeAsync(2 * settlingPollMs);
    answer = { status: 200, campaign: { status: "completed" }, stats: { sent: 5, read: 3 } };
    await vi.advanceTimersByTimeAsync(settlingPollMs);
    expect(response.text()).toContain('"read":3');
    await vi.advanceTimersByTimeAsync(settleQuietMs + settlingPollMs);
    expect(response.ended()).toBe(true);
    expect(response.text()).toMatch(/event: settled\ndata: \{"status":"completed"\}\n\n$/);
    const settledCalls = calls.length;
    // Two reads every settlingPollMs at most since the end, and none after the stream ended.
    expect(settledCalls - atFinal).toBeLessThanOrEqual(
      2 * Math.ceil((3 * settlingPollMs + settleQuietMs + settlingPollMs) / settlingPollMs) + 2,
    );
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(calls.length).toBe(settledCalls);
  });

  it("stops reading a final campaign whose reports keep changing after settleMaxMs", async () => {
    let read = 0;
    const { app, calls } = scriptedApp(() => ({
      status: 200,
      campaign: { status: "completed" },
      stats: { sent: 1_000_000, read: read++ },
    }));
    const response = fakeResponse();
    streamCampaignStats(app, async () => "rsk_x", response.out, ids);
    await vi.advanceTimersByTimeAsync(settleMaxMs + settlingPollMs);
    expect(response.ended()).toBe(true);
    const ended = calls.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.length).toBe(ended);
  });

  it("waits out a 429's Retry-After and goes on, instead of ending with a problem", async () => {
    let limited = true;
    const { app, calls } = scriptedApp(() =>
      limited
        ? { status: 429, headers: { "retry-after": "20" } }
        : { status: 200, campaign: { status: "sending" }, stats: { sent: 2, read: 0 } },
    );
    const response = fakeResponse();
    streamCampaignStats(app, async () => "rsk_x", response.out, ids);
    await vi.advanceTimersByTimeAsync(19_000);
    expect(calls.length).toBe(2);
    expect(response.text()).not.toContain("event: problem");
    expect(response.ended()).toBe(false);
    limited = false;
    await vi.advanceTimersByTimeAsync(2000);
    expect(response.text()).toContain("event: stats");
    expect(response.text()).toContain('"sent":2');
  });

  it("ends with a problem event on any other API error", async () => {
    const { app } = scriptedApp(() => ({ status: 404 }));
    const response = fakeResponse();
    streamCampaignStats(app, async () => "rsk_x", response.out, ids);
    await vi.advanceTimersByTimeAsync(10);
    expect(response.text()).toContain("event: problem");
    expect(response.ended()).toBe(true);
  });
});
