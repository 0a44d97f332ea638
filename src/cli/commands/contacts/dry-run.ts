import { isUtf8 } from "node:buffer";
import { CsvRecordReader, readHeader, readRow } from "../../../contract/contact-csv.js";
import { type ImportRowError, importLimits } from "../../../contract/contact-imports.js";
import { countryCode } from "../../../contract/phones.js";
import { CliError, usageError } from "../../cli-error.js";

/** What `contacts import --dry-run` found in a file. */
export interface DryRunReport {
  rows: number;
  valid_rows: number;
  error_count: number;
  /** Rows whose phone appeared earlier in the file (one contact; the later row wins under update). */
  repeated_phones: number;
  ignored_columns: string[];
  errors: ImportRowError[];
}

/**
 * Checks a CSV as the service's import would, without sending it: encoding, size, header, and
 * every row's cells (phones normalised with the same rules). Plan limits and existing contacts
 * are the service's to know.
 */
export function dryRun(
  bytes: Buffer,
  defaultCountryText: string | undefined,
  now: Date,
): { report: DryRunReport; allErrors: ImportRowError[] } {
  if (bytes.length > importLimits.csvBytes) {
    throw new CliError(
      "refused",
      `The file is ${(bytes.length / 1048576).toFixed(1)} MB; an import takes at most 100 MB. Split it.`,
    );
  }
  if (!isUtf8(bytes))
    throw new CliError("refused", "The file is not UTF-8 text; save it as CSV UTF-8.");
  const defaultCountry =
    defaultCountryText === undefined ? undefined : countryCode(defaultCountryText);
  if (defaultCountryText !== undefined && defaultCountry === undefined) {
    throw usageError(
      `--default-country expects a two-letter country code such as DE; got '${defaultCountryText}'.`,
    );
  }
  const reader = new CsvRecordReader();
  const report: DryRunReport = {
    rows: 0,
    valid_rows: 0,
    error_count: 0,
    repeated_phones: 0,
    ignored_columns: [],
    errors: [],
  };
  const phones = new Set<string>();
  const allErrors: ImportRowError[] = [];
  let layout: ReturnType<typeof readHeader> | null = null;
  const fail = (error: ImportRowError) => {
    report.error_count += 1;
    allErrors.push(error);
    if (report.errors.length < importLimits.errorsShown) report.errors.push(error);
  };
  const chunk = 1024 * 1024;
  for (let at = 0; ; at += chunk) {
    const end = at >= bytes.length;
    reader.feed(end ? undefined : bytes.subarray(at, at + chunk), (record) => {
      if (layout === null) {
        layout = readHeader(reader.header ?? []);
        if (!layout.ok)
          throw new CliError("refused", `The file cannot be imported: ${layout.message}.`);
        report.ignored_columns = layout.layout.ignored;
      }
      if (!layout.ok) return;
      report.rows = record.row;
      if (record.fields === null) {
        fail({ row: record.row, phone: null, field: "row", message: record.message });
        return;
      }
      const phoneCell = record.fields[layout.layout.columns.phone ?? 0]?.trim() || null;
      const result = readRow(record.fields, layout.layout, { defaultCountry, now });
      if (!result.ok) {
        fail({ row: record.row, phone: phoneCell, ...result.problem });
        return;
      }
      report.valid_rows += 1;
      if (phones.has(result.contact.phone)) report.repeated_phones += 1;
      else phones.add(result.contact.phone);
    });
    if (end) break;
  }
  if (reader.header === null)
    throw new CliError("refused", "The file is empty: it needs a header row with a phone column.");
  if (layout === null) {
    const header = readHeader(reader.header);
    if (!header.ok)
      throw new CliError("refused", `The file cannot be imported: ${header.message}.`);
    report.ignored_columns = header.layout.ignored;
  }
  return { report, allErrors };
}
