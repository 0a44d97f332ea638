import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Who copies SQLite's write-ahead log back into the database file. By default the connection
 * whose commit takes the log past `checkpointPages` does it, inside that commit: a copy of up to
 * 16 MB and an fsync, measured at 60–250 ms (mostly waiting for the disk) while an import wrote,
 * and the whole of the service's worst event-loop stalls. The service's connection answers every
 * request, so it never checkpoints: a thread of its own does, every `checkpointEveryMs`, on a
 * connection of its own, and the event loop never waits for the disk.
 */

/** Log pages past which a commit of a connection that checkpoints itself copies them back. */
export const checkpointPages = 4000;

/** How often the thread copies back what was committed meanwhile (nothing costs next to nothing). */
export const checkpointEveryMs = 500;

/** What the checkpointer thread is handed. */
export interface CheckpointerInput {
  file: string;
  everyMs: number;
}

/** Compiled beside this file; absent when the service runs from its TypeScript sources (tests). */
const workerFile = fileURLToPath(new URL("./sqlite-checkpointer-worker.js", import.meta.url));

export interface Checkpointer {
  /** Copies back what is left and ends the thread. */
  stop(): Promise<void>;
}

/**
 * Starts the thread that checkpoints the WAL of the SQLite `file`, or null where it cannot run
 * (its compiled file is absent). `ended` runs when the thread ends for any reason, so that the
 * connection that left checkpoints to it takes them back rather than let the log grow.
 */
export function startCheckpointer(file: string, ended: () => void): Checkpointer | null {
  if (!existsSync(workerFile)) return null;
  const input: CheckpointerInput = { file, everyMs: checkpointEveryMs };
  const worker = new Worker(workerFile, { workerData: input });
  // It never keeps the process alive on its own: the service's close stops it.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  // A failed checkpoint (disk full, file gone) ends the thread; `ended` hands the work back.
  worker.on("error", () => {});
  void exited.then(ended);
  return {
    stop() {
      // Waited for: the process must not end, with nothing else left to do, before it has.
      worker.ref();
      worker.postMessage("stop");
      return exited;
    },
  };
}
