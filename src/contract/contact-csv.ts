import { Parser } from "csv-parse";
import type { CountryCode } from "libphonenumber-js/max";
import {
  consentTimeProblem,
  contactLimits,
  customKeyProblem,
  emailPattern,
  normaliseTimestamp,
  tagProblem,
  tagSeparators,
  uniqueTags,
} from "./contact-rules.js";
import { neutraliseFormula, restoreFormula } from "./csv-formulas.js";
import { guessMapping, recogniseLayout } from "./csv-layouts.js";
import type { CsvMapping } from "./csv-options.js";
import { ownValue } from "./own-value.js";
import { normalizePhone } from "./phones.js";
import { storableCopy, unstorableTextProblem } from "./storable-text.js";
import { optInStatuses } from "./vocabulary.js";

/**
 * The CSV layout of contact imports and exports, shared by the service (import job), the CLI's
 * `contacts import --dry-run` and `contacts export`, so an export imports again unchanged.
 */

/** The columns an import reads besides `custom.<key>`, in the order an export writes them. */
export const csvColumns = [
  "phone",
  "first_name",
  "last_name",
  "email",
  "tags",
  "opt_in_status",
  "opt_in_source",
  "opted_in_at",
  "opted_out_at",
] as const;
export type CsvColumn = (typeof csvColumns)[number];

/** Header prefix of custom field columns: `custom.birthday` fills custom_fields.birthday. */
export const customColumnPrefix = "custom.";

/** Where each column sits in a file's records. */
export interface CsvLayout {
  columns: Partial<Record<CsvColumn, number>>;
  custom: { key: string; index: number }[];
  /** Header names the import does not read, as written (a long one cut: shownHeader). */
  ignored: string[];
  /** Every header name (as written, a long one cut alike) and the field it fills, or null. */
  mapping: CsvMapping;
  /** Every cell a row is read from, named as a row error names it (custom ones prefixed). */
  read: { field: string; index: number }[];
  width: number;
}

/** A refused header names `mapping` when the request's mapping, not the file, is at fault. */
export type HeaderResult =
  | { ok: true; layout: CsvLayout }
  | { ok: false; message: string; field?: "mapping" };

/** A value a row error or message quotes is cut to this many characters. */
export const errorValueLength = 200;

/**
 * A value as a row error may hold it: at most 200 characters, so no cell can bloat an import,
 * and any character no database stores (contract/storable-text.ts) shown as U+FFFD.
 */
export function cutErrorValue(text: string): string {
  const cut = text.length > errorValueLength ? `${text.slice(0, errorValueLength - 1)}…` : text;
  return storableCopy(cut);
}

/**
 * A header name as an import's record shows it: whole up to 200 characters; a longer one cut,
 * with a hash of the whole name, so two long names that begin alike still show apart (the job
 * reads the file again with the record's mapping, whose keys are these).
 */
export function shownHeader(name: string): string {
  if (name.length <= errorValueLength) return storableCopy(name);
  // FNV-1a (32 bits): enough to tell apart the few long names of one header, with no import.
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  const tag = (hash >>> 0).toString(16).padStart(8, "0");
  return storableCopy(`${name.slice(0, errorValueLength - 10)}…${tag}`);
}

/** The field a header name (or a mapping's target) reads as by itself, or null for none. */
export function fieldNamedBy(target: string): string | null {
  const lower = target.trim().toLowerCase();
  if ((csvColumns as readonly string[]).includes(lower)) return lower;
  if (lower.startsWith(customColumnPrefix)) {
    const key = target.trim().slice(customColumnPrefix.length).trim();
    return customKeyProblem(key) === null ? `${customColumnPrefix}${key}` : null;
  }
  return null;
}

/** A mapping as JSON, for messages: what to send to import this file. */
export function mappingText(mapping: CsvMapping): string {
  return JSON.stringify(mapping);
}

/**
 * A mapping as `--map` flags' values (`Telefon=phone`, `Notes=` to ignore a column), what
 * parseMappingFlags in csv-options.ts reads back; a nameless column, which no flag can name, is
 * left out when it is ignored.
 */
export function mappingFlags(mapping: CsvMapping | undefined): string[] {
  return Object.entries(mapping ?? {})
    .filter(([header, field]) => header.trim() !== "" || field !== null)
    .map(([header, field]) => `${header}=${field ?? ""}`);
}

/** The same flags as a command line's words: `--map "Telefon=phone" --map "Notiz="`. */
export function mappingFlagsText(mapping: CsvMapping | undefined): string {
  return mappingFlags(mapping)
    .map((flag) => `--map ${JSON.stringify(flag)}`)
    .join(" ");
}

/**
 * Reads the header row: names trimmed and case-insensitive, each read as the field it names or
 * as `mapping` says (mapping keys match header names the same way; null ignores a column);
 * `phone` is required. A file without one that comes from a known export (Google Contacts,
 * Outlook, HubSpot) gets a message naming the export and the mapping that imports it.
 */
export function readHeader(header: readonly string[], mapping?: CsvMapping | null): HeaderResult {
  const layout: CsvLayout = {
    columns: {},
    custom: [],
    ignored: [],
    mapping: {},
    read: [],
    width: header.length,
  };
  // A key matches its header exactly first, then whatever the case: a file may hold both
  // `custom.City` and `custom.city` (custom keys keep their case), and so may its mapping. A key
  // that names one header exactly is that header's alone, never another's whatever the case.
  const rules = Object.entries(mapping ?? {}).map(([key, target]) => ({ header: key, target }));
  const exact = new Map(rules.map((rule) => [rule.header.trim(), rule]));
  const names = new Set(header.flatMap((raw) => [raw.trim(), shownHeader(raw.trim())]));
  const folded = new Map<string, (typeof rules)[number]>();
  for (const rule of rules) {
    const key = rule.header.trim().toLowerCase();
    if (!names.has(rule.header.trim()) && !folded.has(key)) folded.set(key, rule);
  }
  const used = new Set<(typeof rules)[number]>();
  const seen = new Map<string, string>();
  for (const [index, raw] of header.entries()) {
    const name = raw.trim();
    // The record (and its event) shows each header name at most 200 characters long, so no
    // single cell makes an import record large; the import's job reads the file again with the
    // record's mapping, so a mapping key matches the name or its shown form.
    const shown = shownHeader(name);
    const rule =
      exact.get(name) ??
      exact.get(shown) ??
      folded.get(name.toLowerCase()) ??
      folded.get(shown.toLowerCase());
    if (rule) used.add(rule);
    const target = rule
      ? rule.target === null
        ? null
        : fieldNamedBy(rule.target)
      : fieldNamedBy(name);
    layout.mapping[shown] = target;
    if (target === null) {
      layout.ignored.push(shown);
      continue;
    }
    if (target.startsWith(customColumnPrefix)) {
      layout.custom.push({ key: target.slice(customColumnPrefix.length), index });
    } else {
      layout.columns[target as CsvColumn] = index;
    }
    const earlier = seen.get(target);
    if (earlier !== undefined) {
      // A mapping names a column by its header: it can set one of two spellings aside, not
      // one of two columns of the same name.
      const otherWay = !mapping
        ? ""
        : earlier === shown
          ? " or rename one (a mapping names a column by its header, which these two share)"
          : " or map one of them to null";
      return {
        ok: false,
        message: `the header names column '${target}' twice ('${earlier}' and '${shown}'); keep one${otherWay}`,
      };
    }
    seen.set(target, shown);
    layout.read.push({ field: target, index });
  }
  const unknown = rules.filter((rule) => !used.has(rule));
  if (unknown.length > 0) {
    const found = header.map((h) => `'${cutErrorValue(h.trim())}'`).join(", ");
    return {
      ok: false,
      field: "mapping",
      message: `the mapping names ${unknown.map((r) => `'${cutErrorValue(r.header)}'`).join(", ")}, which the header does not have (found ${found})`,
    };
  }
  if (layout.columns.phone === undefined) {
    const found = cutErrorValue(header.map((h) => `'${h.trim()}'`).join(", "));
    const known = mapping ? null : recogniseLayout(header);
    if (known) {
      return {
        ok: false,
        message: `the header has no 'phone' column: this looks like ${known.title}; import it with the mapping ${mappingText(known.mapping)} (CLI: --preset ${known.preset})${known.otherPhones.map((other) => `; if the numbers are in '${other}' instead, map it to phone and ${phoneColumnsOf(known.mapping)} to null (CLI: --preset ${known.preset} --map "${other}=phone")`).join("")}`,
      };
    }
    const guessed = mapping ? null : guessMapping(header, fieldNamedBy);
    if (guessed) {
      return {
        ok: false,
        message: `the header has no 'phone' column (found ${found}); its column names suggest the mapping ${mappingText(guessed)} (CLI: ${mappingFlagsText(guessed)})`,
      };
    }
    return {
      ok: false,
      message: `the header has no 'phone' column (found ${found || "nothing"})${mapping ? "; map the phone column to phone" : ""}${separatorHint(header)}; the first row must name the columns, e.g. phone,first_name,last_name,email,tags,opt_in_status, or a mapping must say which column holds the phone`,
    };
  }
  return { ok: true, layout };
}

/** The columns a mapping reads the phone from, quoted: `'Phone Number'`. */
function phoneColumnsOf(mapping: CsvMapping): string {
  return Object.keys(mapping)
    .filter((header) => mapping[header] === "phone")
    .map((header) => `'${header}'`)
    .join(", ");
}

/**
 * When a header cell holds another separator (`Telefon;Name, Vorname` read with `,` after a
 * tie): the separator the file may really use, said so it can be given.
 */
function separatorHint(header: readonly string[]): string {
  const other = [";", "\t", "|"].find((candidate) => header.some((h) => h.includes(candidate)));
  if (other === undefined) return "";
  const name = other === "\t" ? "tab" : `'${other}'`;
  return `; a column name holds ${name}, so the file may be separated by it: give delimiter ${name} (CLI: --delimiter ${other === "\t" ? "tab" : `'${other}'`})`;
}

/** One data row as it changes a contact; an absent (blank) cell changes nothing. */
export interface CsvContact {
  phone: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  tags?: string[];
  custom_fields?: Record<string, string>;
  opt_in_status?: (typeof optInStatuses)[number];
  opt_in_source?: string;
  opted_in_at?: string;
  opted_out_at?: string;
}

export interface RowProblem {
  field: string;
  message: string;
}

export type RowResult = { ok: true; contact: CsvContact } | { ok: false; problem: RowProblem };

export interface RowOptions {
  defaultCountry?: CountryCode | undefined;
  /** Now, to refuse consent timestamps in the future. */
  now: Date;
}

function refuse(field: string, message: string): RowResult {
  return { ok: false, problem: { field, message } };
}

/**
 * A cell's value: trimmed, the `'` an export put before a formula removed; blank is undefined.
 * What follows that `'` is kept as exported (a value starting with a tab keeps its tab, and a
 * value that is only a tab or a line break stays one).
 */
function cell(fields: readonly string[], index: number | undefined): string | undefined {
  if (index === undefined) return undefined;
  const raw = fields[index];
  if (raw === undefined) return undefined;
  const start = raw.trimStart();
  const restored = restoreFormula(start);
  if (restored !== start) return restored.trimEnd() || restored;
  const value = start.trimEnd();
  return value === "" ? undefined : value;
}

/** Google Contacts writes several values in one cell as `a ::: b`; the first is the one. */
function firstValue(value: string | undefined): string | undefined {
  if (value === undefined || !value.includes(" ::: ")) return value;
  return value.split(" ::: ")[0]?.trim() || undefined;
}

/** Consent as spreadsheets say it: yes/true/1 is opted_in, no/false/0 is not_set. */
const optInWords: Record<string, (typeof optInStatuses)[number]> = {
  yes: "opted_in",
  true: "opted_in",
  "1": "opted_in",
  no: "not_set",
  false: "not_set",
  "0": "not_set",
};

/** The phone cell of a row as a row error quotes it (at most 200 characters), or null. */
export function phoneCellOf(fields: readonly string[], layout: CsvLayout): string | null {
  const value = firstValue(cell(fields, layout.columns.phone));
  return value === undefined ? null : cutErrorValue(value);
}

/** The first cell of a column the import reads that holds text no database stores as sent. */
function unstorableCell(
  fields: readonly string[],
  layout: CsvLayout,
): { field: string; problem: string } | null {
  for (const { field, index } of layout.read) {
    const value = fields[index];
    const problem = value === undefined ? null : unstorableTextProblem(value);
    if (problem) return { field, problem };
  }
  return null;
}

/**
 * Checks one data row against the layout: the phone (normalised to E.164), every other cell,
 * and the row's width. Returns what the row changes, or the first problem found.
 */
export function readRow(
  fields: readonly string[],
  layout: CsvLayout,
  options: RowOptions,
): RowResult {
  const { columns } = layout;
  if (fields.length > layout.width && fields.slice(layout.width).some((f) => f.trim() !== "")) {
    return refuse(
      "row",
      `has ${fields.length} cells but the header names ${layout.width} columns; quote cells that contain commas`,
    );
  }
  const unstorable = unstorableCell(fields, layout);
  if (unstorable) return refuse(unstorable.field, `${unstorable.field} ${unstorable.problem}`);
  const phone = normalizePhone(
    firstValue(cell(fields, columns.phone)) ?? "",
    options.defaultCountry,
  );
  if (!phone.ok) {
    return refuse("phone", phone.reason ? phone.message : `phone ${phone.message}`);
  }
  const contact: CsvContact = { phone: phone.e164 };

  for (const field of ["first_name", "last_name"] as const) {
    const value = cell(fields, columns[field]);
    if (value === undefined) continue;
    if (value.length > contactLimits.nameLength) {
      return refuse(field, `${field} is longer than ${contactLimits.nameLength} characters`);
    }
    contact[field] = value;
  }

  const email = firstValue(cell(fields, columns.email));
  if (email !== undefined) {
    if (email.length > contactLimits.emailLength || !emailPattern.test(email)) {
      return refuse(
        "email",
        `email '${email.slice(0, 60)}' is not an address such as anna@example.com`,
      );
    }
    contact.email = email;
  }

  const tagCell = cell(fields, columns.tags);
  if (tagCell !== undefined) {
    const tags = uniqueTags(tagCell.split(tagSeparators)).filter((t) => t !== "");
    if (tags.length > contactLimits.tagsPerContact) {
      return refuse("tags", `a contact has at most ${contactLimits.tagsPerContact} tags`);
    }
    for (const tag of tags) {
      const problem = tagProblem(tag);
      if (problem) return refuse("tags", problem);
    }
    contact.tags = tags;
  }

  const written = cell(fields, columns.opt_in_status);
  const said = written?.toLowerCase();
  if (said !== undefined) {
    const status = ownValue(optInWords, said) ?? said;
    if (!(optInStatuses as readonly string[]).includes(status)) {
      return refuse(
        "opt_in_status",
        `opt_in_status must be one of ${optInStatuses.join(", ")}, yes/no, true/false or 1/0 (or empty); got '${cutErrorValue(written ?? "")}'`,
      );
    }
    contact.opt_in_status = status as CsvContact["opt_in_status"];
  }

  const source = cell(fields, columns.opt_in_source);
  if (source !== undefined) {
    if (source.length > contactLimits.sourceLength) {
      return refuse(
        "opt_in_source",
        `opt_in_source is longer than ${contactLimits.sourceLength} characters`,
      );
    }
    contact.opt_in_source = source;
  }

  for (const field of ["opted_in_at", "opted_out_at"] as const) {
    const value = cell(fields, columns[field]);
    if (value === undefined) continue;
    const time = normaliseTimestamp(value);
    if (time === null) {
      return refuse(field, `${field} must be an ISO 8601 timestamp such as 2026-11-22T09:30:00Z`);
    }
    const problem = consentTimeProblem(time, options.now);
    if (problem !== null) return refuse(field, `${field} ${problem}`);
    contact[field] = time;
  }

  for (const { key, index } of layout.custom) {
    const value = cell(fields, index);
    if (value === undefined) continue;
    if (value.length > contactLimits.customFieldValueLength) {
      return refuse(
        `${customColumnPrefix}${key}`,
        `custom field values are at most ${contactLimits.customFieldValueLength} characters`,
      );
    }
    contact.custom_fields ??= {};
    contact.custom_fields[key] = value;
  }
  // A row that alone holds more than a contact may is refused here, so --dry-run finds it too;
  // with the fields a contact already has, the service checks the sum as it merges them.
  const customCount = Object.keys(contact.custom_fields ?? {}).length;
  if (customCount > contactLimits.customFieldsPerContact) {
    return refuse(
      "custom_fields",
      `a contact has at most ${contactLimits.customFieldsPerContact} custom fields; this row fills ${customCount}`,
    );
  }
  return { ok: true, contact };
}

/** What the reader hands out: a data row's cells, or why a row could not be read at all. */
export type CsvRecord =
  | { row: number; fields: string[] }
  | { row: number; fields: null; message: string };

interface ParserApi {
  parse(
    chunk: Buffer | undefined,
    end: boolean,
    push: (record: string[]) => void,
    close: () => void,
  ): Error | undefined;
}

/**
 * Reads a CSV incrementally with csv-parse, chunk by chunk and in order: UTF-8 with or without
 * BOM, CRLF, LF or both, quoted cells with newlines, blank lines skipped. The first record is the
 * header; data rows are numbered from 1. A row csv-parse cannot read (a quote never closed, a
 * stray quote after a quoted cell) becomes a record without fields and a message, and reading
 * goes on.
 */
export class CsvRecordReader {
  header: string[] | null = null;
  private rows = 0;
  private readonly api: ParserApi;
  private sink: ((record: CsvRecord) => void) | null = null;

  constructor(options: { delimiter?: string } = {}) {
    const parser = new Parser({
      bom: true,
      delimiter: options.delimiter ?? ",",
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      skip_records_with_error: true,
      record_delimiter: ["\r\n", "\n", "\r"],
      on_skip: (error: Error | undefined) => {
        this.rows += 1;
        this.sink?.({ row: this.rows, fields: null, message: skipMessage(error) });
      },
    });
    this.api = (parser as unknown as { api: ParserApi }).api;
  }

  /** Feeds the next chunk (or ends the file with `undefined`), handing out complete records. */
  feed(chunk: Buffer | undefined, sink: (record: CsvRecord) => void): void {
    this.sink = sink;
    const error = this.api.parse(
      chunk,
      chunk === undefined,
      (record) => {
        if (this.header === null) {
          this.header = record;
          return;
        }
        this.rows += 1;
        sink({ row: this.rows, fields: record });
      },
      () => {},
    );
    this.sink = null;
    if (error) {
      this.rows += 1;
      sink({ row: this.rows, fields: null, message: skipMessage(error) });
    }
  }
}

function skipMessage(error: Error | undefined): string {
  const code = (error as { code?: string } | undefined)?.code;
  if (code === "CSV_QUOTE_NOT_CLOSED") {
    return "a quoted cell is never closed, so the rest of the file could not be read; close the quote";
  }
  if (code === "CSV_INVALID_CLOSING_QUOTE") {
    return "a quoted cell is followed by more text before the next comma; quote the whole cell";
  }
  return cutErrorValue(`the row is not valid CSV${error ? ` (${error.message})` : ""}`);
}

/**
 * Counts a CSV's data rows by a quick scan of its UTF-8 bytes, fed in pieces, quoting as the
 * import's csv-parse does (`relax_quotes`): a quote opens a quoted cell only at a cell's start,
 * `""` inside one is a quote, a line break inside one is the cell's, and a quoted cell followed
 * by more text is read as plain text. Blank lines and the header are not counted. It also finds
 * a quoted cell that is never closed and holds later lines: csv-parse would read the rest of the
 * file into that cell, so the import refuses such a file whole rather than report one row error
 * for the rest. A quote left open on the last line costs that line only: a row error, as any.
 */
export class CsvRowScanner {
  private lines = 0;
  private content = false;
  private quoted = false;
  /** A quote was the last byte seen inside a quoted cell: the next byte says what it was. */
  private quoteEnds = false;
  private cellStart = true;
  private started = false;
  /** The data row (numbered from 1) where the quoted cell open at the end began. */
  private openedAtRow = 0;
  /** The open quoted cell holds a line break and text after it: later lines of the file. */
  private swallows = false;
  private breakInCell = false;
  /** The first data row whose quoted cell ran over lines and then closed mid-cell. */
  private strayAtRow: number | null = null;
  private readonly delimiter: number;
  /** Lines before the header that are no row: Excel's `sep=` line. */
  private readonly linesBeforeHeader: number;

  /** `separatorLine`: the file starts with Excel's `sep=` line, which is not a row. */
  constructor(delimiter: string, options: { separatorLine?: boolean } = {}) {
    this.delimiter = delimiter.charCodeAt(0);
    this.linesBeforeHeader = options.separatorLine ? 1 : 0;
  }

  feed(bytes: Uint8Array): void {
    let i = 0;
    if (!this.started) {
      this.started = true;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    }
    for (; i < bytes.length; i++) {
      const byte = bytes[i] as number;
      if (this.quoteEnds) {
        this.quoteEnds = false;
        if (byte === 0x22) {
          this.content = true; // "" is a quote inside the cell
          continue;
        }
        this.quoted = false;
        // A closing quote is followed by the cell's end, or csv-parse reads the cell as text:
        // one that ran over lines is then a stray quote that took those lines with it.
        const cellEnds = byte === this.delimiter || byte === 0x0a || byte === 0x0d;
        if (!cellEnds && this.breakInCell && this.strayAtRow === null) {
          this.strayAtRow = this.openedAtRow;
        }
      } else if (this.quoted) {
        if (byte === 0x22) this.quoteEnds = true;
        else if (byte === 0x0a || byte === 0x0d) this.breakInCell = true;
        else {
          if (this.breakInCell) this.swallows = true;
          // A record of empty or blank cells ("", " ") is skipped as a blank line is.
          if (byte !== 0x20 && byte !== 0x09) this.content = true;
        }
        continue;
      }
      if (byte === 0x0a || byte === 0x0d) {
        if (this.content) this.lines += 1;
        this.content = false;
        this.cellStart = true;
      } else if (byte === this.delimiter) {
        this.cellStart = true;
      } else {
        if (byte === 0x22 && this.cellStart) {
          this.quoted = true;
          // Records before this one, the header among them: this record's data row number.
          this.openedAtRow = Math.max(0, this.lines - this.linesBeforeHeader);
          this.swallows = false;
          this.breakInCell = false;
        } else if (byte !== 0x20 && byte !== 0x09) {
          this.content = true;
        }
        this.cellStart = false;
      }
    }
  }

  /** Data rows, not counting the header. */
  get rows(): number {
    return Math.max(0, this.lines + (this.content ? 1 : 0) - 1 - this.linesBeforeHeader);
  }

  /**
   * The data row (from 1; 0 for the header) whose quoted cell is never closed and holds later
   * lines, once the whole file was fed; null otherwise.
   */
  get unclosedQuoteRow(): number | null {
    return this.quoted && !this.quoteEnds && this.swallows ? this.openedAtRow : null;
  }

  /**
   * The first data row whose quoted cell ran over line breaks and then closed in the middle of a
   * cell (`"Bob,Two` … `12" pizza`): csv-parse reads those lines as that one cell. Null if none.
   */
  get strayQuoteRow(): number | null {
    return this.strayAtRow;
  }

  /** Why the file is refused whole for a quote that takes later lines with it, or null. */
  get refusal(): string | null {
    const unclosed = this.unclosedQuoteRow;
    if (unclosed !== null) return unclosedQuoteReason(unclosed);
    if (this.strayAtRow !== null) return strayQuoteReason(this.strayAtRow);
    return null;
  }
}

/** A data row as a refusal names it: `row 2,001`, or the header row (0). */
function rowName(row: number): string {
  return row === 0 ? "the header row" : `row ${row.toLocaleString("en-US")}`;
}

/** Why a file whose quoted cell on `row` runs over lines and closes mid-cell is refused. */
function strayQuoteReason(row: number): string {
  return `${rowName(row)} opens a quoted cell that runs over several lines and closes in the middle of a cell (a stray quote?), so those lines would be read as that one cell; remove the quote, or close it where the cell ends, and send the file again`;
}

/** Why a file whose quoted cell on `row` never closes is refused (the service's 422, the dry run's). */
function unclosedQuoteReason(row: number): string {
  return `${rowName(row)} opens a quoted cell that is never closed, so the rest of the file would be read as that one cell; close the quote (or remove it) and send the file again`;
}

/** The header of an export with these custom keys. */
export function exportHeader(customKeys: readonly string[]): string[] {
  return [...csvColumns, ...customKeys.map((k) => `${customColumnPrefix}${k}`)];
}

/** The fields an export row holds, in the import's layout. */
export interface ExportableContact {
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  tags: string[];
  custom_fields: Record<string, string>;
  opt_in_status: string;
  opt_in_source: string | null;
  opted_in_at: string | null;
  opted_out_at: string | null;
}

/**
 * One contact as an export row under `exportHeader(customKeys)`, formulas neutralised (a name
 * such as `=cmd|' /C calc'!A0` is written `'=cmd|…`; the import takes the `'` off again).
 */
export function exportRow(contact: ExportableContact, customKeys: readonly string[]): string[] {
  const row = [
    contact.phone,
    contact.first_name ?? "",
    contact.last_name ?? "",
    contact.email ?? "",
    contact.tags.join(","),
    contact.opt_in_status,
    contact.opt_in_source ?? "",
    contact.opted_in_at ?? "",
    contact.opted_out_at ?? "",
    ...customKeys.map((k) => ownValue(contact.custom_fields, k) ?? ""),
  ];
  return row.map(neutraliseFormula);
}
