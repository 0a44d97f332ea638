import { describe, expect, it } from "vitest";
import { dryRun } from "./dry-run.js";

describe("contacts import --dry-run", () => {
  it("refuses a file of more than 1,000,000 data rows, as the service's 413 does", () => {
    const text = `phone\n${"+4915112345678\n".repeat(1_000_001)}`;
    expect(() => dryRun(Buffer.from(text), undefined, new Date())).toThrow(
      "The file has 1,000,001 data rows; an import takes at most 1,000,000. Split it.",
    );
    const fits = `sep=,\nphone\n${"+4915112345678\n".repeat(1_000)}`;
    expect(dryRun(Buffer.from(fits), undefined, new Date()).report.rows).toBe(1_000);
  }, 30_000);
});
