import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { usageError } from "./cli-error.js";
import { cannotRead } from "./input-file.js";

/** A file to read as often as the command needs, and how to name it to the user. */
export interface InputFile {
  path: string;
  /** The path as given (`customers.csv`), or `standard input` for `-`. */
  label: string;
  /** Deletes the copy of a stream; nothing for a file read in place. */
  remove(): Promise<void>;
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
      ? copied(stdin, "standard input", "standard input")
      : copied(stdin, path, named);
  }
  const found = await stat(path).catch((error: unknown) => {
    throw cannotRead(named, error);
  });
  if (found.isFile()) return { path, label: path, remove: async () => {} };
  if (found.isDirectory()) throw cannotRead(named, { code: "EISDIR" });
  return copied(createReadStream(path), path, named);
}

/** `named`: how a read error names the source (see cannotRead). */
async function copied(
  from: NodeJS.ReadableStream,
  label: string,
  named: string,
): Promise<InputFile> {
  // Contacts are other people's data: the copy is readable by this user alone.
  const dir = await mkdtemp(join(tmpdir(), "reseller-input-"));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, "input.csv");
  try {
    await pipeline(from, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw cannotRead(named, error);
  }
  return { path, label, remove };
}
