import { describe, expect, it } from "vitest";
import { searchDocument } from "../../src/service/db/contact-rows/contact-search.js";
import { systemClock } from "../../src/service/domain/clock.js";
import {
  type CheckedRow,
  type RowChecker,
  type RowReading,
  rowChecker,
} from "../../src/service/domain/contact-import-rows.js";
import { nextRow } from "../../src/service/domain/contact-store.js";
import { largeCsv } from "../crash/crash-support.js";

/**
 * An import's rows are checked piece by piece, in the service's thread or in a thread of their
 * own (the compiled `serve` uses the thread: it exists only in dist/, which `npm test` builds
 * first). Both must give the same rows, whatever the pieces' boundaries.
 */

type ThreadModule = {
  threadedRowChecker(reading: RowReading, clock: typeof systemClock): RowChecker;
};
const threadModule = "../../dist/service/jobs/row-checker-thread.js";

const reading: RowReading = {
  workspaceId: "ws_01jd7x3k9m2p4q6r8s0t1v3w5y",
  mapping: null,
  delimiter: ",",
  defaultCountry: null,
  done: 0,
};

/** Every checked row of `csv`, fed in pieces of `pieceBytes`. */
async function checkAll(checker: RowChecker, csv: Buffer, pieceBytes: number) {
  const rows: CheckedRow[] = [];
  try {
    for (let at = 0; at < csv.length; at += pieceBytes) {
      rows.push(...(await checker.check(csv.subarray(at, at + pieceBytes))));
    }
    rows.push(...(await checker.check(undefined)));
  } finally {
    checker.close();
  }
  return rows;
}

describe("checking an import's rows", () => {
  const csv = largeCsv(3000);

  it("gives every data row once, in order, with its errors, whatever the piece boundaries", async () => {
    const whole = await checkAll(rowChecker(reading, systemClock), csv, csv.length);
    const cut = await checkAll(rowChecker(reading, systemClock), csv, 777);
    expect(whole.map((r) => r.row)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(cut).toEqual(whole);
    expect(whole.filter((r) => !r.result.ok).length).toBeGreaterThan(0);
  });

  it("gives each valid row the search entry of the contact it creates, as the writer would index it", async () => {
    const sparse = Buffer.from(
      "phone,first_name,last_name,email\n+4915112345678,Jörg,Ørsted-Müller,\n+4915112345679,,,ANNA.Schmidt@Example.test\n+4915112345680,,,\n",
    );
    const rows = await checkAll(rowChecker(reading, systemClock), sparse, sparse.length);
    const context = { now: "2026-11-26T10:00:00Z", source: "import:imp_1" };
    expect(rows).toHaveLength(3);
    for (const checked of rows) {
      if (!checked.result.ok) throw new Error(`row ${checked.row} refused`);
      const contact = checked.result.contact;
      const base = {
        seq: 0,
        id: "ct_1",
        workspace_id: reading.workspaceId,
        phone: contact.phone,
        created_at: context.now,
      };
      const created = nextRow(null, base, contact, context).row;
      if (!created) throw new Error("no row");
      expect(checked.search).toEqual(searchDocument(created));
    }
  });

  it("skips the rows a resumed run has already written", async () => {
    const rows = await checkAll(rowChecker({ ...reading, done: 2500 }, systemClock), csv, 4096);
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 500 }, (_, i) => i + 2501));
  });

  it("gives the same rows from its own thread as in the service's thread", async () => {
    const { threadedRowChecker } = (await import(threadModule)) as ThreadModule;
    const inline = await checkAll(rowChecker(reading, systemClock), csv, 65536);
    const threaded = await checkAll(threadedRowChecker(reading, systemClock), csv, 65536);
    expect(threaded).toEqual(inline);
  });

  it("fails, rather than waits for ever, when a piece cannot be read, in either thread", async () => {
    const noPhone = Buffer.from("first_name,email\nAnna,anna@example.test\n");
    const inline = rowChecker(reading, systemClock);
    await expect(inline.check(noPhone)).rejects.toThrow(/phone/);
    const { threadedRowChecker } = (await import(threadModule)) as ThreadModule;
    const threaded = threadedRowChecker(reading, systemClock);
    try {
      await expect(threaded.check(noPhone)).rejects.toThrow(/phone/);
    } finally {
      threaded.close();
    }
  });
});
