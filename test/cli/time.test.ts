import { describe, expect, it } from "vitest";
import { when } from "../../src/cli/output/time.js";

describe("times at a terminal", () => {
  it("are shown in the user's time zone, named", () => {
    expect(when("2026-11-22T09:30:00Z", "Europe/Berlin")).toBe("2026-11-22 10:30 CET");
    expect(when("2026-07-01T09:30:00Z", "Europe/Berlin")).toBe("2026-07-01 11:30 CEST");
    expect(when("2026-11-22T09:30:00Z", "America/New_York")).toBe("2026-11-22 04:30 GMT-5");
  });

  it("stay in UTC for a user in UTC, and a dash stands for none", () => {
    expect(when("2026-11-22T09:30:00.123Z", "UTC")).toBe("2026-11-22 09:30 UTC");
    expect(when(null)).toBe("—");
  });
});
