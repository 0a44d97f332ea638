import iconv from "iconv-lite";
import type { CsvEncoding } from "./csv-options.js";

/**
 * Turns a CSV's bytes in any supported encoding into UTF-8, piece by piece (a character split
 * between pieces is kept for the next one). A byte order mark (UTF-16, or UTF-8's) wins over the
 * declared encoding: such a file is what its mark says whatever the sender believed. UTF-8
 * passes through untouched (csv-parse skips its mark).
 */
export class CsvDecoder {
  /** The encoding in use: the declared one, or UTF-16 when the file starts with its mark. */
  encoding: CsvEncoding;
  private decoder: ReturnType<typeof iconv.getDecoder> | null = null;
  private head: Buffer | null = Buffer.alloc(0);

  constructor(private readonly declared: CsvEncoding = "utf-8") {
    this.encoding = declared;
  }

  /** Whether the file's byte order mark overrode the declared encoding. */
  get markOverrode(): boolean {
    return this.encoding !== this.declared;
  }

  /** UTF-8 for the next bytes of the file. */
  write(chunk: Buffer): Buffer {
    if (this.head !== null) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 3) return Buffer.alloc(0);
      const start = this.head;
      this.head = null;
      this.choose(start);
      return this.convert(start);
    }
    return this.convert(chunk);
  }

  /** The rest, at the end of the file. */
  end(): Buffer {
    const out: Buffer[] = [];
    if (this.head !== null) {
      const start = this.head;
      this.head = null;
      this.choose(start);
      out.push(this.convert(start));
    }
    const rest = this.decoder?.end();
    if (rest) out.push(Buffer.from(rest, "utf8"));
    return Buffer.concat(out);
  }

  private choose(start: Buffer): void {
    if (start[0] === 0xff && start[1] === 0xfe) this.encoding = "utf-16le";
    else if (start[0] === 0xfe && start[1] === 0xff) this.encoding = "utf-16be";
    else if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) this.encoding = "utf-8";
    // iconv-lite strips the byte order mark of the encoding it decodes.
    if (this.encoding !== "utf-8") this.decoder = iconv.getDecoder(this.encoding);
  }

  private convert(bytes: Buffer): Buffer {
    if (this.decoder === null) return bytes;
    return Buffer.from(this.decoder.write(bytes), "utf8");
  }
}

/**
 * Why a file read as UTF-8 (declared so, or by its byte order mark) is refused: its bytes are
 * not UTF-8. `option` is how the caller names the encoding option (`encoding`, `--encoding`).
 */
export function notUtf8Reason(decoder: CsvDecoder, option: string): string {
  return decoder.markOverrode
    ? `starts with a UTF-8 byte order mark but is not UTF-8 text, so ${option} does not apply to it: save the file as CSV UTF-8, or remove the mark`
    : `is not UTF-8 text; name its encoding with ${option} (windows-1252, iso-8859-1, utf-16le or utf-16be) or save the file as CSV UTF-8`;
}

/** Formats people upload instead of a CSV, by the bytes they start with. */
const notCsvFormats: Array<[number[], string]> = [
  [[0x50, 0x4b, 0x03, 0x04], "a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook?)"],
  [[0xd0, 0xcf, 0x11, 0xe0], "an old Office file (an Excel .xls workbook?)"],
  [[0x25, 0x50, 0x44, 0x46], "a PDF document"],
];

/**
 * Why a file is refused before any of it is read as CSV: it starts as a workbook, an archive or
 * a PDF does. Null for anything else.
 */
export function notCsvReason(start: Buffer): string | null {
  for (const [magic, what] of notCsvFormats) {
    if (magic.every((byte, i) => start[i] === byte)) {
      return `is ${what}, not a CSV file: open it and save it as "CSV UTF-8" (Excel: File > Save As), then import that`;
    }
  }
  return null;
}
