import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, writerTurnsOf } from "./database.js";
import {
  logCopiedByWorker,
  logHandedOver,
  logLeftForWorker,
  workerWritingCheckpointPages,
} from "./sqlite-log.js";

const pieceBytes = 1024 * 1024;
const piece = Buffer.alloc(pieceBytes, 7);

/** Writes the 1 MB pieces `seqs` of the upload `uploadId`, in one transaction of `database`. */
async function writePieces(database: DatabaseHandle, seqs: number[], uploadId = "big") {
  await database.db.transaction().execute(async (trx) => {
    for (const seq of seqs) {
      await trx
        .insertInto("contact_import_uploads")
        .values({ upload_id: uploadId, seq, data: piece, created_at: "2026-11-26T00:00:00Z" })
        .execute();
    }
  });
}

/**
 * A count of the times the log of `file` has started over: the first salt of its header, which
 * SQLite raises by one each time a commit writes the log from its start, whichever connection
 * (a log new to a connection that never started one over gets a random salt: compare within a test).
 */
const logStarts = (file: string) => readFileSync(`${file}-wal`).readUInt32BE(16);

/** `count` seqs from `first` on. */
const seqsFrom = (first: number, count: number) =>
  Array.from({ length: count }, (_, i) => first + i);

describe("the SQLite log's file on disk", () => {
  let dir = "";
  let database: DatabaseHandle | undefined;
  let worker: DatabaseHandle | undefined;
  afterEach(async () => {
    await worker?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The service's database on a new file, and its raw connection. */
  async function openService() {
    dir = mkdtempSync(join(tmpdir(), "reseller-wal-"));
    const file = join(dir, "service.db");
    database = await openDatabase(file);
    return { file, handle: database, service: database.sqlite as BetterSqlite3.Database };
  }

  /** An import thread's connection to the service's file. */
  async function openWorker(file: string, service: BetterSqlite3.Database) {
    worker = await openDatabase(file, {
      migrate: false,
      giveWayTo: writerTurnsOf(service) ?? undefined,
    });
    return worker;
  }

  it("keeps its file's size once the log starts over, to be written over rather than grown again", async () => {
    const { file, handle } = await openService();
    // One transaction of 80 MB: the log must hold all of it until it commits.
    await writePieces(handle, seqsFrom(0, 80));
    const wal = `${file}-wal`;
    const largest = statSync(wal).size;
    expect(largest).toBeGreaterThan(80 * pieceBytes);
    // That commit's checkpoint copied the log back; the next writes start it over.
    for (let i = 0; i < 3; i++) {
      await handle.db.deleteFrom("contact_import_uploads").where("seq", "=", i).execute();
    }
    expect(statSync(wal).size).toBe(largest);
  });

  it("starts the log over at each batch of an import's thread, whoever committed last", async () => {
    const { file, handle, service } = await openService();
    const thread = await openWorker(file, service);
    // As when each commit's own checkpoint loses the race to another thread's (two threads
    // write in turn): then only the copy at the batch's start lets the log start over.
    service.pragma("wal_autocheckpoint = 0");
    const batchBytes = 2 * pieceBytes;
    const batches = 10;
    for (let batch = 0; batch < batches; batch++) {
      await writePieces(thread, [2 * batch, 2 * batch + 1]);
      await handle.db
        .insertInto("rate_limit_buckets")
        .values({ bucket: `b${batch}`, hits: 1, window_ends_at: "2099-01-01T00:00:00.000Z" })
        .execute();
    }
    // Started over at each batch, the log never holds much more than one batch.
    expect(statSync(`${file}-wal`).size).toBeLessThan(3 * batchBytes);
  });

  it("leaves the copying of the log to an import's thread while it writes, and takes it back after", async () => {
    const { file, handle, service } = await openService();
    const thread = await openWorker(file, service);
    // The thread's commits leave its batches in the log (it copies before its next transaction).
    const fileSize = () => statSync(file).size;

    const endCopying = logCopiedByWorker(service);
    // 20 MB: past the 4,000 pages (16 MB) after which a commit copies the log back.
    await writePieces(thread, seqsFrom(0, 20));
    const before = fileSize();
    await handle.db
      .insertInto("rate_limit_buckets")
      .values({ bucket: "during", hits: 1, window_ends_at: "2099-01-01T00:00:00.000Z" })
      .execute();
    // The service's commit copied nothing: the file has not grown by the batch.
    expect(fileSize() - before).toBeLessThan(pieceBytes);

    // The thread copies its last batch back as it closes its connection.
    await thread.close();
    worker = undefined;
    expect(fileSize() - before).toBeGreaterThan(20 * pieceBytes);

    // Once no thread writes, the service's commits copy the log again.
    endCopying();
    const closed = fileSize();
    await writePieces(handle, seqsFrom(100, 20), "after");
    expect(fileSize() - closed).toBeGreaterThan(16 * pieceBytes);
  });

  it("has an import's thread start the log over, never the service's next small commit", async () => {
    const { file, handle, service } = await openService();
    const thread = await openWorker(file, service);
    const endCopying = logCopiedByWorker(service);
    const serviceCommit = (bucket: string) =>
      handle.db
        .insertInto("rate_limit_buckets")
        .values({ bucket, hits: 1, window_ends_at: "2099-01-01T00:00:00.000Z" })
        .execute();

    // Batches of 20 MB, past the 4,000 pages after which a commit would copy the log itself.
    await writePieces(thread, seqsFrom(0, 20));
    const first = logStarts(file);
    for (let batch = 1; batch < 4; batch++) {
      const starts = logStarts(file);
      await serviceCommit(`during-${batch}`);
      expect(logStarts(file)).toBe(starts);
      await writePieces(thread, seqsFrom(20 * batch, 20));
    }
    // Each of the thread's batches began by copying the log, and started it over.
    expect(logStarts(file)).toBe((first + 3) >>> 0);

    // Closing, the thread copies its last batch back and starts the log over itself.
    await thread.close();
    worker = undefined;
    endCopying();
    const starts = logStarts(file);
    await serviceCommit("after");
    expect(logStarts(file)).toBe(starts);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
  });

  it("copies the log again only when the last of several import threads has ended", async () => {
    const { service } = await openService();
    const pages = () => service.pragma("wal_autocheckpoint", { simple: true });
    const first = logCopiedByWorker(service);
    const second = logCopiedByWorker(service);
    first();
    first();
    expect(pages()).toBe(workerWritingCheckpointPages);
    second();
    expect(pages()).toBe(4000);
  });

  it("leaves a large upload's pages in the log until its import's thread has started", async () => {
    const { file, handle, service } = await openService();
    const pages = () => service.pragma("wal_autocheckpoint", { simple: true });
    const before = statSync(file).size;

    logLeftForWorker(service, "imp_big");
    // 20 MB written by the service itself: past the 4,000 pages after which it would copy.
    for (const seq of seqsFrom(0, 20)) await writePieces(handle, [seq]);
    expect(statSync(file).size - before).toBeLessThan(pieceBytes);
    expect(pages()).toBe(workerWritingCheckpointPages);

    // Another import's thread coming and going leaves them to this upload's own.
    logCopiedByWorker(service)();
    expect(pages()).toBe(workerWritingCheckpointPages);

    // Its thread copies the log from its start; the service's setting ends with that thread.
    const endThread = logCopiedByWorker(service);
    logHandedOver(service, "imp_big");
    expect(pages()).toBe(workerWritingCheckpointPages);
    endThread();
    expect(pages()).toBe(4000);
  });

  it("takes the log's copying back after a while when the import's thread never starts", async () => {
    const { service } = await openService();
    const pages = () => service.pragma("wal_autocheckpoint", { simple: true });
    logLeftForWorker(service, "imp_big", 20);
    expect(pages()).toBe(workerWritingCheckpointPages);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(pages()).toBe(4000);

    const end = logLeftForWorker(service, "imp_refused");
    end();
    expect(pages()).toBe(4000);
  });
});
