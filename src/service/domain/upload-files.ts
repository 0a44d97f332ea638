import { readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where an import's bytes wait on disk (mode 0600) between the request and the database: the
 * CSV as it arrives (`staged`, named by the import's id), or the CSV decoded from a large JSON
 * body (`decoded`). Deleted once stored or refused; these names let a crash's leftovers be found.
 */
export function uploadFilePath(kind: "staged" | "decoded", id: string): string {
  return join(
    tmpdir(),
    `${kind === "staged" ? "reseller-upload" : "reseller-json-upload"}-${id}.csv`,
  );
}

const uploadFileName = /^reseller-(json-)?upload-[\w-]+\.csv$/;

/**
 * How long an upload file may go unwritten before it counts as a leftover. An upload in progress
 * writes every megabyte, and one that has arrived is in the database within minutes.
 */
export const abandonedUploadMs = 60 * 60 * 1000;

/**
 * Deletes the upload files that a process killed mid-upload (a crash, SIGKILL, a lost machine's
 * restart) left in the temporary folder: other people's contacts must not stay on disk. Only
 * files untouched for `abandonedUploadMs`, so an instance beside this one on the same machine
 * keeps its uploads. Answers how many were deleted.
 */
export async function removeAbandonedUploads(nowMs: number, dir = tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (!uploadFileName.test(name)) continue;
    const file = join(dir, name);
    const found = await stat(file).catch(() => null);
    if (!found?.isFile() || nowMs - found.mtimeMs < abandonedUploadMs) continue;
    await rm(file, { force: true });
    removed += 1;
  }
  return removed;
}
