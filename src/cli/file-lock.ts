import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { CliError } from "./cli-error.js";

/** How long a command waits for a lock another live command holds before it gives up. */
const waitLimitMs = 5_000;
const pollMs = 10;
/** A lock of another machine (a shared home folder) is abandoned once this old. */
const foreignStaleMs = 10_000;

interface Holder {
  text: string;
  mtimeMs: number;
}

/**
 * Runs `change` holding `lock`, a file created exclusively and removed after. A lock whose
 * holder no longer runs (a CI job killed mid-login) is taken over; one whose holder runs is
 * waited for, never broken: two waiters that broke it on a timer would each delete the other's
 * fresh lock and both write.
 */
export async function withFileLock<T>(
  lock: string,
  change: () => Promise<T>,
  options: { waitLimitMs?: number } = {},
): Promise<T> {
  const me = `${process.pid}@${hostname()}`;
  const limit = options.waitLimitMs ?? waitLimitMs;
  for (let waited = 0; ; ) {
    try {
      writeFileSync(lock, me, { flag: "wx", mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const seen = holderOf(lock);
    if (seen === undefined) continue; // released meanwhile
    if (abandoned(seen)) {
      // Removed only while it is still that lock: a waiter that took it over first made its own.
      const now = holderOf(lock);
      if (now?.text === seen.text && now.mtimeMs === seen.mtimeMs) rmSync(lock, { force: true });
      continue;
    }
    if (waited >= limit) {
      throw new CliError(
        "unexpected",
        `Another reseller command (process ${seen.text}) holds ${lock}.`,
        "Try again; if no reseller command runs, delete that file.",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    waited += pollMs;
  }
  try {
    return await change();
  } finally {
    rmSync(lock, { force: true });
  }
}

function holderOf(lock: string): Holder | undefined {
  try {
    return { text: readFileSync(lock, "utf8"), mtimeMs: statSync(lock).mtimeMs };
  } catch {
    return undefined;
  }
}

/** Whether a lock's holder has gone: its process ended, or, on another machine, it is old. */
function abandoned(holder: Holder): boolean {
  const [pid, host] = holder.text.split("@");
  if (host !== hostname() || !/^\d+$/.test(pid ?? "")) {
    return Date.now() - holder.mtimeMs > foreignStaleMs;
  }
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
