import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type Clock, clockOffsetMs } from "../domain/clock.js";
import type { CheckedRow, RowChecker, RowReading } from "../domain/contact-import-rows.js";

/** What the checker thread is handed. */
export interface RowCheckerInput {
  reading: RowReading;
  clockOffsetMs: number;
}

/** What it answers for each piece, in order. */
export type RowCheckerOutput = { rows: CheckedRow[] } | { error: string };

/** Compiled beside this file; absent when the service runs from its TypeScript sources (tests). */
const workerFile = fileURLToPath(new URL("./row-checker-worker.js", import.meta.url));

/** threadedRowChecker where its compiled worker file exists, else undefined (checks stay inline). */
export function rowCheckerThreads(): typeof threadedRowChecker | undefined {
  return existsSync(workerFile) ? threadedRowChecker : undefined;
}

/**
 * Parses and checks an import's rows in a thread of their own, beside the thread that writes
 * them: on two cores, the next piece's CSV parsing and phone checks cost the writer nothing.
 */
export function threadedRowChecker(reading: RowReading, clock: Clock): RowChecker {
  const input: RowCheckerInput = { reading, clockOffsetMs: clockOffsetMs(clock) };
  const worker = new Worker(workerFile, { workerData: input });
  const waiting: Array<{ resolve: (rows: CheckedRow[]) => void; reject: (e: Error) => void }> = [];
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    for (const pending of waiting.splice(0)) pending.reject(error);
  };
  worker.on("message", (output: RowCheckerOutput) => {
    const pending = waiting.shift();
    if ("error" in output) {
      const error = new Error(output.error);
      pending?.reject(error);
      fail(error);
    } else {
      pending?.resolve(output.rows);
    }
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the row checker thread exited (${code})`)));
  return {
    beside: true,
    check(piece) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        worker.postMessage(piece ?? null);
      });
    },
    close() {
      void worker.terminate();
    },
  };
}
