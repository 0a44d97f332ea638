import { isUtf8 } from "node:buffer";
import type { Statement } from "better-sqlite3";
import {
  type CsvLayout,
  type CsvRecord,
  CsvRecordReader,
  countCsvRows,
  type RowResult,
  readHeader,
  readRow,
} from "../../contract/contact-csv.js";
import {
  type ContactImport,
  type CreateImportBody,
  type ImportRowError,
  importLimits,
} from "../../contract/contact-imports.js";
import type { ListMeta, PageQuery } from "../../contract/pagination.js";
import { countryCode } from "../../contract/phones.js";
import type { Db } from "../db/database.js";
import { paginate } from "../db/keyset-paging.js";
import type { ContactImportTable } from "../db/tables/contacts.js";
import type { Job } from "../jobs/job-queue.js";
import type { JobContext, JobHandler, JobResult } from "../jobs/job-runner.js";
import type { Services } from "../services.js";
import { isoSeconds } from "./clock.js";
import { ContactWriter, isProblem, type WriteContext } from "./contact-store.js";
import { newId } from "./ids.js";
import { planAllowance } from "./plan-limits.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import {
  loadActiveWorkspaceFor,
  loadWorkspaceFor,
  requireActiveWorkspace,
} from "./workspace-access.js";

export const contactImportJobKind = "contact_import";

/** The CSV is stored in pieces of this size and read back one at a time. */
const chunkBytes = 1024 * 1024;
/** Rows written per transaction: contacts, row errors, counters and the checkpoint commit together. */
export const importBatchRows = 2000;

export type ImportServices = Pick<Services, "db" | "sqlite" | "clock" | "jobs">;

const base64Pattern = /^[A-Za-z0-9+/_-]*={0,2}$/;

function notFound(importId: string): ServiceError {
  return new ServiceError("not_found", `Import '${importId}' was not found in this workspace.`);
}

async function errorsOf(db: Db, importId: string, limit: number): Promise<ImportRowError[]> {
  return db
    .selectFrom("contact_import_errors")
    .select(["row", "phone", "field", "message"])
    .where("import_id", "=", importId)
    .orderBy("row")
    .limit(limit)
    .execute();
}

async function toImport(db: Db, row: ContactImportTable): Promise<ContactImport> {
  return {
    id: row.id,
    import_id: row.id,
    status: row.status as ContactImport["status"],
    duplicate_handling: row.duplicate_handling as ContactImport["duplicate_handling"],
    default_country: row.default_country,
    total_rows: Math.max(row.total_rows, row.processed_rows),
    processed_rows: row.processed_rows,
    created: row.created,
    updated: row.updated,
    skipped: row.skipped,
    error_count: row.error_count,
    errors: row.error_count === 0 ? [] : await errorsOf(db, row.id, importLimits.errorsShown),
    ignored_columns: JSON.parse(row.ignored_columns) as string[],
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

/** The CSV bytes of a base64 body, or a 422 that says what is wrong with it. */
function decodeCsv(text: string): Buffer {
  const compact = /\s/.test(text) ? text.replace(/\s+/g, "") : text;
  if (!base64Pattern.test(compact) || compact.length % 4 === 1) {
    throw invalidField("csv", "is not base64: send the CSV file's bytes encoded as base64");
  }
  const bytes = Buffer.from(compact, "base64");
  if (bytes.length > importLimits.csvBytes) {
    throw new ServiceError(
      "payload_too_large",
      `The CSV is ${(bytes.length / 1048576).toFixed(1)} MB; an import takes at most 100 MB. Split the file.`,
    );
  }
  if (bytes.length === 0)
    throw invalidField("csv", "is empty: the file needs a header row and data rows");
  if (!isUtf8(bytes)) {
    throw invalidField("csv", "is not UTF-8 text; save the file as CSV UTF-8 and send it again");
  }
  return bytes;
}

/** The header of a CSV file, read with the same parser as the rows. */
function headerOf(bytes: Buffer): CsvLayout {
  const reader = new CsvRecordReader();
  const head = bytes.subarray(0, 65536);
  reader.feed(head, () => {});
  if (reader.header === null && head.length === bytes.length) reader.feed(undefined, () => {});
  if (reader.header === null) {
    throw invalidField("csv", "has no header row that can be read in its first 64 KB");
  }
  const result = readHeader(reader.header);
  if (!result.ok) throw invalidField("csv", result.message);
  return result.layout;
}

/**
 * Stores the CSV and queues its import; answers at once (202) with the queued record. The
 * header is read now, so a file without a phone column or that is not base64 or UTF-8 is a 422
 * rather than an import that fails later; too many bytes or rows is a 413.
 */
export async function createImport(
  services: ImportServices,
  principal: Principal,
  workspaceId: string,
  body: CreateImportBody,
): Promise<ContactImport> {
  const { db, clock, jobs } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  let defaultCountry: string | null = null;
  if (body.default_country !== undefined) {
    defaultCountry = countryCode(body.default_country) ?? null;
    if (defaultCountry === null) {
      throw invalidField(
        "default_country",
        `'${body.default_country}' is not a two-letter country code such as DE, US or GB`,
      );
    }
  }
  const bytes = decodeCsv(body.csv);
  const layout = headerOf(bytes);
  const rows = countCsvRows(bytes);
  if (rows > importLimits.rows) {
    throw new ServiceError(
      "payload_too_large",
      `The CSV has ${rows.toLocaleString("en-US")} data rows; an import takes at most 1,000,000. Split the file.`,
    );
  }
  const now = isoSeconds(clock.now());
  const row: ContactImportTable = {
    id: newId("imp"),
    workspace_id: workspace.id,
    status: "queued",
    duplicate_handling: body.duplicate_handling,
    default_country: defaultCountry,
    total_rows: rows,
    processed_rows: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    error_count: 0,
    ignored_columns: JSON.stringify(layout.ignored),
    csv_bytes: bytes.length,
    failure_reason: null,
    created_at: now,
    started_at: null,
    finished_at: null,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("contact_imports").values(row).execute();
    for (let seq = 0; seq * chunkBytes < bytes.length; seq++) {
      await trx
        .insertInto("contact_import_chunks")
        .values({
          import_id: row.id,
          seq,
          data: bytes.subarray(seq * chunkBytes, (seq + 1) * chunkBytes),
        })
        .execute();
    }
    await jobs.enqueue(trx, { kind: contactImportJobKind, payload: { import_id: row.id } });
  });
  jobs.poke();
  return toImport(db, row);
}

async function loadImport(
  db: Db,
  workspaceId: string,
  importId: string,
): Promise<ContactImportTable> {
  const row = await db
    .selectFrom("contact_imports")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", importId)
    .executeTakeFirst();
  if (!row) throw notFound(importId);
  return row;
}

/** One import of a workspace the caller may see. */
export async function getImport(
  db: Db,
  principal: Principal,
  workspaceId: string,
  importId: string,
): Promise<ContactImport> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  return toImport(db, await loadImport(db, workspace.id, importId));
}

/** The workspace's imports, newest first. */
export async function listImports(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: PageQuery,
): Promise<{ data: ContactImport[]; meta: ListMeta }> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const select = db
    .selectFrom("contact_imports")
    .selectAll()
    .where("workspace_id", "=", workspace.id);
  const page = await paginate(select, "contact_imports.id", query);
  const data: ContactImport[] = [];
  for (const row of page.rows) data.push(await toImport(db, row));
  return { data, meta: { pagination: page.pagination } };
}

/** Every row error of an import, by row (the record itself shows the first 1000). */
export async function listImportErrors(
  db: Db,
  principal: Principal,
  workspaceId: string,
  importId: string,
  query: PageQuery,
): Promise<{ data: ImportRowError[]; meta: ListMeta }> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const imported = await loadImport(db, workspace.id, importId);
  const select = db
    .selectFrom("contact_import_errors")
    .select(["row", "phone", "field", "message"])
    .where("import_id", "=", imported.id);
  const page = await paginate(select, "contact_import_errors.row", query, {
    key: { column: "contact_import_errors.row", of: (r) => r.row, order: "asc" },
    total: async () => imported.error_count,
  });
  return { data: page.rows, meta: { pagination: page.pagination } };
}

// The job.

interface ImportCheckpoint {
  /** Data rows (by number) already written. */
  rows: number;
}

interface CheckedRow {
  row: number;
  phone: string | null;
  result: RowResult;
}

/** The counts one batch adds to the import. */
interface BatchCounts {
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  errors: number;
}

function rowError(row: number, phone: string | null, field: string, message: string): CheckedRow {
  return { row, phone, result: { ok: false, problem: { field, message } } };
}

/**
 * Writes one batch of checked rows: contacts, row errors, the import's counters and the job's
 * checkpoint, all in one transaction, so a crash leaves either all of the batch or none of it.
 */
async function writeBatch(
  services: ImportServices,
  ctx: JobContext,
  imported: ContactImportTable,
  rows: CheckedRow[],
): Promise<void> {
  const { db, sqlite, clock } = services;
  const last = rows.at(-1);
  if (!last) return;
  // The plan's ceiling is read per batch, so a plan change during an import applies at once.
  const workspace = {
    id: imported.workspace_id,
    plan_id: await workspacePlan(db, imported.workspace_id),
  };
  const allowance = await planAllowance(db, clock, workspace, "contacts");
  const insertError = errorStatement(sqlite);
  await db.transaction().execute(async (trx) => {
    const writer = new ContactWriter(sqlite, imported.workspace_id);
    const context: WriteContext = { now: isoSeconds(clock.now()), source: `import:${imported.id}` };
    let room =
      allowance === null || allowance.limit === -1
        ? Number.POSITIVE_INFINITY
        : allowance.limit - writer.contactCount();
    const counts: BatchCounts = {
      processed: rows.length,
      created: 0,
      updated: 0,
      skipped: 0,
      errors: 0,
    };
    const errors: { row: number; phone: string | null; field: string; message: string }[] = [];
    for (const checked of rows) {
      const { result } = checked;
      let problem = result.ok ? null : result.problem;
      if (result.ok) {
        const changes = result.contact;
        const phone = changes.phone;
        const existing = writer.byPhone(phone);
        if (existing && imported.duplicate_handling === "skip") {
          counts.skipped += 1;
          continue;
        }
        if (!existing && room <= 0) {
          problem = {
            field: "phone",
            message: `the workspace's plan allows ${allowance?.limit} contacts and they are all used; this row would add one more`,
          };
        } else {
          const written = existing
            ? writer.update(existing, changes, context)
            : writer.create(phone, changes, context);
          if (isProblem(written)) problem = written;
          else if (existing) counts.updated += 1;
          else {
            counts.created += 1;
            room -= 1;
          }
        }
      }
      if (problem) {
        counts.errors += 1;
        errors.push({ row: checked.row, phone: checked.phone, ...problem });
      }
    }
    for (const e of errors) insertError.run(imported.id, e.row, e.phone, e.field, e.message);
    await trx
      .updateTable("contact_imports")
      .set((eb) => ({
        processed_rows: eb("processed_rows", "+", counts.processed),
        created: eb("created", "+", counts.created),
        updated: eb("updated", "+", counts.updated),
        skipped: eb("skipped", "+", counts.skipped),
        error_count: eb("error_count", "+", counts.errors),
      }))
      .where("id", "=", imported.id)
      .execute();
    await ctx.checkpoint(trx, { rows: last.row } satisfies ImportCheckpoint);
  });
}

const errorStatements = new WeakMap<ImportServices["sqlite"], Statement>();

function errorStatement(sqlite: ImportServices["sqlite"]): Statement {
  let statement = errorStatements.get(sqlite);
  if (!statement) {
    statement = sqlite.prepare(
      "INSERT OR IGNORE INTO contact_import_errors (import_id, row, phone, field, message) VALUES (?, ?, ?, ?, ?)",
    );
    errorStatements.set(sqlite, statement);
  }
  return statement;
}

async function workspacePlan(db: Db, workspaceId: string): Promise<number | null> {
  const row = await db
    .selectFrom("workspaces")
    .select("plan_id")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  return row?.plan_id ?? null;
}

async function finish(
  db: Db,
  importId: string,
  outcome: { status: "completed" } | { status: "failed"; reason: string },
  now: string,
): Promise<void> {
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
    // The file has served its purpose; the counts and errors stay.
    await trx.deleteFrom("contact_import_chunks").where("import_id", "=", importId).execute();
  });
}

/**
 * Runs one import: reads the stored CSV chunk by chunk with csv-parse, checks each row, and
 * writes batches. After a crash or shutdown it starts again from the checkpoint: the rows up to
 * it were committed with it, so they are skipped, and the counts end as in an uninterrupted run.
 */
async function runImport(services: ImportServices, job: Job, ctx: JobContext): Promise<JobResult> {
  const { db, clock } = services;
  const importId = (job.payload as { import_id?: string }).import_id ?? "";
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
    await finish(db, importId, { status: "failed", reason: (error as Error).message }, now());
    return { state: "done" };
  }
  if (imported.status === "queued") {
    await db
      .updateTable("contact_imports")
      .set({ status: "processing", started_at: now() })
      .where("id", "=", importId)
      .execute();
  }

  const done = (job.checkpoint as ImportCheckpoint | null)?.rows ?? 0;
  const defaultCountry = imported.default_country
    ? countryCode(imported.default_country)
    : undefined;
  let layout: CsvLayout | null = null;
  const reader = new CsvRecordReader();
  let pending: CheckedRow[] = [];
  const check = (record: CsvRecord) => {
    if (record.row <= done) return;
    if (layout === null) {
      const header = readHeader(reader.header ?? []);
      if (!header.ok) throw new Error(header.message);
      layout = header.layout;
    }
    if (record.fields === null) {
      pending.push(rowError(record.row, null, "row", record.message));
      return;
    }
    const phoneCell = record.fields[layout.columns.phone ?? 0]?.trim() || null;
    if (record.row > importLimits.rows) {
      pending.push(
        rowError(record.row, phoneCell, "row", "an import takes at most 1,000,000 rows"),
      );
      return;
    }
    const result = readRow(record.fields, layout, { defaultCountry, now: clock.now() });
    pending.push({ row: record.row, phone: phoneCell, result });
  };

  const flush = async (all: boolean): Promise<boolean> => {
    while (pending.length >= importBatchRows || (all && pending.length > 0)) {
      const batch = pending.slice(0, importBatchRows);
      pending = pending.slice(importBatchRows);
      await writeBatch(services, ctx, imported, batch);
      if (ctx.signal.aborted) return false;
      // better-sqlite3 is synchronous, so Kysely's promises settle at once: without a turn of
      // the event loop between batches, requests (progress polls included) would wait for the end.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return true;
  };

  for (let seq = 0; ; seq++) {
    if (ctx.signal.aborted) return { state: "interrupted" };
    const chunk = await db
      .selectFrom("contact_import_chunks")
      .select("data")
      .where("import_id", "=", importId)
      .where("seq", "=", seq)
      .executeTakeFirst();
    reader.feed(chunk?.data, check);
    if (!(await flush(!chunk))) return { state: "interrupted" };
    if (!chunk) break;
  }
  await finish(db, importId, { status: "completed" }, now());
  return { state: "done" };
}

/** The durable job that runs contact imports (registered in jobs/job-handlers.ts). */
export function contactImportJob(services: ImportServices): JobHandler {
  return async (job, ctx) => {
    try {
      return await runImport(services, job, ctx);
    } catch (error) {
      // The runner retries an unexpected failure a few times; after the last, the import fails.
      if (job.attempts >= 5) {
        const importId = (job.payload as { import_id?: string }).import_id ?? "";
        await finish(
          services.db,
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
