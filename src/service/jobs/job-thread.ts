import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type Db, writerTurnsOf } from "../db/database.js";
import { engineOf, sqliteHandleOf } from "../db/engine.js";
import { logCopiedByWorker } from "../db/sqlite-log.js";
import { type Clock, clockOffsetMs } from "../domain/clock.js";
import { type Job, LeaseLostError } from "./job-queue.js";
import type { JobHandler, JobLease, JobResult } from "./job-runner.js";

/** What a job's worker thread is handed: which run, on which database file, for which claim. */
export interface JobThreadInput {
  kind: string;
  file: string;
  job: Job;
  lease: JobLease;
  /** The service clock's distance from the system clock, so the thread reads the same time. */
  clockOffsetMs: number;
  /** The flag the thread's writes give way to (see db/sqlite-writer-turns.ts). */
  turns: SharedArrayBuffer;
}

/** What the thread answers: how the run ended, or the error that ended it. */
export type JobThreadOutput =
  | { result: JobResult }
  | { error: { name: string; message: string; stack?: string | undefined; code?: unknown } };

/** Compiled beside this file; absent when the service runs from its TypeScript sources (tests). */
const workerFile = fileURLToPath(new URL("./job-thread-worker.js", import.meta.url));

/**
 * Runs jobs of `kind` in a worker thread with a connection of its own to the SQLite file `db` is
 * open on, so that the job's parsing, checking and write transactions never hold the event loop
 * that answers requests. Undefined where a thread cannot help or cannot be: on PostgreSQL, on an
 * in-memory database (another connection would open another, empty database), and when the
 * compiled worker file is absent; the job then runs in the service's thread.
 */
export function threadedJob(db: Db, clock: Clock, kind: string): JobHandler | undefined {
  if (engineOf(db) !== "sqlite" || !existsSync(workerFile)) return undefined;
  const sqlite = sqliteHandleOf(db);
  const turns = writerTurnsOf(sqlite);
  if (sqlite.memory || turns === null) return undefined;
  const file = sqlite.name;
  return (job, ctx) =>
    new Promise<JobResult>((resolve, reject) => {
      const input: JobThreadInput = {
        kind,
        file,
        job,
        lease: ctx.lease,
        clockOffsetMs: clockOffsetMs(clock),
        turns,
      };
      // Held before the thread starts, so that no batch of it is ever copied by the service.
      const endLogCopying = logCopiedByWorker(sqlite);
      let worker: Worker;
      try {
        worker = new Worker(workerFile, { workerData: input });
      } catch (error) {
        endLogCopying();
        throw error;
      }
      let output: JobThreadOutput | undefined;
      // A stop asks the thread to end after the batch in hand, as the job would in this thread.
      const stop = () => worker.postMessage("stop");
      if (ctx.signal.aborted) stop();
      else ctx.signal.addEventListener("abort", stop, { once: true });
      worker.on("message", (message: JobThreadOutput) => {
        output = message;
      });
      worker.on("error", (error) => {
        output ??= { error: { name: error.name, message: error.message, stack: error.stack } };
      });
      worker.on("exit", (code) => {
        ctx.signal.removeEventListener("abort", stop);
        if (output === undefined) {
          reject(new Error(`the worker thread of job ${job.id} exited (${code}) without a result`));
        } else if ("result" in output) {
          resolve(output.result);
        } else if (output.error.name === "LeaseLostError") {
          reject(new LeaseLostError(job.id));
        } else {
          const error = Object.assign(new Error(output.error.message), {
            code: output.error.code,
          });
          error.stack = output.error.stack;
          reject(error);
        }
        // Last, so that a failure here cannot leave the job's outcome unsettled.
        endLogCopying();
      });
    });
}
