import { type CsvLayout, cutErrorValue, readHeader } from "./contact-csv.js";
import { CsvDecoder } from "./csv-decoding.js";
import {
  type CsvDelimiter,
  type CsvEncoding,
  type CsvReadOptions,
  csvDelimiters,
  delimiterName,
} from "./csv-options.js";
import { type CsvRecord, CsvRecordReader } from "./csv-records.js";

/**
 * Opening a contact CSV with its options, in one place for the service's import and the CLI's
 * dry run: decode (encoding, UTF-16 mark) → separator (given, or detected from the header row)
 * → header read with the mapping → data records.
 */

/** The header row may not be longer than this; the separator is detected within it. */
export const headerRowBytes = 65536;

/**
 * The separator of a header row: the one of `,` `;` tab `|` that appears most often outside
 * quotes (`,` when there is none, or a tie with it).
 */
export function detectDelimiter(headerRow: string): CsvDelimiter {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const char of headerRow) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) break;
    else if (!quoted && (csvDelimiters as readonly string[]).includes(char)) {
      counts.set(char, (counts.get(char) ?? 0) + 1);
    }
  }
  let best: CsvDelimiter = ",";
  for (const candidate of csvDelimiters) {
    if ((counts.get(candidate) ?? 0) > (counts.get(best) ?? 0)) best = candidate;
  }
  return best;
}

/**
 * Excel's first line naming the separator (`sep=;`), which Excel itself reads and hides: the
 * separator in use unless one is given, and not a row of the file (so not its header).
 */
const separatorLine = /^\uFEFF?sep=([,;\t|])(?:\r\n|\n|\r)/i;

/** Whether a file (its first bytes, UTF-8) starts with Excel's `sep=` line, which is not a row. */
export function startsWithSeparatorLine(head: Buffer): boolean {
  return separatorLine.test(head.subarray(0, 16).toString("utf8"));
}

/** The length in UTF-8 bytes of `text`'s first line (to its line break outside quotes), or null. */
function firstLineBytes(text: string): number | null {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) {
      return Buffer.byteLength(text.slice(0, i));
    }
  }
  return null;
}

/** Why no header row was found where the import looks for it. */
function headerNotReadable(delimiter: CsvDelimiter | null): string {
  return `has no header row that can be read in its first 64 KB (separator ${delimiterName(delimiter ?? ",")})`;
}

/** A header that cannot be imported: the 422 of the service, the refusal of the dry run. */
export class CsvHeaderError extends Error {
  /** The request's field at fault: the file, or the mapping that names what the file lacks. */
  readonly field: "csv" | "mapping";
  constructor(message: string, field: "csv" | "mapping" = "csv") {
    super(message);
    this.field = field;
  }
}

/** A contact CSV being read, fed its bytes in order (see `openContactCsv`). */
export class ContactCsvReader {
  /** The separator in use: given, or detected once the header row has arrived. */
  delimiter: CsvDelimiter | null;
  /** The header row's cells, once read. */
  header: string[] | null = null;
  /** Where each field sits, once the header is read. */
  layout: CsvLayout | null = null;
  private readonly decoder: CsvDecoder;
  private records: CsvRecordReader | null = null;
  private start: Buffer[] = [];
  private startBytes = 0;

  constructor(private readonly options: CsvReadOptions = {}) {
    this.delimiter = options.delimiter ?? null;
    this.decoder = new CsvDecoder(options.encoding);
  }

  /** The encoding in use: the given one, or UTF-16 when the file starts with its mark. */
  get encoding(): CsvEncoding {
    return this.decoder.encoding;
  }

  /**
   * Feeds the next bytes (or ends the file with `undefined`), handing out data records. Throws
   * `CsvHeaderError` when the header row cannot be imported (no phone column, a bad mapping…).
   */
  feed(chunk: Buffer | undefined, sink: (record: CsvRecord) => void): void {
    const text = chunk === undefined ? this.decoder.end() : this.decoder.write(chunk);
    if (this.records === null) {
      this.start.push(text);
      this.startBytes += text.length;
      const head = Buffer.concat(this.start);
      const headText = head.toString("utf8");
      const lineBytes = firstLineBytes(headText);
      if (chunk !== undefined && lineBytes === null && this.startBytes < headerRowBytes) return;
      if ((lineBytes ?? this.startBytes) >= headerRowBytes) {
        // As the service's upload, which reads the header from the first 64 KB alone.
        throw new CsvHeaderError(headerNotReadable(this.delimiter));
      }
      // "sep=;\r" may be followed by the "\n" of its line break in the next piece.
      if (chunk !== undefined && /^\uFEFF?sep=.\r$/i.test(headText)) return;
      const declared = separatorLine.exec(headText);
      const rest = declared ? head.subarray(Buffer.byteLength(declared[0])) : head;
      this.delimiter ??=
        (declared?.[1] as CsvDelimiter | undefined) ??
        detectDelimiter(headText.replace(/^\uFEFF/, ""));
      this.records = new CsvRecordReader({ delimiter: this.delimiter });
      this.start = [];
      this.pass(rest, chunk === undefined, sink);
      return;
    }
    this.pass(text, chunk === undefined, sink);
  }

  private pass(text: Buffer, end: boolean, sink: (record: CsvRecord) => void): void {
    const records = this.records as CsvRecordReader;
    const checked = (record: CsvRecord) => {
      this.readLayout();
      sink(record);
    };
    if (text.length > 0) records.feed(text, checked);
    // The header row alone hands out no record, yet it is known now.
    this.readLayout();
    if (end) {
      records.feed(undefined, checked);
      this.readLayout();
    }
  }

  private readLayout(): void {
    if (this.layout !== null || this.records?.header == null) return;
    this.header = this.records.header;
    const result = readHeader(this.header, this.options.mapping);
    if (!result.ok) throw new CsvHeaderError(result.message, result.field);
    this.layout = result.layout;
  }
}

/** Opens a contact CSV with these options (see ContactCsvReader). */
export function openContactCsv(options: CsvReadOptions = {}): ContactCsvReader {
  return new ContactCsvReader(options);
}

/** What the start of a file says: its separator, encoding and header layout. */
export interface CsvHead {
  delimiter: CsvDelimiter;
  encoding: CsvEncoding;
  layout: CsvLayout;
}

/**
 * Reads the header of a file from its first bytes (`whole` when they are the whole file), so an
 * upload can be refused before it is imported. Throws `CsvHeaderError` with the reason.
 */
export function readCsvHead(head: Buffer, whole: boolean, options: CsvReadOptions = {}): CsvHead {
  const reader = openContactCsv(options);
  try {
    reader.feed(head, () => {});
    if (reader.layout === null && whole) reader.feed(undefined, () => {});
  } catch (error) {
    if (error instanceof CsvHeaderError) throw error;
    throw new CsvHeaderError(cutErrorValue((error as Error).message));
  }
  if (reader.header === null && whole) {
    throw new CsvHeaderError("is empty: the file needs a header row and data rows");
  }
  if (reader.layout === null || reader.delimiter === null) {
    throw new CsvHeaderError(headerNotReadable(reader.delimiter));
  }
  return { delimiter: reader.delimiter, encoding: reader.encoding, layout: reader.layout };
}
