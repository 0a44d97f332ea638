import { existsSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  abandonedUploadMs,
  removeAbandonedUploads,
} from "../../src/service/domain/upload-files.js";
import { startServe } from "../helpers/serve.js";

/** Writes `name` into `dir`, last written `ageMs` ago. */
function fileAged(dir: string, name: string, ageMs: number): string {
  const file = join(dir, name);
  writeFileSync(file, "phone\n+4915112345678\n", { mode: 0o600 });
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(file, at, at);
  return file;
}

describe("upload files a killed process left behind", () => {
  it("are deleted once untouched for an hour; uploads in progress and other files stay", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-leftovers-"));
    const hour = abandonedUploadMs;
    const staged = fileAged(dir, "reseller-upload-imp_01abc.csv", hour + 60_000);
    const decoded = fileAged(
      dir,
      "reseller-json-upload-0f8e2a4c-1b2d-4e5f-8a9b-0c1d2e3f4a5b.csv",
      2 * hour,
    );
    const young = fileAged(dir, "reseller-upload-imp_01young.csv", 60_000);
    const other = fileAged(dir, "customers.csv", 2 * hour);
    expect(await removeAbandonedUploads(Date.now(), dir)).toBe(2);
    expect([staged, decoded, young, other].map((file) => existsSync(file))).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it("are deleted by a service as it starts, so a crash's restart leaves no contacts on disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-leftovers-"));
    const left = fileAged(dir, "reseller-upload-imp_01crashed.csv", abandonedUploadMs + 60_000);
    const served = await startServe({ env: { TMPDIR: dir } });
    try {
      await expect.poll(() => existsSync(left)).toBe(false);
    } finally {
      await served.stop();
    }
  });
});
