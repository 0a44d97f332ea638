import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { z } from "zod";
import type { ApiClient, ApiResponse } from "../../../client/api-client.js";
import { ContactImportResponse } from "../../../contract/contact-imports.js";
import type { CsvReadOptions } from "../../../contract/csv-options.js";
import { cannotRead } from "../../input-file.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { defaultCountryFlag } from "./default-country.js";

/** What an upload says besides the file. */
export interface UploadOptions {
  duplicateHandling?: string | undefined;
  defaultCountry?: string | undefined;
  /** How the file is read (contacts/import-mapping.ts): sent in the query, the mapping as JSON. */
  csv?: CsvReadOptions | undefined;
}

/**
 * Starts an import of a CSV file by streaming it into the request (`Content-Type: text/csv`,
 * options in the query): the file is never read whole, so a 100 MB file costs the CLI a few
 * megabytes of memory. Answers the queued import as the service sent it.
 */
export async function uploadImport(
  client: ApiClient,
  workspaceId: string,
  filePath: string,
  options: UploadOptions = {},
): Promise<ApiResponse<z.output<typeof ContactImportResponse>>> {
  const defaultCountry = defaultCountryFlag(options.defaultCountry);
  const found = await stat(filePath).catch((error: unknown) => {
    throw cannotRead(`'${filePath}'`, error);
  });
  if (!found.isFile()) throw cannotRead(`'${filePath}'`, { code: "EISDIR" });
  return client.call(
    "POST",
    workspacePath(workspaceId, "/contacts/import"),
    ContactImportResponse,
    {
      query: {
        duplicate_handling: options.duplicateHandling ?? "update",
        default_country: defaultCountry,
        mapping:
          options.csv?.mapping === undefined ? undefined : JSON.stringify(options.csv.mapping),
        delimiter: options.csv?.delimiter === "\t" ? "tab" : options.csv?.delimiter,
        encoding: options.csv?.encoding,
      },
      upload: { contentType: "text/csv", open: () => createReadStream(filePath) },
    },
  );
}
