import { describe, expect, it } from "vitest";
import { dryRun } from "./dry-run.js";

describe("contacts import --dry-run", () => {
  it("refuses a file of more than 1,000,000 data rows, as the service's 413 does", () => {
    const text = `phone\n${"+4915112345678\n".repeat(1_000_001)}`;
    expect(() => dryRun(Buffer.from(text), undefined, new Date())).toThrow(
      "The file has 1,000,001 data rows; an import takes at most 1,000,000 data rows. Split the file.",
    );
    const fits = `sep=,\nphone\n${"+4915112345678\n".repeat(1_000)}`;
    expect(dryRun(Buffer.from(fits), undefined, new Date()).report.rows).toBe(1_000);
  }, 30_000);

  it("refuses bytes that stand for no character in --encoding, as the service's 422 does", () => {
    const file = Buffer.from("phone;first_name\r\n+4915112343101;a\x81b\r\n", "latin1");
    // Told before the header's own problem (no phone column here), as the service tells it.
    const noPhone = Buffer.from("name\r\na\x81b\r\n", "latin1");
    expect(() => dryRun(noPhone, undefined, new Date(), { encoding: "windows-1252" })).toThrow(
      "byte 0x81",
    );
    expect(() => dryRun(file, undefined, new Date(), { encoding: "windows-1252" })).toThrow(
      "The file is not windows-1252 text: byte 0x81 (byte 35 of the file) stands for no character in windows-1252; name the file's real encoding with --encoding, or save it as CSV UTF-8.",
    );
  });
});
