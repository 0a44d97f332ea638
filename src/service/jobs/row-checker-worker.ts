import { parentPort, workerData } from "node:worker_threads";
import { offsetClock } from "../domain/clock.js";
import { rowChecker } from "../domain/contact-import-rows.js";
import type { RowCheckerInput, RowCheckerOutput } from "./row-checker-thread.js";

// The entry of an import's row checker thread (see row-checker-thread.ts): checks each piece of
// the CSV it is sent, in order, and answers with its rows. No turns to hand back: this thread
// answers no requests.

const input = workerData as RowCheckerInput;
const checker = rowChecker(input.reading, offsetClock(input.clockOffsetMs));
let queue = Promise.resolve();

parentPort?.on("message", (piece: Uint8Array | null) => {
  queue = queue.then(async () => {
    let output: RowCheckerOutput;
    try {
      output = { rows: await checker.check(piece ?? undefined) };
    } catch (error) {
      output = { error: error instanceof Error ? error.message : String(error) };
    }
    parentPort?.postMessage(output);
  });
});
