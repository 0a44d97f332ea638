import { existsSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { privateTempDir } from "./private-temp-dir.js";

describe("a private temporary folder", () => {
  it("is readable by its owner alone, and gone after remove()", async () => {
    const dir = privateTempDir("reseller-private-test-");
    expect(statSync(dir.path).mode & 0o777).toBe(0o700);
    await dir.remove();
    expect(existsSync(dir.path)).toBe(false);
  });

  it("takes Ctrl-C, SIGTERM and SIGHUP while it exists, and lets go of them once removed", async () => {
    const listeners = () =>
      ["SIGINT", "SIGTERM", "SIGHUP", "exit"].map((name) => process.listenerCount(name));
    const before = listeners();
    const dir = privateTempDir("reseller-private-test-");
    expect(listeners()).toEqual(before.map((count) => count + 1));
    await dir.remove();
    await dir.remove();
    expect(listeners()).toEqual(before);
  });
});
