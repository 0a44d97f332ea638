import { type FileHandle, open, rm } from "node:fs/promises";
import { importLimits, tooLargeMessage } from "../../contract/contact-imports.js";
import { CsvRowScanner } from "../../contract/csv-row-scanner.js";
import type { Db } from "../db/database.js";
import { engineOf, sqliteHandleOf } from "../db/engine.js";
import { logHandedOver, logLeftForWorker } from "../db/sqlite-log.js";
import { invalidField, ServiceError } from "./service-error.js";
import { uploadFilePath } from "./upload-files.js";

/**
 * An import's CSV as it arrives: checked (size, UTF-8, rows) while the request body streams in,
 * kept in a temporary file, and stored in the database piece by piece, each piece in its own
 * short write, so neither the bytes nor the work of a 100 MB upload ever hold the event loop or
 * the write lock for long.
 */

/** The CSV is stored in pieces of this size and read back one at a time. */
export const uploadPieceBytes = 1024 * 1024;
/** How much of the start of the file the header must fit in. */
export const headerBytes = 65536;

/** Yields to the event loop, so requests waiting behind a long piece of work are answered. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The 413 of a CSV over the import's limit (found so as it arrives, or declared so). */
export function tooLarge(): ServiceError {
  return new ServiceError("payload_too_large", tooLargeMessage("The CSV"));
}

export interface StagedFile {
  bytes: number;
  /** The start of the file, where the header must be. */
  head: Buffer;
}

/**
 * An upload on its way in: its bytes are checked as they arrive and written to a temporary
 * file (no database write until the whole file is accepted, so a refused upload changes
 * nothing), then copied into the database under `uploadId` (the import's id), a piece per turn.
 */
export class StagedUpload {
  private readonly file: string;
  private handle: FileHandle | null = null;
  private bytes = 0;
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });
  private readonly head: Buffer[] = [];
  private headBytes = 0;

  /**
   * `notUtf8`: why the file is refused when its bytes are not UTF-8 (csv-decoding.ts), told the
   * file's first bytes.
   */
  constructor(
    private readonly db: Db,
    readonly uploadId: string,
    private readonly now: string,
    private readonly notUtf8: (head: Buffer) => string,
  ) {
    this.file = uploadFilePath("staged", uploadId);
  }

  /** Takes the next bytes of the file; a 413 once it is larger than an import takes. */
  async push(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    this.bytes += bytes.length;
    if (this.bytes > importLimits.csvBytes) throw tooLarge();
    if (this.headBytes < headerBytes) {
      this.head.push(bytes.subarray(0, headerBytes - this.headBytes));
      this.headBytes += Math.min(bytes.length, headerBytes - this.headBytes);
    }
    this.checkUtf8(bytes);
    this.handle ??= await open(this.file, "w", 0o600);
    await this.handle.write(bytes);
  }

  /** Ends the file and says what arrived (422 when empty or not UTF-8). */
  async end(): Promise<StagedFile> {
    await this.handle?.close();
    this.handle = null;
    if (this.bytes === 0) {
      throw invalidField("csv", "is empty: the file needs a header row and data rows");
    }
    this.checkUtf8(undefined);
    return { bytes: this.bytes, head: Buffer.concat(this.head) };
  }

  /**
   * Reads the arrived file once more, a piece per turn, with its separator now known (and
   * whether it starts with Excel's `sep=` line, which is no row): its data rows, and a quoted cell that never closes (a 422 naming its row: csv-parse would read the
   * rest of the file into that one cell, and the import would end early without saying so).
   */
  async scan(delimiter: string, separatorLine: boolean): Promise<number> {
    const scanner = new CsvRowScanner(delimiter, { separatorLine });
    const input = await open(this.file, "r");
    try {
      const piece = Buffer.allocUnsafe(uploadPieceBytes);
      for (;;) {
        const { bytesRead } = await input.read(piece, 0, uploadPieceBytes, null);
        if (bytesRead === 0) break;
        scanner.feed(piece.subarray(0, bytesRead));
      }
    } finally {
      await input.close();
    }
    const refusal = scanner.refusal;
    if (refusal !== null) throw invalidField("csv", refusal);
    return scanner.rows;
  }

  /**
   * Copies the accepted file into the database, a piece per short write and turn. On a SQLite
   * file, a file of several pieces (which its import reads in a thread of its own) is left in
   * the log for that thread to copy back (logLeftForWorker, under the import's id; the import's
   * job hands it over as it starts), not copied by these commits on the event loop.
   */
  async store(): Promise<void> {
    let endLeaving: (() => void) | undefined;
    let input: FileHandle | undefined;
    try {
      if (this.bytes > uploadPieceBytes && engineOf(this.db) === "sqlite") {
        endLeaving = logLeftForWorker(sqliteHandleOf(this.db), this.uploadId);
      }
      input = await open(this.file, "r");
      for (let seq = 0; ; seq++) {
        const piece = Buffer.allocUnsafe(uploadPieceBytes);
        const { bytesRead } = await input.read(piece, 0, uploadPieceBytes, null);
        if (bytesRead === 0) break;
        await this.db
          .insertInto("contact_import_uploads")
          .values({
            upload_id: this.uploadId,
            seq,
            data: piece.subarray(0, bytesRead),
            created_at: this.now,
          })
          .execute();
        await nextTurn();
      }
    } catch (error) {
      // No import will read these pieces: the service's commits copy the log again.
      endLeaving?.();
      throw error;
    } finally {
      await input?.close();
    }
  }

  /** Removes the temporary file (after the upload was stored or refused). */
  async discard(): Promise<void> {
    await this.handle?.close().catch(() => {});
    this.handle = null;
    await rm(this.file, { force: true });
  }

  private checkUtf8(piece: Buffer | undefined): void {
    try {
      if (piece === undefined) this.utf8.decode();
      else this.utf8.decode(piece, { stream: true });
    } catch {
      throw invalidField("csv", this.notUtf8(Buffer.concat(this.head)));
    }
  }
}

/**
 * Says that the import of `uploadId` has started, in a thread that now copies the log itself or
 * in the service's: either way the log its stored pieces were left in is no longer held for it.
 */
export function uploadHandedOver(db: Db, uploadId: string): void {
  if (engineOf(db) === "sqlite") logHandedOver(sqliteHandleOf(db), uploadId);
}

/** Deletes an upload's pieces, one short write per turn. */
export async function removeUpload(db: Db, uploadId: string): Promise<void> {
  for (;;) {
    const removed = await db
      .deleteFrom("contact_import_uploads")
      .where("upload_id", "=", uploadId)
      .where("seq", "=", (eb) =>
        eb
          .selectFrom("contact_import_uploads")
          .select((inner) => inner.fn.min("seq").as("first"))
          .where("upload_id", "=", uploadId),
      )
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return;
    await nextTurn();
  }
}

/** Base64 text is decoded this many characters at a time (a multiple of 4). */
const base64Window = 4 * 1024 * 1024;
const base64Pattern = /^[A-Za-z0-9+/_-]*={0,2}$/;

function notBase64(): ServiceError {
  return invalidField("csv", "is not base64: send the CSV file's bytes encoded as base64");
}

/**
 * Decodes base64 text given in parts of any length (the JSON body's `csv`, as it streams in),
 * checking it as it goes. Whitespace (line-wrapped base64) is ignored; URL-safe letters are read.
 */
export class Base64Decoder {
  private carry = "";
  private padded = false;

  /** The bytes of the next part of the text (those of whole 4-letter groups so far). */
  push(text: string): Buffer {
    const part = this.carry + (/\s/.test(text) ? text.replace(/\s+/g, "") : text);
    // All of it is checked now, the letters carried to the next part too, so a bad letter is
    // refused before any byte decoded around it is read as text. Padding ends the text.
    if (!base64Pattern.test(part) || (this.padded && part.length > 0)) throw notBase64();
    const usable = part.length - (part.length % 4);
    this.carry = part.slice(usable);
    const whole = part.slice(0, usable);
    if (whole.includes("=")) this.padded = true;
    return Buffer.from(whole, "base64");
  }

  /** The last bytes, once the text has ended. */
  end(): Buffer {
    const rest = this.carry;
    this.carry = "";
    if (rest.length % 4 === 1) throw notBase64();
    return Buffer.from(rest, "base64");
  }
}

/**
 * The bytes of a base64 text (the JSON body's `csv` when the body was read whole), decoded a
 * window at a time with a turn of the event loop between windows.
 */
export async function* base64Pieces(text: string): AsyncGenerator<Buffer> {
  const decoder = new Base64Decoder();
  for (let start = 0; start < text.length; start += base64Window) {
    yield decoder.push(text.slice(start, start + base64Window));
    await nextTurn();
  }
  yield decoder.end();
}
