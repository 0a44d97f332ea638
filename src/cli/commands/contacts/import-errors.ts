import type { FileHandle } from "node:fs/promises";
import { stringify } from "csv-stringify/sync";
import type { ApiClient } from "../../../client/api-client.js";
import { ImportErrorListResponse, type ImportRowError } from "../../../contract/contact-imports.js";
import { neutraliseRows } from "../../../contract/csv-formulas.js";
import { workspacePath } from "../workspaces/workspace-path.js";

export const errorCsvHeader = ["row", "phone", "field", "message"];

/** Rows of the errors CSV, formulas neutralised (a phone cell may hold anything). */
export function errorCsvRows(errors: readonly ImportRowError[]): string[][] {
  return neutraliseRows(errors.map((e) => [String(e.row), e.phone ?? "", e.field, e.message]));
}

/** Writes every row error of an import (walked by cursor) as CSV to `handle`, then closes it; returns how many. */
export async function writeImportErrors(
  client: ApiClient,
  workspaceId: string,
  importId: string,
  handle: FileHandle,
): Promise<number> {
  let written = 0;
  try {
    await handle.write(stringify([errorCsvHeader]));
    const path = workspacePath(
      workspaceId,
      `/contacts/imports/${encodeURIComponent(importId)}/errors`,
    );
    for await (const page of client.pages(path, ImportErrorListResponse, { per_page: 100 })) {
      if (page.body.data.length === 0) continue;
      await handle.write(stringify(errorCsvRows(page.body.data)));
      written += page.body.data.length;
    }
  } finally {
    await handle.close();
  }
  return written;
}
