/**
 * The import job: reads a stored upload piece by piece, checks its rows (in another thread where
 * offered) and writes them in batches, each with its checkpoint, so a crash resumes with the same
 * final counts. contact-imports.ts takes the upload and answers the queries.
 */
import type { ExpressionBuilder, QueryCreator } from "kysely";
import type { Contact } from "../../contract/contacts.js";
import { refreshContactStatistics } from "../db/contact-rows/contact-rows.js";
import { othersWaitToWrite } from "../db/database.js";
import { capabilitiesOf } from "../db/engine-capabilities.js";
import { parseJson } from "../db/json-text.js";
import type { Database } from "../db/schema.js";
import type { ContactImportErrorTable, ContactImportTable } from "../db/tables/contacts.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import {
  type CheckedRow,
  type RowChecker,
  type RowReading,
  rowChecker,
} from "../domain/contact-import-rows.js";
import {
  nextTurn,
  removeUpload,
  uploadHandedOver,
  uploadPieceBytes,
} from "../domain/contact-import-uploads.js";
import { type ImportServices, toImport } from "../domain/contact-imports.js";
import {
  type ContactChanges,
  ContactWriter,
  isProblem,
  keepOptOut,
  type WriteContext,
  withdrawalOf,
} from "../domain/contact-store.js";
import { toContact } from "../domain/contacts.js";
import { recordConsentEvent, recordWorkspaceEvent } from "../domain/events.js";
import { planAllowance } from "../domain/plan-limits.js";
import { ServiceError } from "../domain/service-error.js";
import { requireActiveWorkspace } from "../domain/workspace-access.js";
import type { Services } from "../services.js";
import { type Job, LeaseLostError } from "./job-queue.js";
import { givesUpOn, type JobContext, type JobHandler, type JobResult } from "./job-runner.js";

/**
 * Rows written per transaction: contacts, row errors, counters and the checkpoint commit
 * together. Sized so one transaction holds the event loop for about 10–20 ms: 10,000-row
 * batches write about a quarter faster but make every request that arrives meanwhile wait 200 ms.
 */
export const importBatchRows = 500;

/**
 * Rows per transaction in an import's own worker thread (a SQLite file): at most this many, in
 * practice a stored piece's rows (about 11,000 of a typical file). A batch there holds no event
 * loop, only the write lock. Each commit writes every page it dirtied, most of them random pages
 * of the phone index, and a larger batch dirties each fewer times per row: a million shuffled
 * rows wrote 9.6 GB in 55.5 s with 5,000-row batches, 7.0 GB in 48.3 s with a piece per batch
 * (medians of three runs; docs/imports-and-search.md).
 */
export const threadBatchRows = 25_000;

/**
 * Within a batch, rows are written this many at a time. Between two such steps, once it has
 * written givingWayRows, a batch that the service's thread waits to write behind commits what it
 * has (db/database.ts, othersWaitToWrite): that write waits about as long as it did behind the
 * 5,000-row batches of before (p99 0.22–0.29 s during a million-row import, with an upsert every
 * 50 ms). Giving way after any step made those writes quicker (p99 0.12 s) but the import's
 * transactions so small that it took 84 s instead of 61. Only that thread is counted: another
 * `serve` process on the file, or another import's thread, waits for the whole transaction
 * (about 0.5 s), within its 5 s limit.
 */
const flushRows = 1000;
const givingWayRows = 5000;

/**
 * Row errors stored per INSERT: five values each, so a batch of 25,000 refused rows stays under
 * SQLite's 32,766 values a statement (and PostgreSQL's 65,535), in as many statements as it takes.
 */
const errorsPerInsert = 1000;

/** Parsing and checking rows in the service's thread hands the event loop back after this long. */
const workBudgetMs = 10;
/** What running an import needs: no scheduler, so a worker thread can run it too. */
type ImportRunServices = Pick<Services, "db" | "clock">;

interface ImportCheckpoint {
  /** Data rows (by number) already written. */
  rows: number;
}

/** The counts one batch adds to the import. */
interface BatchCounts {
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  errors: number;
  optOutsKept: number;
}

/**
 * Writes a batch of checked rows, or the first of them when the service's thread of this process
 * waits to write (`mayEndEarly`): contacts, row errors, the import's counters and the job's
 * checkpoint, all in one transaction, so a crash leaves either all of what it wrote or none of
 * it. Returns how many rows it wrote.
 */
async function writeBatch(
  services: ImportRunServices,
  ctx: JobContext,
  imported: ContactImportTable,
  rows: CheckedRow[],
  committedTags: Map<string, number>,
  mayEndEarly: boolean,
): Promise<number> {
  const { db, clock } = services;
  if (rows.length === 0) return 0;
  const { writer, taken } = await db.transaction().execute(async (trx) => {
    // Counted and written under the workspace's lock (PostgreSQL), as a single create is, so
    // imports and creates at once never pass the plan's ceiling together; the plan is read per
    // batch, so a plan change during an import applies at once.
    await lockWorkspaceRow(trx, imported.workspace_id);
    // Read per batch too: a workspace suspended or archived meanwhile takes no more rows (the
    // run ends failed, its batches written so far kept, as a campaign stops mid-send).
    const workspace = requireActiveWorkspace(
      await trx
        .selectFrom("workspaces")
        .selectAll()
        .where("id", "=", imported.workspace_id)
        .executeTakeFirstOrThrow(),
    );
    const allowance = await planAllowance(trx, clock, workspace, "contacts");
    const writer = new ContactWriter(trx, imported.workspace_id, committedTags);
    const context: WriteContext = { now: isoSeconds(clock.now()), source: `import:${imported.id}` };
    // The contacts of each step of rows in one read (on PostgreSQL, locked until the commit),
    // so a batch that ends early has not read the rest.
    const loadStep = (from: number) => {
      const phones: string[] = [];
      for (const { result } of rows.slice(from, from + flushRows)) {
        if (result.ok) phones.push(result.contact.phone);
      }
      return writer.load(phones);
    };
    let room =
      allowance === null
        ? Number.POSITIVE_INFINITY
        : allowance.limit - (await writer.contactCount());
    const counts: BatchCounts = {
      processed: 0,
      created: 0,
      updated: 0,
      skipped: 0,
      errors: 0,
      optOutsKept: 0,
    };
    const errors: ContactImportErrorTable[] = [];
    // Each row that changes the consent of a contact that exists when the row is read (an
    // earlier row of the file may have created it) gets its event, as the same change through
    // the API does; the contacts the rows create are told by contact_import.completed.
    const consentChanges: Array<{ before: string; contact: Contact }> = [];
    let taken = 0;
    for (; taken < rows.length; taken++) {
      if (taken % flushRows === 0) {
        if (taken > 0) {
          await writer.flush();
          if (mayEndEarly && taken >= givingWayRows && othersWaitToWrite(trx)) break;
        }
        await loadStep(taken);
      }
      const checked = rows[taken] as CheckedRow;
      const { result } = checked;
      let problem = result.ok ? null : result.problem;
      if (result.ok) {
        let changes: ContactChanges = result.contact;
        const phone = result.contact.phone;
        // A phone seen earlier in the batch is the contact that row wrote.
        const existing = writer.current(phone);
        if (existing && imported.duplicate_handling === "skip") {
          const withdrawal = withdrawalOf(existing, changes);
          if (withdrawal === undefined) {
            counts.skipped += 1;
            continue;
          }
          changes = withdrawal;
        }
        if (!existing && room <= 0) {
          problem = {
            field: "phone",
            message: `the workspace's plan allows ${allowance?.limit} contacts and they are all used; this row would add one more`,
          };
        } else {
          const consent = keepOptOut(existing, changes);
          const written = existing
            ? writer.update(existing, consent.changes, context)
            : writer.create(phone, changes, context, checked.search);
          if (isProblem(written)) problem = written;
          else if (existing) {
            if (written.opt_in_status !== existing.opt_in_status) {
              consentChanges.push({ before: existing.opt_in_status, contact: toContact(written) });
            }
            counts.updated += 1;
            if (consent.kept) counts.optOutsKept += 1;
          } else {
            counts.created += 1;
            room -= 1;
          }
        }
      }
      if (problem) {
        counts.errors += 1;
        errors.push({ import_id: imported.id, row: checked.row, phone: checked.phone, ...problem });
      }
    }
    await writer.flush();
    counts.processed = taken;
    const last = rows[taken - 1] as CheckedRow;
    for (const { before, contact } of consentChanges) {
      await recordConsentEvent(trx, clock, imported.workspace_id, before, contact);
    }
    const insertErrors = (db: QueryCreator<Database>, list: ContactImportErrorTable[]) =>
      db
        .insertInto("contact_import_errors")
        .values(list)
        .onConflict((oc) => oc.columns(["import_id", "row"]).doNothing());
    const counters = (eb: ExpressionBuilder<Database, "contact_imports">) => ({
      processed_rows: eb("processed_rows", "+", counts.processed),
      created: eb("created", "+", counts.created),
      updated: eb("updated", "+", counts.updated),
      skipped: eb("skipped", "+", counts.skipped),
      error_count: eb("error_count", "+", counts.errors),
      opt_outs_kept: eb("opt_outs_kept", "+", counts.optOutsKept),
    });
    if (
      errors.length > 0 &&
      errors.length <= errorsPerInsert &&
      capabilitiesOf(trx).writesCombine
    ) {
      // The row errors go with the counters, in one statement: a round trip less per batch.
      await trx
        .with("row_errors", (db) => insertErrors(db, errors))
        .updateTable("contact_imports")
        .set(counters)
        .where("id", "=", imported.id)
        .execute();
    } else {
      for (let at = 0; at < errors.length; at += errorsPerInsert) {
        await insertErrors(trx, errors.slice(at, at + errorsPerInsert)).execute();
      }
      await trx
        .updateTable("contact_imports")
        .set(counters)
        .where("id", "=", imported.id)
        .execute();
    }
    await ctx.checkpoint(trx, { rows: last.row } satisfies ImportCheckpoint);
    return { writer, taken };
  });
  // Committed: the batch's tags exist for the batches after it.
  for (const [name, seq] of writer.tags) committedTags.set(name, seq);
  return taken;
}

async function finish(
  services: ImportRunServices,
  importId: string,
  outcome: { status: "completed" } | { status: "failed"; reason: string },
  now: string,
): Promise<void> {
  const { db } = services;
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("contact_imports")
      .set((eb) => ({
        status: outcome.status,
        failure_reason: outcome.status === "failed" ? outcome.reason : null,
        finished_at: now,
        started_at: eb.fn.coalesce("started_at", eb.val(now)),
        ...(outcome.status === "completed" ? { total_rows: eb.ref("processed_rows") } : {}),
      }))
      .where("id", "=", importId)
      .execute();
    // The reseller's systems learn of it in the same transaction (see events.ts).
    const finished = await trx
      .selectFrom("contact_imports")
      .selectAll()
      .where("id", "=", importId)
      .executeTakeFirst();
    if (finished) {
      await recordWorkspaceEvent(
        trx,
        services.clock,
        finished.workspace_id,
        outcome.status === "completed" ? "contact_import.completed" : "contact_import.failed",
        await toImport(trx, finished),
      );
    }
  });
  // The file has served its purpose; the counts and errors stay. Removed a piece per turn
  // (a crash midway leaves pieces that removeAbandonedUploads finds).
  await removeUpload(db, importId);
}

/**
 * Runs one import: reads the stored CSV chunk by chunk with csv-parse, checks each row, and
 * writes batches. After a crash or shutdown it starts again from the checkpoint: the rows up to
 * it were committed with it, so they are skipped, and the counts end as in an uninterrupted run.
 */
export async function runContactImport(
  services: ImportRunServices,
  job: Job,
  ctx: JobContext,
  checkRows: (reading: RowReading, clock: Clock) => RowChecker = (reading, clock) =>
    rowChecker(reading, clock, workBudgetMs),
  batchRows = importBatchRows,
): Promise<JobResult> {
  const { db, clock } = services;
  const importId = importIdOf(job);
  const imported = await db
    .selectFrom("contact_imports")
    .selectAll()
    .where("id", "=", importId)
    .executeTakeFirst();
  if (!imported || imported.status === "completed" || imported.status === "failed") {
    return { state: "done" };
  }
  const now = () => isoSeconds(clock.now());
  const workspace = await db
    .selectFrom("workspaces")
    .selectAll()
    .where("id", "=", imported.workspace_id)
    .executeTakeFirstOrThrow();
  try {
    requireActiveWorkspace(workspace);
  } catch (error) {
    await finish(services, importId, { status: "failed", reason: (error as Error).message }, now());
    return { state: "done" };
  }
  if (imported.status === "queued") {
    await db
      .updateTable("contact_imports")
      .set({ status: "processing", started_at: now() })
      .where("id", "=", importId)
      .execute();
  }

  const reading: RowReading = {
    workspaceId: imported.workspace_id,
    mapping: imported.mapping === null ? null : parseJson(imported.mapping),
    delimiter: imported.delimiter,
    defaultCountry: imported.default_country,
    done: (job.checkpoint as ImportCheckpoint | null)?.rows ?? 0,
  };
  // The stored file is UTF-8; the mapping read from it at upload names every header column.
  const checker = checkRows(reading, clock);
  const committedTags = new Map<string, number>();

  // Where the engine's writes overlap this thread's work, a batch is written while the next is
  // checked (one batch written at a time, so checkpoints stay in order). Otherwise each batch is
  // written before anything else goes on here (see EngineCapabilities).
  const overlap = capabilitiesOf(db).writesOverlapWork;
  let writing: Promise<void> | null = null;
  const written = async () => {
    const write = writing;
    writing = null;
    if (write) await write;
  };
  // The planner's statistics, refreshed as this run starts (a resumed or taken-over import finds
  // a workspace its statistics do not know) and each time the rows it wrote double. A file of
  // one batch goes without: on a large table ANALYZE takes longer than such an import's own work
  // (195 ms at 200,000 contacts).
  let rowsWritten = 0;
  let statisticsAt = 0;
  const analyseFirst = Math.max(imported.total_rows, imported.processed_rows) > batchRows;
  /** Writes the rows in batches; false when the job was asked to stop. */
  const write = async (rows: CheckedRow[]): Promise<boolean> => {
    for (let at = 0; at < rows.length; ) {
      await written();
      if (ctx.signal.aborted) return false;
      if (rowsWritten === 0 ? analyseFirst : rowsWritten >= 2 * Math.max(statisticsAt, 1_000)) {
        await refreshContactStatistics(db);
        statisticsAt = rowsWritten;
      }
      const batch = rows.slice(at, at + batchRows);
      if (overlap) {
        // Written while the next batch is checked, so it never ends early: the next starts after it.
        const writeOne = writeBatch(services, ctx, imported, batch, committedTags, false);
        writing = writeOne.then(() => {});
        // Awaited by the next write; a failure is thrown there, not reported as unhandled.
        writing.catch(() => {});
        at += batch.length;
        rowsWritten += batch.length;
      } else {
        const taken = await writeBatch(services, ctx, imported, batch, committedTags, true);
        at += taken;
        rowsWritten += taken;
        if (ctx.signal.aborted) return false;
      }
      // better-sqlite3 is synchronous, so Kysely's promises settle at once: without a turn of
      // the event loop between batches, requests (progress polls included) would wait for the end
      // (in a worker thread: its stop message would).
      await nextTurn();
    }
    return !ctx.signal.aborted;
  };

  const piece = async (seq: number) =>
    (
      await db
        .selectFrom("contact_import_uploads")
        .select("data")
        .where("upload_id", "=", importId)
        .where("seq", "=", seq)
        .executeTakeFirst()
    )?.data;
  try {
    // The next piece is checked while this one's rows are written where the two can overlap:
    // a checker in another thread, or writes that overlap this thread's work. Otherwise in this
    // thread, one after the other.
    const early = checker.beside || overlap;
    // A check still in flight when the run stops or fails is dropped with the checker: its
    // failure is thrown where it is awaited, never reported as unhandled.
    const check = (bytes: Buffer | undefined) => {
      const checked = checker.check(bytes);
      checked.catch(() => {});
      return checked;
    };
    let data = await piece(0);
    let checking = check(data);
    for (let seq = 0; ; seq++) {
      const rows = await checking;
      const ended = data === undefined;
      if (!ended) {
        data = await piece(seq + 1);
        if (early) checking = check(data);
      }
      if (!(await write(rows))) {
        await written();
        return { state: "interrupted" };
      }
      if (ended) break;
      if (!early) checking = check(data);
    }
    await written();
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === "workspace_not_active")) throw error;
    await finish(services, importId, { status: "failed", reason: error.message }, now());
    return { state: "done" };
  } finally {
    checker.close();
    // Never left running behind the job: a failure or a stop waits for the batch being written.
    await (writing as Promise<void> | null)?.catch(() => {});
  }
  await finish(services, importId, { status: "completed" }, now());
  return { state: "done" };
}

/** The import a contact import job runs. */
function importIdOf(job: Job): string {
  return (job.payload as { import_id?: string }).import_id ?? "";
}

/**
 * Files up to this size are imported in the service's thread even where worker threads are
 * offered: starting two threads costs more than checking and writing the 12,000-odd rows of one
 * stored piece.
 */
export const threadedImportMinBytes = uploadPieceBytes;

/**
 * The durable job that runs contact imports (registered in jobs/job-handlers.ts): in this
 * thread, or by `threaded` (the same runContactImport with worker threads, jobs/job-thread.ts)
 * for a file larger than threadedImportMinBytes.
 */
export function contactImportJob(services: ImportServices, threaded?: JobHandler): JobHandler {
  const inThisThread: JobHandler = (job, ctx) => runContactImport(services, job, ctx);
  const runnerOf = async (job: Job): Promise<JobHandler> => {
    if (!threaded) return inThisThread;
    const importId = importIdOf(job);
    const row = await services.db
      .selectFrom("contact_imports")
      .select("csv_bytes")
      .where("id", "=", importId)
      .executeTakeFirst();
    return (row?.csv_bytes ?? 0) > threadedImportMinBytes ? threaded : inThisThread;
  };
  return async (job, ctx) => {
    const run = await runnerOf(job);
    try {
      const running = run(job, ctx);
      // A thread took the copying of the log over as it started (before this line); otherwise
      // this thread's commits copy it, the upload's pieces among it.
      uploadHandedOver(services.db, importIdOf(job));
      const result = await running;
      // The import's end was recorded with its event and webhook deliveries: send them now.
      services.jobs.poke();
      return result;
    } catch (error) {
      // The runner retries an unexpected failure a few times; after the last, the import fails.
      // A lost lease is no failure: another instance runs the import now.
      if (!(error instanceof LeaseLostError) && (await givesUpOn(services.db, job))) {
        const importId = importIdOf(job);
        await finish(
          services,
          importId,
          {
            status: "failed",
            reason: `The import stopped on an internal error: ${(error as Error).message}`,
          },
          isoSeconds(services.clock.now()),
        );
      }
      throw error;
    }
  };
}
