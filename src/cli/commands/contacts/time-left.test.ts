import { describe, expect, it } from "vitest";
import { timeLeft } from "./import.js";

describe("the time left of an import's progress bar", () => {
  it("says … until a row is done, then seconds, minutes or hours", () => {
    expect(timeLeft(20_000, 0)).toBe("…");
    expect(timeLeft(420, 10)).toBe("42s");
    expect(timeLeft(18_500, 100)).toBe("3m 05s");
    expect(timeLeft(900_000, 100)).toBe("2h 30m");
  });
});
