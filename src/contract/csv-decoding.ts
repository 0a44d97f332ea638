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
  /**
   * Why the bytes so far are not text in the encoding in use: the first byte that stands for no
   * character, half a UTF-16 character; null while they are text. The caller refuses the file
   * (notEncodedReason): a character replaced by `�` would be stored without a word.
   */
  invalid: string | null = null;
  private decoder: ReturnType<typeof iconv.getDecoder> | null = null;
  private head: Buffer | null = Buffer.alloc(0);
  private bytesRead = 0;
  /** A UTF-16 high surrogate that ended a piece: its pair starts the next one. */
  private held = "";

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
    if (this.decoder !== null) {
      const rest = this.held + (this.decoder.end() ?? "");
      this.held = "";
      this.checkUtf16(rest, this.bytesRead);
      if (this.encoding.startsWith("utf-16") && this.bytesRead % 2 === 1) {
        this.invalid ??= `it ends with half a character (${this.bytesRead.toLocaleString("en-US")} bytes, an odd number)`;
      }
      if (rest) out.push(Buffer.from(rest, "utf8"));
    }
    return Buffer.concat(out);
  }

  private choose(start: Buffer): void {
    if (start[0] === 0xff && start[1] === 0xfe) this.encoding = "utf-16le";
    else if (start[0] === 0xfe && start[1] === 0xff) this.encoding = "utf-16be";
    else if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) this.encoding = "utf-8";
    // A file said to be ISO-8859-1 is read as browsers read one (the WHATWG Encoding Standard):
    // as windows-1252, so 0x80 is € rather than an invisible control character. Files called
    // "Latin-1" almost always come from Windows.
    const decoding = this.encoding === "iso-8859-1" ? "windows-1252" : this.encoding;
    // iconv-lite strips the byte order mark of the encoding it decodes.
    if (this.encoding !== "utf-8") this.decoder = iconv.getDecoder(decoding);
  }

  private convert(bytes: Buffer): Buffer {
    const at = this.bytesRead;
    this.bytesRead += bytes.length;
    if (this.decoder === null) return bytes;
    if (this.invalid === null && !this.encoding.startsWith("utf-16")) {
      const found = bytes.toString("latin1").search(undefinedInWindows1252);
      if (found !== -1) {
        const byte = (bytes[found] ?? 0).toString(16).toUpperCase();
        this.invalid = `byte 0x${byte} (byte ${(at + found + 1).toLocaleString("en-US")} of the file) stands for no character in windows-1252${this.encoding === "iso-8859-1" ? " (as which ISO-8859-1 is read)" : ""}`;
      }
    }
    let text = this.held + this.decoder.write(bytes);
    this.held = "";
    // iconv-lite's UTF-16BE decoder cuts a pair split between pieces into two halves.
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    this.checkUtf16(text, at);
    return Buffer.from(text, "utf8");
  }

  private checkUtf16(text: string, at: number): void {
    if (this.invalid !== null) return;
    const found = text.search(loneSurrogate);
    if (found !== -1) {
      this.invalid = `it holds half a character (a lone UTF-16 surrogate) at about byte ${(at + 2 * found + 1).toLocaleString("en-US")}`;
    }
  }
}

/** The bytes windows-1252 leaves without a character (read as latin1, one char a byte). */
const undefinedInWindows1252 = /[\x81\x8d\x8f\x90\x9d]/;
/** Half of a UTF-16 surrogate pair, which no character is. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a file is refused whose bytes are not text in its encoding (see CsvDecoder.invalid); null
 * when they are. `option` is how the caller names the encoding option (`encoding`, `--encoding`).
 */
export function notEncodedReason(decoder: CsvDecoder, option: string): string | null {
  if (decoder.invalid === null) return null;
  return `is not ${decoder.encoding} text: ${decoder.invalid}; name the file's real encoding with ${option}, or save it as CSV UTF-8`;
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
