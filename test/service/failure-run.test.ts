import { afterEach, describe, expect, it, vi } from "vitest";
import { FailureRun } from "../../src/service/failure-run.js";

describe("a run of failures (a database outage) in the log", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is reported when it begins, again once the interval has passed, and once when it ends", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const reported: unknown[] = [];
    const ended: number[] = [];
    const run = new FailureRun(
      (error) => reported.push(error),
      (failures) => ended.push(failures),
      50,
    );
    run.succeeded();
    expect(ended).toEqual([]);
    for (let i = 0; i < 10; i++) run.failed(new Error(`poll ${i}`));
    expect(reported).toHaveLength(1);
    vi.advanceTimersByTime(49);
    run.failed(new Error("within the interval"));
    expect(reported).toHaveLength(1);
    vi.advanceTimersByTime(1);
    run.failed(new Error("still down"));
    expect(reported).toHaveLength(2);
    run.succeeded();
    run.succeeded();
    expect(ended).toEqual([12]);
    run.failed(new Error("down again"));
    expect(reported).toHaveLength(3);
  });
});
