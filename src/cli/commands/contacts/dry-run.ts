import { isUtf8 } from "node:buffer";
import { phoneCellOf, readRow } from "../../../contract/contact-csv.js";
import {
  type ImportRowError,
  importLimits,
  tooLargeMessage,
  tooManyRowsMessage,
} from "../../../contract/contact-imports.js";
import {
  CsvDecoder,
  looksLikeUtf16,
  notCsvReason,
  notEncodedReason,
  notUtf8Reason,
  utf16WithoutMarkReason,
} from "../../../contract/csv-decoding.js";
import type { CsvDelimiter, CsvEncoding, CsvReadOptions } from "../../../contract/csv-options.js";
import {
  CsvHeaderError,
  openContactCsv,
  startsWithSeparatorLine,
} from "../../../contract/csv-reader.js";
import { CsvRowScanner } from "../../../contract/csv-row-scanner.js";
import { CliError } from "../../cli-error.js";
import { defaultCountryFlag } from "./default-country.js";

/** What `contacts import --dry-run` found in a file. */
export interface DryRunReport {
  rows: number;
  valid_rows: number;
  error_count: number;
  /** Rows whose phone appeared earlier in the file (one contact; the later row wins under update). */
  repeated_phones: number;
  ignored_columns: string[];
  /** Every header column and the field it fills (null: ignored), as the import would read it. */
  mapping: Record<string, string | null>;
  delimiter: CsvDelimiter;
  encoding: CsvEncoding;
  errors: ImportRowError[];
}

/**
 * A file the service would refuse whole, found before any request: exit 2 (cli-contract.md's
 * code for an invalid value caught before any request), with the service's own error code (a
 * 422's `validation_failed`, a 413's `payload_too_large`), so `--json` names the same problem.
 */
function refusedFile(message: string, errorCode = "validation_failed"): CliError {
  return new CliError("usage", message, undefined, [], errorCode);
}

/**
 * Refuses bytes the import would read as UTF-8 (no other encoding given, or a UTF-8 byte order
 * mark) that are not UTF-8, as the service does: exit 2, saying to name the encoding.
 */
export function refuseIfNotUtf8(bytes: Buffer, encoding: CsvEncoding | undefined): void {
  // Read as the service reads it: a byte order mark wins over --encoding.
  const probe = new CsvDecoder(encoding);
  probe.write(bytes.subarray(0, 3));
  if (probe.encoding !== "utf-8") return;
  if (looksLikeUtf16(bytes)) {
    throw refusedFile(`The file ${utf16WithoutMarkReason("--encoding")}.`);
  }
  if (isUtf8(bytes)) return;
  // Read whole, so the message names the first byte that is no UTF-8, as the service's does.
  probe.write(bytes.subarray(3));
  probe.end();
  throw refusedFile(`The file ${notUtf8Reason(probe, "--encoding")}.`);
}

/**
 * Checks a CSV as the service's import would, without sending it: encoding, separator, mapping,
 * size, header, and every row's cells (phones normalised with the same rules), through the same
 * reader (contract/csv-reader.ts). Plan limits and existing contacts are the service's to know.
 */
export function dryRun(
  bytes: Buffer,
  defaultCountryText: string | undefined,
  now: Date,
  read: CsvReadOptions = {},
): { report: DryRunReport; allErrors: ImportRowError[] } {
  const defaultCountry = defaultCountryFlag(defaultCountryText);
  if (bytes.length > importLimits.csvBytes) {
    throw refusedFile(tooLargeMessage("The file"), "payload_too_large");
  }
  const notCsv = notCsvReason(bytes);
  if (notCsv !== null) throw refusedFile(`The file ${notCsv}.`);
  refuseIfNotUtf8(bytes, read.encoding);
  // Decoded whole first, as the service refuses bytes that are no text in the encoding while
  // the upload arrives, before it reads the header.
  const decoder = new CsvDecoder(read.encoding);
  const text = Buffer.concat([decoder.write(bytes), decoder.end()]);
  const undecodable = notEncodedReason(decoder, "--encoding");
  if (undecodable !== null) throw refusedFile(`The file ${undecodable}.`);
  const reader = openContactCsv(read);
  const report: DryRunReport = {
    rows: 0,
    valid_rows: 0,
    error_count: 0,
    repeated_phones: 0,
    ignored_columns: [],
    mapping: {},
    delimiter: ",",
    encoding: "utf-8",
    errors: [],
  };
  const phones = new Set<string>();
  const allErrors: ImportRowError[] = [];
  const fail = (error: ImportRowError) => {
    report.error_count += 1;
    allErrors.push(error);
    if (report.errors.length < importLimits.errorsShown) report.errors.push(error);
  };
  const chunk = 1024 * 1024;
  try {
    for (let at = 0; ; at += chunk) {
      const end = at >= bytes.length;
      const piece = end ? undefined : bytes.subarray(at, at + chunk);
      reader.feed(piece, (record) => {
        const layout = reader.layout;
        if (layout === null) return;
        report.rows = record.row;
        if (record.fields === null) {
          fail({ row: record.row, phone: null, field: "row", message: record.message });
          return;
        }
        const result = readRow(record.fields, layout, { defaultCountry, now });
        if (!result.ok) {
          fail({ row: record.row, phone: phoneCellOf(record.fields, layout), ...result.problem });
          return;
        }
        report.valid_rows += 1;
        if (phones.has(result.contact.phone)) report.repeated_phones += 1;
        else phones.add(result.contact.phone);
      });
      if (end) break;
    }
  } catch (error) {
    if (error instanceof CsvHeaderError) {
      throw refusedFile(`The file cannot be imported: ${error.message}.`);
    }
    throw error;
  }
  if (reader.header === null || reader.layout === null) {
    throw refusedFile("The file is empty: it needs a header row with a phone column.");
  }
  // As the service does once a file has arrived: its rows counted, and a quote never closed
  // refuses the whole file.
  const scanner = new CsvRowScanner(reader.delimiter ?? ",", {
    separatorLine: startsWithSeparatorLine(text),
  });
  scanner.feed(text);
  const refusal = scanner.refusal;
  if (refusal !== null) throw refusedFile(`The file cannot be imported: ${refusal}.`);
  if (scanner.rows > importLimits.rows) {
    throw refusedFile(tooManyRowsMessage("The file", scanner.rows), "payload_too_large");
  }
  report.ignored_columns = reader.layout.ignored;
  report.mapping = reader.layout.mapping;
  report.delimiter = reader.delimiter ?? ",";
  report.encoding = reader.encoding;
  return { report, allErrors };
}
