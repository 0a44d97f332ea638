import {
  type CsvLayout,
  phoneCellOf,
  type RowResult,
  readRow,
} from "../../contract/contact-csv.js";
import { importLimits, importLimitTexts } from "../../contract/contact-imports.js";
import type { CsvMapping } from "../../contract/csv-options.js";
import { parseDelimiter } from "../../contract/csv-options.js";
import { openContactCsv } from "../../contract/csv-reader.js";
import type { CsvRecord } from "../../contract/csv-records.js";
import { countryCode } from "../../contract/phones.js";
import {
  newContactSearchDocument,
  type SearchDocument,
} from "../db/contact-rows/contact-search.js";
import type { Clock } from "./clock.js";
import { nextTurn } from "./contact-import-uploads.js";

/** A data row of an import, checked: the contact it gives, or why it gives none. */
export interface CheckedRow {
  row: number;
  phone: string | null;
  result: RowResult;
  /**
   * The search entry of the contact the row creates if its phone is new to the workspace (see
   * newContactSearchDocument): computed where the rows are checked, beside the writing thread.
   */
  search?: SearchDocument;
}

/** How an import's stored CSV is read: what its record says, and where a resumed run starts. */
export interface RowReading {
  /** The workspace the rows go to. */
  workspaceId: string;
  mapping: CsvMapping | null;
  delimiter: string;
  defaultCountry: string | null;
  /** Data rows (by number) already written by an earlier run, skipped. */
  done: number;
}

/** Turns the stored CSV, piece by piece in order, into checked rows. */
export interface RowChecker {
  /** The rows that end in this piece (`undefined`: the file ended). */
  check(piece: Uint8Array | undefined): Promise<CheckedRow[]>;
  /** Whether it works beside the caller (another thread), so the next piece can be asked early. */
  readonly beside: boolean;
  close(): void;
}

/** The stored CSV is parsed this many bytes at a time (about 80 rows). */
const parseSliceBytes = 16 * 1024;

/** A row that gives no contact, and why. */
export function rowError(
  row: number,
  phone: string | null,
  field: string,
  message: string,
): CheckedRow {
  return { row, phone, result: { ok: false, problem: { field, message } } };
}

/**
 * Parses and checks rows in this thread. With `budgetMs`, it hands the event loop back whenever
 * it has worked that long, so a long cell or a very wide row never stalls a request.
 */
export function rowChecker(reading: RowReading, clock: Clock, budgetMs?: number): RowChecker {
  const reader = openContactCsv({
    mapping: reading.mapping ?? undefined,
    delimiter: parseDelimiter(reading.delimiter),
  });
  const defaultCountry = reading.defaultCountry ? countryCode(reading.defaultCountry) : undefined;
  let rows: CheckedRow[] = [];
  const check = (record: CsvRecord) => {
    if (record.row <= reading.done) return;
    const layout = reader.layout as CsvLayout;
    if (record.fields === null) {
      rows.push(rowError(record.row, null, "row", record.message));
      return;
    }
    const phoneCell = phoneCellOf(record.fields, layout);
    if (record.row > importLimits.rows) {
      rows.push(
        rowError(record.row, phoneCell, "row", `an import takes at most ${importLimitTexts.rows}`),
      );
      return;
    }
    const result = readRow(record.fields, layout, { defaultCountry, now: clock.now() });
    rows.push(
      result.ok
        ? {
            row: record.row,
            phone: phoneCell,
            result,
            search: newContactSearchDocument(reading.workspaceId, result.contact),
          }
        : { row: record.row, phone: phoneCell, result },
    );
  };
  return {
    beside: false,
    async check(piece) {
      if (piece === undefined) {
        reader.feed(undefined, check);
      } else {
        // A piece from another thread arrives as a plain Uint8Array: viewed as a Buffer, not copied.
        const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.length);
        let turnStarted = performance.now();
        for (let at = 0; at < bytes.length; at += parseSliceBytes) {
          reader.feed(bytes.subarray(at, at + parseSliceBytes), check);
          if (budgetMs !== undefined && performance.now() - turnStarted > budgetMs) {
            await nextTurn();
            turnStarted = performance.now();
          }
        }
      }
      const checked = rows;
      rows = [];
      return checked;
    },
    close() {},
  };
}
