import { rmSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServedService, startServe } from "../helpers/serve.js";
import {
  countsOf,
  finished,
  type ImportRecord,
  importedState,
  importOf,
  largeCsv,
  startImport,
  until,
} from "./crash-support.js";

/**
 * A contact import of 100,000 rows through a real `reseller serve`, stopped part-way (SIGKILL,
 * then a clean SIGTERM) and resumed by a new process on the same database file. The outcome must
 * be that of the same file imported without interruption into a fresh service: the same counts,
 * contacts, tags, consent counters and row errors; nothing lost and nothing done twice.
 */

const rows = 100_000;
const csv = largeCsv(rows);
const args = ["--review-delay", "0"];

interface Reference {
  counts: ReturnType<typeof countsOf>;
  state: ReturnType<typeof importedState>;
  errors: unknown[];
}
let reference: Reference;

/** Polls the import until processed_rows is between 10% and 90% of the rows. */
async function midway(service: ServedService, importPath: string): Promise<ImportRecord> {
  const read = importOf(service.url, service.token, importPath);
  return until(
    "the import to be between 10% and 90% done",
    async () => {
      const record = await read();
      if (record.processed_rows > rows * 0.9 || record.status === "completed") {
        throw new Error(`the import got past 90% between two polls: ${record.processed_rows}`);
      }
      return record.processed_rows >= rows * 0.1 ? record : undefined;
    },
    { timeoutMs: 60_000, everyMs: 10 },
  );
}

function importIdOf(importPath: string): string {
  return importPath.split("/").at(-1) ?? "";
}

describe("crash safety of contact imports", () => {
  beforeAll(async () => {
    // The same file imported without interruption into a fresh service.
    const service = await startServe({ args });
    try {
      const { workspaceId, importPath } = await startImport(service.url, service.token, csv);
      const record = await finished(service.url, service.token, importPath);
      reference = {
        counts: countsOf(record),
        state: importedState(service.dbFile, workspaceId, importIdOf(importPath)),
        errors: record.errors,
      };
    } finally {
      await service.stop();
      rmSync(service.dir, { recursive: true, force: true });
    }
    expect(reference.counts).toMatchObject({ status: "completed", total_rows: rows });
    expect(reference.counts.error_count).toBeGreaterThan(0);
    expect(reference.counts.updated).toBeGreaterThan(0);
  }, 120_000);

  const restarted: ServedService[] = [];
  afterAll(async () => {
    for (const service of restarted) {
      await service.stop();
      rmSync(service.dir, { recursive: true, force: true });
    }
  });

  it("resumes an import killed with SIGKILL between 10% and 90%: the outcome of an uninterrupted one", async () => {
    const first = await startServe({ args });
    const { workspaceId, importPath } = await startImport(first.url, first.token, csv);
    const before = await midway(first, importPath);
    first.process.kill("SIGKILL");
    await first.process;

    const second = await startServe({ args, dbFile: first.dbFile, token: first.token });
    restarted.push(second);
    const record = await finished(second.url, second.token, importPath);
    console.log(
      `import crash: killed at ${before.processed_rows}/${rows} rows, resumed to ${record.processed_rows}`,
    );
    expect(countsOf(record)).toEqual(reference.counts);
    expect(record.errors).toEqual(reference.errors);
    expect(importedState(second.dbFile, workspaceId, importIdOf(importPath))).toEqual(
      reference.state,
    );
  }, 150_000);

  it("checkpoints an import on SIGTERM, exits cleanly, and finishes it after a restart", async () => {
    const first = await startServe({ args });
    const { workspaceId, importPath } = await startImport(first.url, first.token, csv);
    const before = await midway(first, importPath);
    const stopped = await first.stop();
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain("Stopped.");

    // What the stopped process left: the rows it reported are saved, with a checkpoint, and the
    // job is no longer held, so a new process resumes it at once.
    const db = new BetterSqlite3(first.dbFile, { readonly: true });
    const saved = db
      .prepare("SELECT processed_rows, status FROM contact_imports WHERE id = ?")
      .get(importIdOf(importPath)) as { processed_rows: number; status: string };
    const job = db
      .prepare("SELECT state, checkpoint, lease_owner FROM jobs WHERE kind = 'contact_import'")
      .get() as { state: string; checkpoint: string | null; lease_owner: string | null };
    db.close();
    expect(saved.processed_rows).toBeGreaterThanOrEqual(before.processed_rows);
    expect(saved.processed_rows).toBeLessThan(rows);
    expect(job.checkpoint).not.toBeNull();
    expect(job.lease_owner).toBeNull();

    const second = await startServe({ args, dbFile: first.dbFile, token: first.token });
    restarted.push(second);
    // It goes on from the checkpoint, never from the start.
    const resumed = await importOf(second.url, second.token, importPath)();
    expect(resumed.processed_rows).toBeGreaterThanOrEqual(saved.processed_rows);
    const record = await finished(second.url, second.token, importPath);
    console.log(
      `import SIGTERM: stopped at ${saved.processed_rows}/${rows} rows (${job.state}), resumed to ${record.processed_rows}`,
    );
    expect(countsOf(record)).toEqual(reference.counts);
    expect(record.errors).toEqual(reference.errors);
    expect(importedState(second.dbFile, workspaceId, importIdOf(importPath))).toEqual(
      reference.state,
    );
  }, 150_000);
});
