import { Parser } from "csv-parse";
import { cutErrorValue } from "./contact-csv.js";

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
