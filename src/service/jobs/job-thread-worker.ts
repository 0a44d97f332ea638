import { parentPort, workerData } from "node:worker_threads";
import { openDatabase } from "../db/database.js";
import { type Clock, offsetClock } from "../domain/clock.js";
import { runContactImport, threadBatchRows } from "./contact-import-job.js";
import { contactImportJobKind } from "./job-kinds.js";
import { checkpointJob } from "./job-queue.js";
import type { JobContext, JobResult } from "./job-runner.js";
import type { JobThreadInput, JobThreadOutput } from "./job-thread.js";
import { threadedRowChecker } from "./row-checker-thread.js";

// The entry of a job's worker thread (see job-thread.ts): opens its own connection to the
// database file, runs the job's work as the service's thread would, and answers with the result.

type ThreadRun = (
  services: { db: JobContext["db"]; clock: Clock },
  ctx: JobContext,
) => Promise<JobResult>;

const input = workerData as JobThreadInput;

/** The jobs that can run in a thread, by kind. */
const runs: Record<string, ThreadRun> = {
  [contactImportJobKind]: (services, ctx) =>
    runContactImport(services, input.job, ctx, threadedRowChecker, threadBatchRows),
};

async function run(): Promise<JobThreadOutput> {
  const work = runs[input.kind];
  if (!work) throw new Error(`no worker-thread run for job kind '${input.kind}'`);
  const database = await openDatabase(input.file, { migrate: false, giveWayTo: input.turns });
  const clock = offsetClock(input.clockOffsetMs);
  const stop = new AbortController();
  parentPort?.on("message", (message) => {
    if (message === "stop") stop.abort();
  });
  try {
    const result = await work(
      { db: database.db, clock },
      {
        db: database.db,
        clock,
        signal: stop.signal,
        checkpoint: (trx, data) => checkpointJob(trx, clock, input.lease, data, input.lease.ms),
        lease: input.lease,
      },
    );
    return { result };
  } finally {
    await database.close();
  }
}

let output: JobThreadOutput;
try {
  output = await run();
} catch (error) {
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  output = { error: { name, message, stack, code: (error as { code?: unknown }).code } };
}
parentPort?.postMessage(output);
// The stop listener would keep the thread alive; its work is done.
parentPort?.close();
