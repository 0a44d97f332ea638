import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../contract/retry-after.js";
import { defaultRetryPolicy, isRetryableStatus, retryDelayMs } from "./retry-policy.js";

describe("how long the CLI waits before a retry", () => {
  it("waits what Retry-After asks, plus at most a tenth more", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, 5, () => 0)).toBe(5_000);
    expect(retryDelayMs(defaultRetryPolicy, 1, 5, () => 1)).toBe(5_500);
  });

  it("never waits longer than 60 s, whatever Retry-After says", () => {
    for (const random of [0, 0.5, 0.999]) {
      expect(retryDelayMs(defaultRetryPolicy, 1, 3_600, () => random)).toBeLessThanOrEqual(60_000);
    }
  });

  it("spreads the retries of clients held at the 60 s cap instead of sending them together", () => {
    const waits = [0, 0.5, 0.999].map((random) =>
      retryDelayMs(defaultRetryPolicy, 1, 120, () => random),
    );
    expect(new Set(waits).size).toBe(3);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(54_000);
  });

  it("backs off exponentially from 250 ms when the service names no wait", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, null, () => 0)).toBe(250);
    expect(retryDelayMs(defaultRetryPolicy, 3, null, () => 0)).toBe(1_000);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("120")).toBe(120);
    expect(
      parseRetryAfter("Sat, 28 Nov 2026 23:01:00 GMT", Date.parse("2026-11-28T23:00:00Z")),
    ).toBe(60);
    expect(parseRetryAfter("soon")).toBeNull();
  });
});

describe("which answers a request may be sent again after", () => {
  it("repeats any request after 429 or 503, and a safe one after a gateway's 502 or 504 too", () => {
    const statuses = [400, 429, 500, 502, 503, 504];
    expect(statuses.filter((s) => isRetryableStatus(s))).toEqual([429, 503]);
    expect(statuses.filter((s) => isRetryableStatus(s, { safe: true }))).toEqual([
      429, 502, 503, 504,
    ]);
  });
});
