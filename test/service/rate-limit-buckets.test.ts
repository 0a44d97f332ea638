import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { SharedRateCounter } from "../../src/service/domain/rate-limit-buckets.js";
import { TestClock } from "../helpers/test-app.js";

/** Two instances' counters on one database share each bucket's budget. */
describe("shared rate limit buckets", () => {
  let database: DatabaseHandle;
  let clock: TestClock;
  const counters: SharedRateCounter[] = [];
  beforeEach(async () => {
    database = await openDatabase(":memory:");
    clock = new TestClock();
  });
  afterEach(async () => {
    for (const counter of counters.splice(0)) await counter.close();
    await database.close();
  });
  const instance = (max: number) => {
    const counter = new SharedRateCounter(database.db, clock, { max, windowMs: 60_000 });
    counters.push(counter);
    return counter;
  };

  async function admitted(instances: SharedRateCounter[], hits: number, bucket = "token:tok_1") {
    let allowed = 0;
    for (let i = 0; i < hits; i++) {
      if ((await instances[i % instances.length]?.hit(bucket))?.allowed) allowed += 1;
    }
    return allowed;
  }

  it("admits exactly a small budget across instances", async () => {
    expect(await admitted([instance(20), instance(20)], 30)).toBe(20);
  });

  it("keeps a large budget within a batch of its limit while writing in batches", async () => {
    const [a, b] = [instance(5000), instance(5000)];
    const allowed = await admitted([a, b], 6000);
    expect(allowed).toBeGreaterThanOrEqual(5000);
    expect(allowed).toBeLessThanOrEqual(5100);
  });

  it("keeps separate budgets for separate buckets", async () => {
    const a = instance(3);
    expect(await admitted([a], 5, "address:10.0.0.1")).toBe(3);
    expect(await admitted([a], 5, "address:10.0.0.2")).toBe(3);
  });

  it("says how much is left and when the window ends, then starts a new window", async () => {
    const [a, b] = [instance(3), instance(3)];
    expect(await a.hit("token:t")).toMatchObject({ allowed: true, remaining: 2, resetMs: 60_000 });
    clock.advance(10_000);
    expect(await b.hit("token:t")).toMatchObject({ allowed: true, remaining: 1, resetMs: 50_000 });
    await a.hit("token:t");
    expect(await b.hit("token:t")).toMatchObject({ allowed: false, remaining: 0 });
    clock.advance(50_000);
    expect(await b.hit("token:t")).toMatchObject({ allowed: true, remaining: 2, resetMs: 60_000 });
    expect(await a.hit("token:t")).toMatchObject({ allowed: true, remaining: 1 });
  });
});
