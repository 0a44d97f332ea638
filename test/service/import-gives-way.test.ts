import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactImportResponse } from "../../src/contract/contact-imports.js";
import { type DatabaseHandle, openDatabase, writerTurnsOf } from "../../src/service/db/database.js";
import { runContactImport, threadBatchRows } from "../../src/service/jobs/contact-import-job.js";
import { queuedImportJob } from "../helpers/import-jobs.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * An import's worker thread writes a stored piece's rows in one transaction, which holds SQLite's
 * write lock; when the service's thread waits to write, the transaction commits once it has
 * written 5,000 rows and the rest follows in the next, so that write waits no longer than it did
 * behind the 5,000-row batches of before.
 * Run here on the worker's kind of connection in the test's own thread, with the service's
 * "waiting to write" count set by hand.
 */
describe("an import's long transactions on a SQLite file", () => {
  let dir: string;
  let service: DatabaseHandle;
  let worker: DatabaseHandle;
  let t: TestApp;
  let waiting: Int32Array;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "reseller-gives-way-"));
    const file = join(dir, "service.db");
    service = await openDatabase(file);
    t = await startTestApp({ database: service });
    const turns = writerTurnsOf(service.sqlite as NonNullable<typeof service.sqlite>);
    if (!turns) throw new Error("a file database shares a turns count with its workers");
    waiting = new Int32Array(turns);
    worker = await openDatabase(file, { migrate: false, giveWayTo: turns });
  });
  afterEach(async () => {
    await worker.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** 12,000 rows; the phone of row 10 comes again in row 7,510 with another name. */
  const csv = (() => {
    const lines = ["phone,first_name"];
    for (let i = 1; i <= 12_000; i++) {
      const phone = i === 7510 ? 10 : i;
      lines.push(`+49151${String(10_000_000 + phone)},Name${i}`);
    }
    return `${lines.join("\n")}\n`;
  })();

  /**
   * Uploads the file and runs its import on the worker's connection; the rows of each commit.
   * `writeWaits`: the service's thread starts waiting to write as each of the import's
   * transactions begins (raised when the transaction first reads the clock) and has written by
   * its end. A real wait comes from another thread; in this one it cannot fall inside a
   * transaction, whose statements run without a turn of the event loop.
   */
  async function importOnWorker(
    writeWaits = false,
    file = csv,
  ): Promise<{ ws: string; commits: number[]; ended: Record<string, unknown> }> {
    const ws = await t.createWorkspace();
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv: Buffer.from(file).toString("base64") },
    });
    const importId = ContactImportResponse.parse(res.json()).data.id;
    const job = await queuedImportJob(service.db, importId);
    const commits: number[] = [];
    const clock = {
      now: () => {
        if (writeWaits && worker.sqlite?.inTransaction) Atomics.store(waiting, 0, 1);
        return t.clock.now();
      },
    };
    await runContactImport(
      { db: worker.db, clock },
      job,
      {
        db: worker.db,
        clock,
        signal: new AbortController().signal,
        checkpoint: async (_trx, data) => {
          commits.push((data as { rows: number }).rows);
          Atomics.store(waiting, 0, 0);
        },
        lease: { jobId: job.id, owner: "test", ms: 30_000 },
      },
      undefined,
      threadBatchRows,
    );
    const ended = (
      await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${importId}`)
    ).json().data;
    return { ws, commits, ended };
  }

  it("writes a stored piece's rows in one transaction while nothing else waits to write", async () => {
    const { commits, ended } = await importOnWorker();
    // The file is one piece; its last row is known to be whole only at the end of the file.
    expect(commits).toEqual([11_999, 12_000]);
    expect(ended).toMatchObject({
      status: "completed",
      processed_rows: 12_000,
      created: 11_999,
      updated: 1,
    });
  });

  it("commits after 5,000 rows when the service waits to write, with the counts of one transaction", async () => {
    const { commits, ended } = await importOnWorker(true);
    expect(commits).toEqual([5000, 10_000, 11_999, 12_000]);
    // The phone seen again in a later transaction is an update of the contact the first made.
    expect(ended).toMatchObject({
      status: "completed",
      processed_rows: 12_000,
      created: 11_999,
      updated: 1,
    });
    const contacts = await service.sqlite
      ?.prepare("SELECT first_name FROM contacts WHERE phone = ?")
      .all("+4915110000010");
    expect(contacts).toEqual([{ first_name: "Name7510" }]);
  });

  it("stores every refused row of a transaction, however many of its rows are refused", async () => {
    // 8,000 refused rows in one transaction: five values each, more than one SQLite statement takes.
    const lines = ["phone,first_name"];
    for (let i = 1; i <= 12_000; i++) {
      lines.push(`${i <= 8000 ? "not-a-phone" : `+49151${10_000_000 + i}`},Name${i}`);
    }
    const { ws, commits, ended } = await importOnWorker(false, `${lines.join("\n")}\n`);
    expect(commits).toEqual([11_999, 12_000]);
    expect(ended).toMatchObject({
      status: "completed",
      processed_rows: 12_000,
      created: 4000,
      error_count: 8000,
    });
    expect((ended.errors as unknown[]).length).toBe(1000);
    const last = await t.request(
      "GET",
      `/api/v1/workspaces/${ws}/contacts/imports/${ended.id}/errors?page=80&per_page=100`,
    );
    expect(last.json().data.at(-1)).toMatchObject({ row: 8000, field: "phone" });
    expect(last.json().meta.pagination).toMatchObject({ total: 8000, total_pages: 80 });
  });
});
