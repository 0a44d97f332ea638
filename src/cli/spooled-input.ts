import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { usageError } from "./cli-error.js";
import { cannotRead } from "./input-file.js";
import { type PrivateTempDir, privateTempDir } from "./private-temp-dir.js";

/** A file to read as often as the command needs, and how to name it to the user. */
export interface InputFile {
  path: string;
  /** The path as given (`customers.csv`), or `standard input` for `-`. */
  label: string;
  /** Deletes the copy of a stream (at once, however often called); nothing for a file in place. */
  remove(): Promise<void>;
}

/** The most a stream may hold, and the error that says it held more (copying stops there). */
export interface InputLimit {
  bytes: number;
  tooLarge: () => Error;
}

/**
 * Names of standard input, read from the stream the process has: opening `/dev/stdin` again fails
 * where it is a socket (ENXIO), as a parent process's pipe often is.
 */
const stdinNames = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/**
 * The file a command reads, where `-` is standard input and a pipe (`/dev/stdin`, `<(…)`) may be
 * named too: a stream is copied into a private temporary file first (a few megabytes of memory
 * however large), because an import reads the start of its file to detect its layout, then
 * uploads it, and sends it again if the connection fails.
 */
export async function spooledInput(
  path: string,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean },
  limit?: InputLimit,
): Promise<InputFile> {
  const named = `'${path}'`;
  if (stdinNames.has(path)) {
    if (stdin.isTTY === true) {
      throw usageError(
        `${path} reads the file from standard input, which is this terminal.`,
        "Pipe the file in (`cat customers.csv | reseller contacts import - -w ws_…`) or name it.",
      );
    }
    return path === "-"
      ? copied(stdin, "standard input", "standard input", limit)
      : copied(stdin, path, named, limit);
  }
  const found = await stat(path).catch((error: unknown) => {
    throw cannotRead(named, error);
  });
  if (found.isFile()) {
    // Known from its size at once: refused before any request, as a stream is while copied.
    if (limit !== undefined && found.size > limit.bytes) throw limit.tooLarge();
    return { path, label: path, remove: async () => {} };
  }
  if (found.isDirectory()) throw cannotRead(named, { code: "EISDIR" });
  return copied(createReadStream(path), path, named, limit);
}

/** `named`: how a read error names the source (see cannotRead). */
async function copied(
  from: NodeJS.ReadableStream,
  label: string,
  named: string,
  limit: InputLimit | undefined,
): Promise<InputFile> {
  // Contacts are other people's data: the copy is readable by this user alone, and deleted on
  // every way out.
  let dir: PrivateTempDir;
  try {
    dir = privateTempDir("reseller-input-");
  } catch (error) {
    throw cannotRead(named, error);
  }
  const remove = dir.remove;
  const path = join(dir.path, "input.csv");
  let bytes = 0;
  let tooLarge: Error | null = null;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (limit && bytes > limit.bytes) {
        tooLarge = limit.tooLarge();
        done(tooLarge);
      } else done(null, chunk);
    },
  });
  try {
    await pipeline(from, counted, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw tooLarge ?? cannotRead(named, error);
  }
  return { path, label, remove };
}
