import { describe, expect, it } from "vitest";
import { money } from "../../src/cli/commands/plans/plan-format.js";

describe("prices in plans list and get", () => {
  const dollars = {
    currency: { code: "USD", name: "US dollar", symbol: "$" },
    billing_periods: [],
  };

  it("shows whole prices without decimals and others with two", () => {
    expect(money(29, dollars)).toBe("$29");
    expect(money(4.5, dollars)).toBe("$4.50");
    expect(money(1234.99, dollars)).toBe("$1,234.99");
  });

  it("never rounds a price the catalogue gives with more decimals", () => {
    expect(money(0.125, dollars)).toBe("$0.125");
  });
});
