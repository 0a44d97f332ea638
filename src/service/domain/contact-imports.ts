/**
 * Contact imports: a CSV upload stored as it arrives and queued, and the queries on imports and
 * their row errors. contact-import-job.ts runs them.
 */
import {
  type ContactImport,
  type CreateImportBody,
  type ImportRowError,
  importLimits,
  tooManyRowsMessage,
} from "../../contract/contact-imports.js";
import {
  CsvDecoder,
  looksLikeUtf16,
  notCsvReason,
  notEncodedReason,
  notUtf8Reason,
  utf16WithoutMarkReason,
} from "../../contract/csv-decoding.js";
import { parseDelimiter } from "../../contract/csv-options.js";
import { CsvHeaderError, readCsvHead, startsWithSeparatorLine } from "../../contract/csv-reader.js";
import { quoted } from "../../contract/errors.js";
import type { ListMeta, PageQuery } from "../../contract/pagination.js";
import { countryCode, defaultCountryProblem } from "../../contract/phones.js";
import { cursorSeal } from "../db/cursor-seal.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { paginate } from "../db/keyset-paging.js";
import type { ContactImportTable } from "../db/tables/contacts.js";
import { contactImportJobKind } from "../jobs/job-kinds.js";
import type { Services } from "../services.js";
import { isoSeconds } from "./clock.js";
import { headerBytes, removeUpload, StagedUpload } from "./contact-import-uploads.js";
import { newId } from "./ids.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { loadActiveWorkspaceFor, loadWorkspaceFor } from "./workspace-access.js";

/** Upload pieces of imports that never started (a refused or broken upload) go after this. */
const abandonedUploadMs = 24 * 3600 * 1000;

export type ImportServices = Pick<Services, "db" | "clock" | "jobs">;

/** What an upload says besides the CSV: the body's fields, or the query of a text/csv upload. */
export type ImportOptions = Pick<
  CreateImportBody,
  "duplicate_handling" | "default_country" | "mapping" | "delimiter" | "encoding"
>;

function notFound(importId: string): ServiceError {
  return new ServiceError(
    "not_found",
    `Import ${quoted(importId)} was not found in this workspace.`,
  );
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

/** The API record of an import row (its first row errors read with it). */
export async function toImport(db: Db, row: ContactImportTable): Promise<ContactImport> {
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
    opt_outs_kept: row.opt_outs_kept,
    errors: row.error_count === 0 ? [] : await errorsOf(db, row.id, importLimits.errorsShown),
    ignored_columns: parseJson(row.ignored_columns),
    mapping: row.mapping === null ? {} : parseJson(row.mapping),
    delimiter: (parseDelimiter(row.delimiter) ?? ",") as ContactImport["delimiter"],
    encoding: row.encoding as ContactImport["encoding"],
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

/** The start of a CSV file (stored as UTF-8): its separator and header, read as the rows are. */
function headerOf(
  head: Buffer,
  whole: boolean,
  options: ImportOptions,
): ReturnType<typeof readCsvHead> {
  try {
    return readCsvHead(head, whole, {
      mapping: options.mapping,
      delimiter: options.delimiter === undefined ? undefined : parseDelimiter(options.delimiter),
    });
  } catch (error) {
    if (error instanceof CsvHeaderError) throw invalidField(error.field, error.message);
    throw error;
  }
}

/**
 * Stores the CSV as it arrives from `source` and queues its import; answers (202) with the queued
 * record once the upload is complete. The header is read now, so a file without a phone column
 * or that is not base64 or UTF-8 is a 422 rather than an import that fails later; too many bytes
 * or rows is a 413. The upload is stored in pieces, a turn of the event loop apart, and only the
 * last step (the import row and its job) is one transaction, so a 100 MB upload never stalls
 * other requests; the pieces of a refused upload are removed.
 */
export async function createImport(
  services: ImportServices,
  principal: Principal,
  workspaceId: string,
  options: ImportOptions,
  source: AsyncIterable<Buffer>,
): Promise<ContactImport> {
  const { db, clock, jobs } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  let defaultCountry: string | null = null;
  if (options.default_country !== undefined) {
    const problem = defaultCountryProblem(options.default_country);
    if (problem !== null) throw invalidField("default_country", problem);
    defaultCountry = countryCode(options.default_country) ?? null;
  }
  await removeAbandonedUploads(services);
  const id = newId("imp");
  // Stored as UTF-8 whatever the file's encoding, so the limits and the job read one form.
  const decoder = new CsvDecoder(options.encoding);
  const upload = new StagedUpload(db, id, isoSeconds(clock.now()), (start) =>
    looksLikeUtf16(start)
      ? utf16WithoutMarkReason("the encoding option")
      : notUtf8Reason(decoder, "the encoding option"),
  );
  let head: ReturnType<typeof readCsvHead>;
  let file: Awaited<ReturnType<StagedUpload["end"]>>;
  let rows: number;
  try {
    // A workbook or PDF is told by its first bytes as sent, before any decoding changes them.
    let start: Buffer | null = Buffer.alloc(0);
    for await (const piece of source) {
      if (start !== null) {
        start = Buffer.concat([start, piece.subarray(0, 8)]);
        if (start.length >= 8) {
          refuseNonCsv(start);
          start = null;
        }
      }
      await upload.push(decoder.write(piece));
      refuseUndecodable(decoder);
    }
    if (start !== null) refuseNonCsv(start);
    await upload.push(decoder.end());
    refuseUndecodable(decoder);
    file = await upload.end();
    // UTF-16 of ASCII letters is valid UTF-8 (its NUL bytes too): told as the dry run tells it.
    if (decoder.encoding === "utf-8" && looksLikeUtf16(file.head)) {
      throw invalidField("csv", utf16WithoutMarkReason("the encoding option"));
    }
    head = headerOf(file.head, file.bytes <= headerBytes, options);
    rows = await upload.scan(head.delimiter, startsWithSeparatorLine(file.head));
    if (rows > importLimits.rows) {
      throw new ServiceError("payload_too_large", tooManyRowsMessage("The CSV", rows));
    }
    await upload.store();
  } catch (error) {
    // Pieces a failed copy stored are removed with the abandoned ones.
    await upload.discard();
    throw error;
  }
  await upload.discard();
  const now = isoSeconds(clock.now());
  const row: ContactImportTable = {
    id,
    workspace_id: workspace.id,
    status: "queued",
    duplicate_handling: options.duplicate_handling,
    default_country: defaultCountry,
    total_rows: rows,
    processed_rows: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    error_count: 0,
    opt_outs_kept: 0,
    ignored_columns: JSON.stringify(head.layout.ignored),
    mapping: JSON.stringify(head.layout.mapping),
    delimiter: head.delimiter,
    encoding: decoder.encoding,
    csv_bytes: file.bytes,
    failure_reason: null,
    created_at: now,
    started_at: null,
    finished_at: null,
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("contact_imports").values(row).execute();
    await jobs.enqueue(trx, { kind: contactImportJobKind, payload: { import_id: row.id } });
  });
  jobs.poke();
  return toImport(db, row);
}

/**
 * Removes upload pieces left by uploads that never became a running import (a crash mid-upload,
 * or mid-removal after an import ended).
 */
async function removeAbandonedUploads(services: ImportServices): Promise<void> {
  const before = isoSeconds(new Date(services.clock.now().getTime() - abandonedUploadMs));
  const stale = await services.db
    .selectFrom("contact_import_uploads")
    .select("upload_id")
    .distinct()
    .where("created_at", "<", before)
    .where("upload_id", "not in", (eb) =>
      eb.selectFrom("contact_imports").select("id").where("status", "in", ["queued", "processing"]),
    )
    .execute();
  for (const { upload_id } of stale) await removeUpload(services.db, upload_id);
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
    key: {
      column: "contact_import_errors.row",
      of: (r) => r.row,
      order: "asc",
      seal: await cursorSeal(db),
    },
    total: async () => imported.error_count,
  });
  return { data: page.rows, meta: { pagination: page.pagination } };
}

/** A 422 for a file whose bytes are not text in its encoding (csv-decoding.ts). */
function refuseUndecodable(decoder: CsvDecoder): void {
  const reason = notEncodedReason(decoder, "the encoding option");
  if (reason !== null) throw invalidField("csv", reason);
}

/** A 422 for a file that starts as a workbook, an archive or a PDF does (csv-decoding.ts). */
function refuseNonCsv(start: Buffer): void {
  const reason = notCsvReason(start);
  if (reason !== null) throw invalidField("csv", reason);
}
