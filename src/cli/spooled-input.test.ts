import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { spooledInput } from "./spooled-input.js";

/** Standard input as a stream that holds `text`. */
function piped(text: string): PassThrough & { isTTY?: boolean } {
  const stream = new PassThrough();
  stream.end(text);
  return stream;
}

describe("a file read from standard input or a pipe", () => {
  it("is copied to a file only its owner can read, deleted by remove()", async () => {
    const input = await spooledInput("-", piped("phone\n+4915112345678\n"));
    expect(input.label).toBe("standard input");
    expect(statSync(input.path).mode & 0o777).toBe(0o600);
    await input.remove();
    expect(existsSync(input.path)).toBe(false);
  });

  it("stops copying past the limit, with the limit's error, and leaves no copy behind", async () => {
    const own = mkdtempSync(join(tmpdir(), "reseller-spool-test-"));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      const tooLarge = new Error("more than 10 bytes");
      await expect(
        spooledInput("-", piped("phone\n+4915112345678\n"), {
          bytes: 10,
          tooLarge: () => tooLarge,
        }),
      ).rejects.toBe(tooLarge);
      expect(readdirSync(own)).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });

  it("refuses a named file over the limit by its size, before reading it", async () => {
    const tooLarge = new Error("more than 10 bytes");
    await expect(
      spooledInput(import.meta.filename, piped(""), { bytes: 10, tooLarge: () => tooLarge }),
    ).rejects.toBe(tooLarge);
  });

  it("reads a named file in place, with nothing to delete", async () => {
    const input = await spooledInput(import.meta.filename, piped(""));
    expect(input).toMatchObject({ path: import.meta.filename, label: import.meta.filename });
    await input.remove();
    expect(existsSync(import.meta.filename)).toBe(true);
  });
});
