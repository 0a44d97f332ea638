import { isUtf8 } from "node:buffer";
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
  /** Whether `invalid` says the file is UTF-8 (sent as one byte a character), what to do included. */
  utf8Instead = false;
  private head: Buffer | null = Buffer.alloc(0);
  private bytesRead = 0;
  /** UTF-16: a byte that ended a piece, the first half of a code unit. */
  private carry: Buffer = Buffer.alloc(0);
  /** UTF-16: a high surrogate that ended a piece, the first half of a pair. */
  private held = "";
  /** What the bytes say about UTF-8, for the encodings of one byte a character and UTF-8 itself. */
  readonly survey = new Utf8Survey();

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
    if (this.encoding !== "utf-16le" && this.encoding !== "utf-16be") {
      this.survey.end(this.encoding !== "utf-8");
    }
    this.tellIfUtf8();
    return Buffer.concat(out);
  }

  /**
   * Every byte is a character in windows-1252 and ISO-8859-1 (but five), so UTF-8 read as one of
   * them would be stored garbled without a word (ü as Ã¼): a file whose high bytes are nearly all
   * UTF-8's is refused as UTF-8, whatever else was found (UTF-8's Cyrillic holds bytes
   * windows-1252 leaves undefined).
   */
  private tellIfUtf8(): void {
    if (this.encoding !== "windows-1252" && this.encoding !== "iso-8859-1") return;
    if (this.utf8Instead || !this.survey.readsAsUtf8()) return;
    this.invalid = this.survey.utf8Told(this.encoding);
    this.utf8Instead = true;
  }

  private choose(start: Buffer): void {
    this.encoding = byteOrderMark(start) ?? this.encoding;
  }

  private convert(bytes: Buffer): Buffer {
    const at = this.bytesRead;
    this.bytesRead += bytes.length;
    switch (this.encoding) {
      case "utf-8":
        this.survey.feed(bytes, at, false);
        return bytes;
      case "iso-8859-1":
        this.survey.feed(bytes, at, true);
        return Buffer.from(latin1Text(bytes), "utf8");
      case "windows-1252": {
        this.survey.feed(bytes, at, true);
        if (this.invalid === null) {
          const found = bytes.toString("latin1").search(undefinedInWindows1252);
          if (found !== -1) {
            const byte = (bytes[found] ?? 0).toString(16).toUpperCase();
            this.invalid = `byte 0x${byte} (byte ${count(at + found + 1)} of the file) stands for no character in windows-1252`;
            // Refused at once (the service stops reading there): UTF-8 so far is told as such.
            this.tellIfUtf8();
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

/** A UTF-8 character of two to four bytes, or (the last branch) a high byte outside one. */
const utf8Sequence =
  /[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}|[\x80-\xff]/g;

/**
 * What a file's bytes say about UTF-8, piece by piece: whether it has characters written as
 * UTF-8, and where the first byte is that belongs to none. Tells a UTF-8 file with one damaged
 * byte (to be fixed) from a file in another encoding (to be named), and a UTF-8 file sent as
 * windows-1252, which would be stored garbled.
 */
export class Utf8Survey {
  /**
   * Characters of two to four bytes: every one in a piece counted in full, up to three in a piece
   * of valid UTF-8 otherwise (as many as the verdicts need).
   */
  multibyte = 0;
  /** Whether one of them is of three or four bytes, which text in another encoding hardly holds. */
  long = false;
  /** High bytes outside any such character. */
  stray = 0;
  /** The first of them, and where it is (1-based, in the file's bytes). */
  firstStray: { byte: number; at: number } | null = null;
  /** The first character of several bytes, as an example. */
  example: string | null = null;
  private tail = Buffer.alloc(0);
  private tailAt = 0;

  /**
   * The next bytes, from byte `at` (0-based). `counted`: every character is counted (a file said
   * to be windows-1252, whose high bytes are few); otherwise a valid piece is only looked at for
   * its first three characters of several bytes, as a UTF-8 file may have millions.
   */
  feed(bytes: Buffer, at: number, counted: boolean): void {
    let data = this.tail.length > 0 ? Buffer.concat([this.tail, bytes]) : bytes;
    const dataAt = this.tail.length > 0 ? this.tailAt : at;
    const cut = incompleteTail(data);
    this.tail = Buffer.from(data.subarray(cut));
    this.tailAt = dataAt + cut;
    data = data.subarray(0, cut);
    this.scan(data, dataAt, counted);
  }

  /** The end of the file: a character cut short there is stray bytes. */
  end(counted: boolean): void {
    const rest = this.tail;
    this.tail = Buffer.alloc(0);
    this.scan(rest, this.tailAt, counted);
  }

  /**
   * Whether the file is UTF-8 (a few damaged bytes aside): its high bytes nearly all UTF-8's,
   * and more than one chance pair (`É’` in windows-1252 is the two bytes of a UTF-8 letter).
   */
  readsAsUtf8(): boolean {
    return (this.multibyte >= 3 || this.long) && this.multibyte >= 9 * this.stray;
  }

  /** Why a file sent as `encoding` (one byte a character) is UTF-8 instead. */
  utf8Told(encoding: string): string {
    const example = this.example ?? "";
    const garbled = iconv.decode(Buffer.from(example, "utf8"), "windows-1252");
    const damaged = this.firstStray
      ? `, and ${this.strayTold()} is damaged; correct that byte and import the file without naming an encoding`
      : "; import it without naming an encoding";
    const which =
      this.multibyte === 1
        ? `its character '${example}' is written as UTF-8`
        : `${count(this.multibyte)} of its characters, such as '${example}', are written as UTF-8`;
    return `it reads as UTF-8: ${which}, which ${encoding} would store garbled (as '${garbled}')${damaged}`;
  }

  /** The first stray byte as messages name it: `byte 0xFC (byte 37 of the file)`. */
  strayTold(): string {
    if (!this.firstStray) return "a byte";
    const { byte, at } = this.firstStray;
    return `byte 0x${byte.toString(16).toUpperCase()} (byte ${count(at)} of the file)`;
  }

  private scan(bytes: Buffer, at: number, counted: boolean): void {
    // A UTF-8 byte order mark is no letter of the file's.
    const marked = at === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    const data = marked ? bytes.subarray(3) : bytes;
    const from = marked ? 3 : at;
    if (data.length === 0) return;
    const text = data.toString("latin1");
    if (!/[\x80-\xff]/.test(text)) return;
    // A valid piece is looked at for its first three characters of several bytes only: a
    // UTF-8 file may hold millions, and the verdicts need no more.
    const limit = !counted && isUtf8(data) ? 3 : Number.POSITIVE_INFINITY;
    let seen = 0;
    for (const match of text.matchAll(utf8Sequence)) {
      const found = match[0];
      if (found.length > 1) {
        this.multibyte += 1;
        this.long ||= found.length > 2;
        this.example ??= Buffer.from(found, "latin1").toString("utf8");
        if (++seen >= limit) return;
      } else {
        this.stray += 1;
        this.firstStray ??= { byte: found.charCodeAt(0), at: from + match.index + 1 };
      }
    }
  }
}

/** Where a UTF-8 character cut by the end of `data` starts (its length when none is cut). */
function incompleteTail(data: Buffer): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const byte = data[data.length - back] ?? 0;
    if (byte < 0x80) return data.length;
    if (byte >= 0xc0) {
      const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return needs > back ? data.length - back : data.length;
    }
  }
  return data.length;
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

/** Why a file is refused whose bytes read as UTF-16 but that has no byte order mark to say so. */
export function utf16WithoutMarkReason(option: string): string {
  return `holds NUL bytes between its letters: it is UTF-16 text without a byte order mark; name its encoding with ${option}: utf-16le (or utf-16be)`;
}

/** Half of a UTF-16 surrogate pair, which no character is. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a file is refused whose bytes are not text in its encoding (see CsvDecoder.invalid); null
 * when they are. `option` is how the caller names the encoding option (`encoding`, `--encoding`).
 */
export function notEncodedReason(decoder: CsvDecoder, option: string): string | null {
  if (decoder.invalid === null) return null;
  if (decoder.utf8Instead) return `is not ${decoder.encoding} text: ${decoder.invalid}`;
  return `is not ${decoder.encoding} text: ${decoder.invalid}; name the file's real encoding with ${option}, or save it as CSV UTF-8`;
}

/**
 * Why a file read as UTF-8 (declared so, or by its byte order mark) is refused: its bytes are
 * not UTF-8. `option` is how the caller names the encoding option (`encoding`, `--encoding`).
 */
export function notUtf8Reason(decoder: CsvDecoder, option: string): string {
  const survey = decoder.survey;
  const where = survey.firstStray ? `: ${survey.strayTold()} is no UTF-8` : "";
  if (decoder.markOverrode) {
    return `starts with a UTF-8 byte order mark but is not UTF-8 text${where}, so ${option} does not apply to it: save the file as CSV UTF-8, or remove the mark`;
  }
  // Its other letters are UTF-8: another encoding would store them garbled.
  if (survey.firstStray && survey.readsAsUtf8()) {
    return `is not UTF-8 text${where}, though its other letters are (such as '${survey.example}'): that byte looks damaged; correct it in the file (or save it again as CSV UTF-8), as naming another encoding would store those letters garbled`;
  }
  return `is not UTF-8 text${where}; name its encoding with ${option} (windows-1252, iso-8859-1, utf-16le or utf-16be) or save the file as CSV UTF-8`;
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
