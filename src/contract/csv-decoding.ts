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
   * (notEncodedReason): a character replaced by `\ufffd` would be stored without a word.
   */
  invalid: string | null = null;
  private head: Buffer | null = Buffer.alloc(0);
  private bytesRead = 0;
  /** UTF-16: a byte that ended a piece, the first half of a code unit. */
  private carry: Buffer = Buffer.alloc(0);
  /** UTF-16: a high surrogate that ended a piece, the first half of a pair. */
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
    if (this.held !== "") {
      this.invalid ??= `it holds half a character (a lone UTF-16 surrogate) at byte ${count(this.bytesRead - this.carry.length - 1)}`;
      this.held = "";
    }
    if (this.carry.length > 0) {
      this.invalid ??= `it ends with half a character (${count(this.bytesRead)} bytes, an odd number)`;
    }
    return Buffer.concat(out);
  }

  private choose(start: Buffer): void {
    this.encoding = byteOrderMark(start) ?? this.encoding;
  }

  private convert(bytes: Buffer): Buffer {
    const at = this.bytesRead;
    this.bytesRead += bytes.length;
    switch (this.encoding) {
      case "utf-8":
        return bytes;
      case "iso-8859-1":
        return Buffer.from(latin1Text(bytes), "utf8");
      case "windows-1252": {
        if (this.invalid === null) {
          const found = bytes.toString("latin1").search(undefinedInWindows1252);
          if (found !== -1) {
            const byte = (bytes[found] ?? 0).toString(16).toUpperCase();
            this.invalid = `byte 0x${byte} (byte ${count(at + found + 1)} of the file) stands for no character in windows-1252`;
          }
        }
        // Single bytes: no state between pieces.
        return Buffer.from(iconv.decode(bytes, "windows-1252"), "utf8");
      }
      default:
        return Buffer.from(this.utf16(bytes, at), "utf8");
    }
  }

  /**
   * UTF-16 (either order) decoded here rather than by iconv-lite, whose UTF-16BE decoder cuts a
   * pair split between pieces into two halves: a code unit or a pair split between pieces is
   * kept whole, and a lone surrogate is found at its exact byte.
   */
  private utf16(bytes: Buffer, at: number): string {
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, bytes]) : bytes;
    let dataAt = at - this.carry.length;
    if (dataAt === 0) {
      // The file's own byte order mark is no character.
      const le = this.encoding === "utf-16le" && data[0] === 0xff && data[1] === 0xfe;
      const be = this.encoding === "utf-16be" && data[0] === 0xfe && data[1] === 0xff;
      if (le || be) {
        data = data.subarray(2);
        dataAt = 2;
      }
    }
    const even = data.length - (data.length % 2);
    this.carry = Buffer.from(data.subarray(even));
    let units = data.subarray(0, even);
    if (this.encoding === "utf-16be") units = Buffer.from(units).swap16();
    const first = dataAt + 1 - 2 * this.held.length;
    let text = this.held + units.toString("utf16le");
    this.held = "";
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (this.invalid === null) {
      const found = text.search(loneSurrogate);
      if (found !== -1) {
        this.invalid = `it holds half a character (a lone UTF-16 surrogate) at byte ${count(first + 2 * found)}`;
      }
    }
    return text;
  }
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * 0x80–0x9F of a file said to be ISO-8859-1, read as browsers read them (the WHATWG Encoding
 * Standard): windows-1252's characters (0x80 is €, not an invisible control character: files
 * called Latin-1 nearly always come from Windows), and the five bytes windows-1252 leaves
 * undefined as the control characters they are in ISO-8859-1. Every byte is a character.
 */
const latin1High = new Map<string, string>(
  Array.from({ length: 0x20 }, (_, i) => {
    const byte = 0x80 + i;
    const windows = iconv.decode(Buffer.from([byte]), "windows-1252");
    return [String.fromCharCode(byte), windows === "\ufffd" ? String.fromCharCode(byte) : windows];
  }),
);

function latin1Text(bytes: Buffer): string {
  return bytes.toString("latin1").replace(/[\x80-\x9f]/g, (c) => latin1High.get(c) ?? c);
}

/** The bytes windows-1252 leaves without a character (read as latin1, one char a byte). */
const undefinedInWindows1252 = /[\x81\x8d\x8f\x90\x9d]/;
/** The encoding a file's byte order mark names (it wins over any declared one), or null. */
export function byteOrderMark(start: Buffer): CsvEncoding | null {
  if (start[0] === 0xff && start[1] === 0xfe) return "utf-16le";
  if (start[0] === 0xfe && start[1] === 0xff) return "utf-16be";
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return "utf-8";
  return null;
}

/**
 * Whether bytes without a byte order mark read as UTF-16: NUL bytes in every other place, as
 * letters of the Latin script have in it (a stray NUL in UTF-8 text is not enough).
 */
export function looksLikeUtf16(bytes: Buffer): boolean {
  const start = bytes.subarray(0, 4096);
  let nuls = 0;
  for (const byte of start) if (byte === 0) nuls += 1;
  return start.length >= 2 && nuls * 4 >= start.length;
}

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
