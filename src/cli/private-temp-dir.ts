import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The signals whose default would end the process without deleting the folder. */
const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** A temporary folder only this user can read, and how to delete it. */
export interface PrivateTempDir {
  path: string;
  /** Deletes the folder and all it holds (at once, however often called). */
  remove(): Promise<void>;
}

/**
 * Makes a temporary folder for other people's data (contacts copied or exported), deleted on
 * every way out of the process: Ctrl-C, SIGTERM and a closed terminal (SIGHUP) included, whose
 * default would exit past any `finally`. Throws mkdtemp's own error when the folder cannot be
 * made.
 */
export function privateTempDir(prefix: string): PrivateTempDir {
  // The signals are taken before the folder exists, so none can end the process in between, and
  // the folder is made synchronously: a signal handled while an async mkdtemp was settling would
  // find the folder on disk but not yet known here, and leave it behind.
  let path: string | null = null;
  const removeNow = () => {
    // Retried: a file may be opening in the folder at that very moment (ENOTEMPTY).
    if (path !== null) rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    unlisten();
    removeNow();
    // The signal's default (ending the process) as if we had not been here; another listener
    // (a wait that Ctrl-C interrupts) has it handled its own way instead.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const unlisten = () => {
    process.off("exit", removeNow);
    for (const signal of signals) process.off(signal, onSignal);
  };
  process.once("exit", removeNow);
  for (const signal of signals) process.once(signal, onSignal);
  try {
    // mkdtemp makes the folder with mode 0700.
    path = mkdtempSync(join(tmpdir(), prefix));
  } catch (error) {
    unlisten();
    throw error;
  }
  const made = path;
  return {
    path: made,
    // Deleted before the signals are let go: a Ctrl-C in between would otherwise take its
    // default and leave the folder behind. One unlink, so doing it synchronously costs nothing.
    remove: async () => {
      removeNow();
      unlisten();
    },
  };
}
