import { constants } from "node:fs";
import { access, type FileHandle, open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { usageError } from "../cli-error.js";

/**
 * Opens a file the user named for the command to write (`--output`, `--errors`), with a usage
 * error naming it and the reason (a missing folder, no permission) instead of a stack. A new
 * file is readable by its owner alone (0600): it holds people's phones and names.
 */
export async function openOutputFile(path: string, flag: string): Promise<FileHandle> {
  refuseStandardOutput(path, flag);
  try {
    return await open(path, "w", 0o600);
  } catch (error) {
    throw cannotWrite(path, flag, error);
  }
}

/**
 * Checks, before long work, that `openOutputFile` will be able to write the file, without
 * creating or emptying it: the same usage error now rather than after the work.
 */
export async function checkOutputFile(path: string, flag: string): Promise<void> {
  refuseStandardOutput(path, flag);
  const found = await stat(path).catch(() => null);
  if (found?.isDirectory()) throw cannotWrite(path, flag, { code: "EISDIR" });
  try {
    await access(path, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw cannotWrite(path, flag, error);
    await access(dirname(path), constants.W_OK).catch((folder: unknown) => {
      throw cannotWrite(path, flag, folder);
    });
  }
}

/**
 * `-` where a file is asked for: stdout already carries the command's own output, which the
 * file's rows would be mixed into (a command whose output is the file, `contacts export
 * --output -`, takes it as stdout before it gets here). Refused rather than a file named `-`.
 */
function refuseStandardOutput(path: string, flag: string): void {
  if (path === "-") {
    throw usageError(
      `${flag} - would mix the file into this command's output on stdout.`,
      `Name a file: ${flag} errors.csv.`,
    );
  }
}

function cannotWrite(path: string, flag: string, error: unknown) {
  const code = (error as NodeJS.ErrnoException).code;
  return usageError(
    `Cannot write ${flag} file '${path}': ${code === "ENOENT" ? "its folder does not exist" : code === "EISDIR" ? "it is a folder; name a file in it" : (code ?? String(error))}.`,
  );
}
