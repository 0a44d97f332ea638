import { describe, expect, it } from "vitest";
import { readTimestamp } from "../../src/contract/timestamps.js";

describe("a timestamp as people write it", () => {
  it.each([
    ["2026-11-22T09:30:00Z", "2026-11-22T09:30:00Z"],
    ["2026-11-22T09:30Z", "2026-11-22T09:30:00Z"],
    ["2026-11-22 09:30:00+01:00", "2026-11-22T08:30:00Z"],
    ["2026-11-22T09:30:00.999-0530", "2026-11-22T15:00:00Z"],
    ["2026-11-22t09:30:00z", "2026-11-22T09:30:00Z"],
    ["2028-02-29T23:59:59Z", "2028-02-29T23:59:59Z"],
    ["2026-11-22T09:30:00.1234567891234Z", "2026-11-22T09:30:00Z"],
  ])("reads %s as %s", (given, iso) => {
    expect(readTimestamp(given)).toEqual({ iso });
  });

  it.each([
    ["2026-11-22T09:30:00", "no-time-zone"],
    ["2026-11-22 09:30", "no-time-zone"],
    ["2026-02-30T09:30:00Z", "not-a-real-time"],
    ["2026-11-22T24:00:00Z", "not-a-real-time"],
    ["2026-11-22T09:60:00Z", "not-a-real-time"],
    ["2026-13-01T09:30:00Z", "not-a-real-time"],
    ["2026-11-00T09:30:00Z", "not-a-real-time"],
    ["2026-11-22T09:30:00+24:00", "not-a-real-time"],
    ["2026-11-22T09:30:00+01:60", "not-a-real-time"],
    ["2026-11-22", "not-a-timestamp"],
    ["22/11/2026 09:30", "not-a-timestamp"],
    ["2026-11-22T09:30:00+1", "not-a-timestamp"],
    ["tomorrow", "not-a-timestamp"],
  ])("refuses %s: %s", (given, problem) => {
    expect(readTimestamp(given)).toEqual({ problem });
  });
});
