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
