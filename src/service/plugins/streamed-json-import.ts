import { createHash, type Hash, randomUUID } from "node:crypto";
import { type FileHandle, open, rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { FastifyError, FastifyRequest } from "fastify";
import { csvNotAString, importLimits } from "../../contract/contact-imports.js";
import { megabytes } from "../../contract/numbers.js";
import type { App } from "../app-types.js";
import { importBodyLimitBytes, otherBodyLimitBytes } from "../body-limits.js";
import {
  Base64Decoder,
  nextTurn,
  tooLarge,
  uploadPieceBytes,
} from "../domain/contact-import-uploads.js";
import { invalidField, invalidFields, ServiceError } from "../domain/service-error.js";
import { uploadFilePath } from "../domain/upload-files.js";
import { invalidJson, type JsonBytesParser, jsonBytesParser } from "./json-bodies.js";
import { needsJsonObject } from "./validation-messages.js";

/**
 * A contact import's JSON body (`{"csv":"<base64>", …}`, the contract's original form) read as it
 * arrives. A body of up to 1 MB is read whole, as every JSON body is. A larger one is read a chunk
 * at a time: its top-level `csv` string is decoded into a temporary file as it streams by, and the
 * rest of the body (its other fields, at most 1 MB) is parsed as JSON once it has ended, so a 133 MB
 * body neither holds the event loop for a parse in one go nor sits in memory three times.
 */

/** The decoded CSV of a streamed JSON body, in a temporary file of the service's. */
export interface SpooledCsv {
  file: string;
  bytes: number;
}

/** What a streamed JSON body's `csv` becomes in the parsed body: it names the file's bytes, so
 * an Idempotency-Key compares two such bodies by their files (plugins/idempotency.ts). */
function standIn(bytes: number, sha256: string): string {
  return `(a CSV file of ${bytes} bytes, SHA-256 ${sha256}, read as the body streamed in)`;
}

/** A body over fastify's limit for the route, as fastify's own parsers refuse one. */
function bodyTooLarge(): FastifyError {
  return Object.assign(new Error("Request body is too large"), {
    code: "FST_ERR_CTP_BODY_TOO_LARGE",
    name: "FastifyError",
    statusCode: 413,
  }) as FastifyError;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const controlCharacter = /[\x00-\x1f]/;
/** The first letters of JSON values other than an object. */
const jsonValueStarts = '["-0123456789tfn';

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Finds the top-level `csv` string of a JSON object as its bytes go by and hands its text to a
 * base64 decoder; every other byte is kept (the "skeleton", with `"csv":""` in its place) for
 * JSON.parse at the end, which judges the body's syntax, so this only follows its structure.
 */
class ImportBodyScanner {
  private readonly skeleton: Buffer[] = [];
  private skeletonBytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  /** Where the key being read started, in `keyBytes`, while one is read. */
  private keyBytes: number[] | null = null;
  private lastKey: string | null = null;
  private valueOfCsv = false;
  private inCsv = false;
  private csvEscape: "none" | "backslash" | number = "none";
  private started = false;
  private unicode = "";
  csvSeen = false;

  constructor(private readonly decoder: Base64Decoder) {}

  /** Reads the next bytes of the body; returns the CSV bytes decoded from them. */
  feed(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let kept = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.inCsv) {
        this.keep(chunk.subarray(kept, i));
        i = this.readCsv(chunk, i, out);
        kept = i;
        continue;
      }
      const byte = chunk[i] as number;
      i++;
      if (this.inString) {
        this.keyBytes?.push(byte);
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (this.keyBytes) this.endKey();
        }
        continue;
      }
      if (this.depth === 0 && !this.started && !isJsonSpace(byte)) {
        this.started = true;
        // JSON that is no object is told as a small body is (a large one would otherwise fill the
        // 1 MB left for fields); anything else that is no JSON, the final parse refuses (400).
        if (jsonValueStarts.includes(String.fromCharCode(byte))) {
          throw invalidFields([{ field: "(body)", message: needsJsonObject }]);
        }
      }
      if (this.valueOfCsv && !isJsonSpace(byte)) {
        this.valueOfCsv = false;
        if (this.csvSeen) {
          throw invalidField("csv", "is given twice in the body: send the file once");
        }
        if (byte !== QUOTE) {
          throw invalidFields([{ field: "csv", message: csvNotAString }]);
        }
        this.csvSeen = true;
        this.inCsv = true;
        // The opening quote is kept; the closing one is kept when the text ends.
        this.keep(chunk.subarray(kept, i));
        kept = i;
        continue;
      }
      if (byte === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.expectKey = false;
          this.keyBytes = [byte];
        }
      } else if (byte === 0x7b || byte === 0x5b) {
        this.depth++;
        if (this.depth === 1) this.expectKey = byte === 0x7b;
      } else if (byte === 0x7d || byte === 0x5d) {
        this.depth--;
      } else if (byte === 0x2c && this.depth === 1) {
        this.expectKey = true;
      } else if (byte === 0x3a && this.depth === 1) {
        this.valueOfCsv = this.lastKey === "csv";
        this.lastKey = null;
      }
    }
    if (!this.inCsv) this.keep(chunk.subarray(kept));
    return out;
  }

  /** The body without its `csv` text, once every byte has been fed. */
  end(): Buffer {
    if (this.inCsv) return Buffer.from("{"); // a body cut inside csv: JSON.parse says so
    return Buffer.concat(this.skeleton);
  }

  private endKey(): void {
    const raw = Buffer.from(this.keyBytes ?? []).toString("utf8");
    this.keyBytes = null;
    try {
      this.lastKey = JSON.parse(raw) as string;
    } catch {
      this.lastKey = null; // JSON.parse of the skeleton reports it
    }
  }

  /**
   * Reads csv text from `from` and decodes it (once per chunk: PHP's encoder, for one, writes
   * every `/` as `\\/`); returns where it stopped, the chunk's end or past the closing quote.
   */
  private readCsv(chunk: Buffer, from: number, out: Buffer[]): number {
    const text: string[] = [];
    let i = from;
    while (i < chunk.length) {
      if (this.csvEscape === "backslash") {
        const letter = String.fromCharCode(chunk[i] as number);
        i++;
        this.csvEscape = "none";
        if (letter === "u") this.csvEscape = 0;
        // \n \r \t \f are whitespace, which base64 may hold (ignored, as when the body is read
        // whole); \" \\ \b are no base64.
        else if (!"nrtf".includes(letter)) text.push(letter === "/" ? "/" : "!");
        continue;
      }
      if (typeof this.csvEscape === "number") {
        this.unicode += String.fromCharCode(chunk[i] as number);
        i++;
        if (this.unicode.length === 4) {
          const hex = /^[0-9a-f]{4}$/i.test(this.unicode);
          text.push(hex ? String.fromCharCode(Number.parseInt(this.unicode, 16)) : "!");
          this.unicode = "";
          this.csvEscape = "none";
        }
        continue;
      }
      const quote = chunk.indexOf(QUOTE, i);
      const slash = chunk.indexOf(BACKSLASH, i);
      const stop = quote === -1 ? slash : slash === -1 ? quote : Math.min(quote, slash);
      const to = stop === -1 ? chunk.length : stop;
      if (to > i) {
        const part = chunk.toString("latin1", i, to);
        // JSON writes a line break in a string as \n: a raw one is no JSON, as a small body is told.
        if (controlCharacter.test(part)) {
          throw invalidJson("The request body is not valid JSON: a control character in csv.");
        }
        text.push(part);
      }
      if (stop === -1) {
        i = chunk.length;
        break;
      }
      i = stop + 1;
      if (stop === slash) {
        this.csvEscape = "backslash";
        continue;
      }
      out.push(this.decoder.push(text.join("")), this.decoder.end());
      this.inCsv = false;
      this.keep(Buffer.from('"'));
      return i;
    }
    out.push(this.decoder.push(text.join("")));
    return i;
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.skeletonBytes += bytes.length;
    if (this.skeletonBytes > otherBodyLimitBytes) {
      throw new ServiceError(
        "payload_too_large",
        `The body's fields other than csv are larger than ${megabytes(otherBodyLimitBytes)}: a large JSON body must be an object whose csv field holds the file.`,
      );
    }
    this.skeleton.push(bytes);
  }
}

/** The temporary file a streamed body's CSV is decoded into, written a megabyte at a time. */
class CsvSpool {
  readonly file = uploadFilePath("decoded", randomUUID());
  private handle: FileHandle | null = null;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  bytes = 0;
  readonly hash: Hash = createHash("sha256");

  async write(pieces: Buffer[], flush = false): Promise<void> {
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      this.bytes += piece.length;
      if (this.bytes > importLimits.csvBytes) throw tooLarge();
      this.hash.update(piece);
      this.pending.push(piece);
      this.pendingBytes += piece.length;
    }
    if (this.pendingBytes >= uploadPieceBytes || (flush && this.pendingBytes > 0)) {
      this.handle ??= await open(this.file, "w", 0o600);
      await this.handle.write(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = null;
  }
}

/** What a contact import's JSON body parses to, and its CSV's file when it was streamed. */
export interface ImportJsonBody {
  body: unknown;
  spooled: SpooledCsv | null;
}

/**
 * Reads a contact import's JSON body from its stream: whole (with `parseWhole`, as every JSON
 * body) up to 1 MB, streamed past that (see above). Refuses a body over the import's limit.
 */
export async function readImportJsonBody(
  request: FastifyRequest,
  payload: Readable,
  parseWhole: JsonBytesParser,
  /** Bodies up to this size are read whole (tests stream smaller ones). */
  wholeBytes = otherBodyLimitBytes,
): Promise<ImportJsonBody> {
  if (Number(request.headers["content-length"] ?? 0) > importBodyLimitBytes) throw bodyTooLarge();
  const parse = (bytes: Buffer) =>
    new Promise<unknown>((resolve, reject) =>
      parseWhole(request, bytes, (error, body) => (error ? reject(error) : resolve(body))),
    );
  const head: Buffer[] = [];
  let received = 0;
  let scanner: ImportBodyScanner | null = null;
  let spool: CsvSpool | null = null;
  try {
    for await (const chunk of payload as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > importBodyLimitBytes) throw bodyTooLarge();
      if (scanner === null) {
        head.push(chunk);
        if (received <= wholeBytes) continue;
        scanner = new ImportBodyScanner(new Base64Decoder());
        spool = new CsvSpool();
        for (const part of head.splice(0)) await spool.write(scanner.feed(part));
      } else {
        await spool?.write(scanner.feed(chunk));
      }
      // A chunk's work is short; the turn lets requests waiting behind the upload be answered.
      await nextTurn();
    }
    if (scanner === null || spool === null) {
      return { body: await parse(Buffer.concat(head)), spooled: null };
    }
    await spool.write([], true);
    await spool.close();
    const body = await parse(scanner.end());
    if (!scanner.csvSeen) {
      await rm(spool.file, { force: true });
      return { body, spooled: null };
    }
    if (typeof body === "object" && body !== null && "csv" in body) {
      (body as Record<string, unknown>).csv = standIn(spool.bytes, spool.hash.digest("hex"));
    }
    return { body, spooled: { file: spool.file, bytes: spool.bytes } };
  } catch (error) {
    await spool?.close().catch(() => {});
    if (spool) await rm(spool.file, { force: true });
    throw error;
  }
}

/** A spooled CSV's bytes, a piece at a time, for the import to store. */
async function* spooledPieces(spooled: SpooledCsv): AsyncGenerator<Buffer> {
  if (spooled.bytes === 0) return;
  const input = await open(spooled.file, "r");
  try {
    for (;;) {
      const piece = Buffer.allocUnsafe(uploadPieceBytes);
      const { bytesRead } = await input.read(piece, 0, uploadPieceBytes, null);
      if (bytesRead === 0) return;
      yield piece.subarray(0, bytesRead);
    }
  } finally {
    await input.close();
  }
}

/** The decoded CSV of a request's streamed JSON body, for its handler. */
export interface SpooledJsonBodies {
  /**
   * The CSV a request's body was decoded into (null: none, the body was read whole), with
   * `done` to call once the handler has read it (the file then goes).
   */
  take(request: FastifyRequest): { pieces: AsyncGenerator<Buffer>; done(): Promise<void> } | null;
}

/**
 * Makes `context` read its JSON bodies with readImportJsonBody. A decoded file goes when the
 * response closes, which it does however the request ends (onResponse is not called for a
 * client that has gone), unless the handler is reading it then: its `done` removes it.
 */
export function streamLargeJsonBodies(context: App): SpooledJsonBodies {
  const spooledCsvs = new WeakMap<object, SpooledCsv>();
  const handling = new WeakSet<object>();
  const discard = async (request: object) => {
    const spooled = spooledCsvs.get(request);
    spooledCsvs.delete(request);
    if (spooled) await rm(spooled.file, { force: true });
  };
  const parseWhole = jsonBytesParser(context);
  context.removeContentTypeParser("application/json");
  context.addContentTypeParser("application/json", (request, payload, done) => {
    readImportJsonBody(request, payload, parseWhole).then(
      ({ body, spooled }) => {
        if (spooled) spooledCsvs.set(request, spooled);
        // The response closed while the body was read: no close event is to come.
        if (request.raw.socket?.destroyed) void discard(request);
        done(null, body);
      },
      (error: Error) => done(error, undefined),
    );
  });
  context.addHook("onRequest", async (request, reply) => {
    reply.raw.once("close", () => {
      if (!handling.has(request)) void discard(request);
    });
  });
  return {
    take(request) {
      const spooled = spooledCsvs.get(request);
      if (!spooled) return null;
      handling.add(request);
      return {
        pieces: spooledPieces(spooled),
        done: async () => {
          handling.delete(request);
          await discard(request);
        },
      };
    },
  };
}
