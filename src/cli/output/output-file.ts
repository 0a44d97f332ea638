import { type FileHandle, open } from "node:fs/promises";
import { usageError } from "../cli-error.js";

/**
 * Opens a file the user named for the command to write (`--output`, `--errors`), with a usage
 * error naming it and the reason (a missing folder, no permission) instead of a stack.
 */
export async function openOutputFile(path: string, flag: string): Promise<FileHandle> {
  try {
    return await open(path, "w");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(
      `Cannot write ${flag} file '${path}': ${code === "ENOENT" ? "its folder does not exist" : (code ?? String(error))}.`,
    );
  }
}
