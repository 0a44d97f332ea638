import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

type LockEntry = { hasInstallScript?: boolean };

const readJson = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));

const manifest = readJson("../../package.json") as { allowScripts?: Record<string, boolean> };
const lock = readJson("../../package-lock.json") as { packages: Record<string, LockEntry> };

describe("installing runs the install scripts the tool needs (docs/development.md)", () => {
  it("approves by name every locked package that has an install script", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    expect(withScripts).toContain("better-sqlite3");
    for (const name of withScripts) expect(manifest.allowScripts?.[name], name).toBe(true);
  });
});
