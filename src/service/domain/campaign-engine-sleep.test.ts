import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { sleepFor } from "./campaign-engine.js";

describe("a campaign's wait between batches", () => {
  it("leaves no listener on the job's signal, however many waits a campaign makes", async () => {
    const job = new AbortController();
    for (let i = 0; i < 20; i++) await sleepFor(1, job.signal);
    expect(getEventListeners(job.signal, "abort")).toHaveLength(0);
  });

  it("ends at once when the job is stopped, and leaves no listener then either", async () => {
    const job = new AbortController();
    const started = performance.now();
    const waiting = sleepFor(60_000, job.signal);
    job.abort();
    await waiting;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(getEventListeners(job.signal, "abort")).toHaveLength(0);
    await sleepFor(60_000, job.signal); // already stopped: no wait
  });
});
