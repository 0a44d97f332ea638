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

/**
 * How long the thread may take to answer for a piece it was sent (about 12,000 rows, checked in
 * well under a second). Past it the import fails, saying so, and is retried from its checkpoint
 * rather than waiting forever for an answer that was lost, with its lease kept alive meanwhile.
 */
const answerLimitMs = 60_000;

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
  let silence: NodeJS.Timeout | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    clearTimeout(silence);
    for (const pending of waiting.splice(0)) pending.reject(error);
  };
  /** While a piece waits for its answer, the thread must answer within answerLimitMs. */
  const watch = () => {
    clearTimeout(silence);
    if (waiting.length === 0 || failure) return;
    silence = setTimeout(() => {
      fail(new Error(`the row checker thread gave no answer for ${answerLimitMs / 1000} s`));
      void worker.terminate();
    }, answerLimitMs);
    silence.unref();
  };
  worker.on("message", (output: RowCheckerOutput) => {
    const pending = waiting.shift();
    watch();
    if ("error" in output) {
      const error = new Error(output.error);
      pending?.reject(error);
      fail(error);
    } else {
      pending?.resolve(output.rows);
    }
  });
  worker.on("error", fail);
  // A message that cannot be read is an answer lost: the piece it answered would wait forever.
  worker.on("messageerror", fail);
  worker.on("exit", (code) => fail(new Error(`the row checker thread exited (${code})`)));
  return {
    beside: true,
    check(piece) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        worker.postMessage(piece ?? null);
        // Counted from the last answer while others wait: a later piece adds no time.
        if (waiting.length === 1) watch();
      });
    },
    close() {
      clearTimeout(silence);
      void worker.terminate();
    },
  };
}
