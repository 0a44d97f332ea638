import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withFileLock } from "./file-lock.js";

function lockPath(): string {
  return join(mkdtempSync(join(tmpdir(), "reseller-lock-")), "config.json.lock");
}

/** The pid of a process that has ended. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("the config file's lock", () => {
  it("runs the change holding the lock, and removes it after", async () => {
    const lock = lockPath();
    const seen = await withFileLock(lock, async () => readFileSync(lock, "utf8"));
    expect(seen).toBe(`${process.pid}@${hostname()}`);
    expect(existsSync(lock)).toBe(false);
  });

  it("takes over at once a lock whose process has ended (a job killed mid-login)", async () => {
    const lock = lockPath();
    writeFileSync(lock, `${endedPid()}@${hostname()}`);
    const started = Date.now();
    await withFileLock(lock, async () => {}, { waitLimitMs: 2_000 });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("never breaks the lock of a process that runs: waits, then says who holds it", async () => {
    const lock = lockPath();
    writeFileSync(lock, `${process.pid}@${hostname()}`);
    await expect(withFileLock(lock, async () => {}, { waitLimitMs: 100 })).rejects.toThrow(
      `Another reseller command (process ${process.pid}@${hostname()}) holds ${lock}.`,
    );
    expect(existsSync(lock)).toBe(true);
  });

  it("runs changes one at a time however many wait", async () => {
    const lock = lockPath();
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(lock, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});
