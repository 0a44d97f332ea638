import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope } from "./pagination.js";
import { duplicateHandlings, importStatuses } from "./vocabulary.js";

/** The most a contact import takes: decoded CSV bytes and data rows (413 above either). */
export const importLimits = { csvBytes: 100 * 1024 * 1024, rows: 1_000_000, errorsShown: 1000 };

export const ImportRowError = z
  .object({
    row: z.number().int().min(1).describe("Data row number: the first row after the header is 1."),
    phone: z.string().nullable().describe("The row's phone cell as written, if it had one."),
    field: z.string().describe("The column at fault (`row` for a problem with the whole row)."),
    message: z.string(),
  })
  .meta({ id: "ImportRowError" });
export type ImportRowError = z.infer<typeof ImportRowError>;

export const ContactImport = z
  .object({
    id: z.string(),
    import_id: z.string().describe("The same value as `id`."),
    status: z.enum(importStatuses),
    duplicate_handling: z.enum(duplicateHandlings),
    default_country: z.string().nullable(),
    total_rows: z
      .number()
      .int()
      .min(0)
      .describe("Data rows in the file: counted on upload, exact once the import has ended."),
    processed_rows: z.number().int().min(0),
    created: z.number().int().min(0),
    updated: z.number().int().min(0),
    skipped: z
      .number()
      .int()
      .min(0)
      .describe("Rows whose phone already existed, left unchanged under `skip`."),
    error_count: z.number().int().min(0).describe("Rows refused with an error (never imported)."),
    errors: z.array(ImportRowError).describe("The first 1000 row errors, by row."),
    ignored_columns: z.array(z.string()).describe("Header columns the import does not read."),
    failure_reason: z.string().nullable().describe("Why a failed import stopped."),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: "ContactImport" });
export type ContactImport = z.infer<typeof ContactImport>;

export const CreateImportBody = z.strictObject({
  csv: z
    .string({ error: "csv is required: the CSV file encoded as base64" })
    .min(1, { error: "csv must not be empty: send the CSV file encoded as base64" })
    .describe("The CSV file, base64-encoded (at most 100 MB decoded and 1,000,000 data rows)."),
  duplicate_handling: z
    .enum(duplicateHandlings, { error: "duplicate_handling must be update or skip" })
    .default("update")
    .describe(
      "`update` overwrites an existing contact's fields with the row's non-empty cells; `skip` leaves it unchanged.",
    ),
  default_country: z
    .string({ error: "default_country must be a two-letter country code such as DE" })
    .optional()
    .describe(
      "Two-letter country code for numbers written without +country (e.g. `DE` for 0151…).",
    ),
});
export type CreateImportBody = z.infer<typeof CreateImportBody>;

export const ImportParams = z.object({
  id: z.string().describe("The workspace's id."),
  import_id: z.string().describe("The import's id (`imp_…`)."),
});

export const ContactImportResponse = successEnvelope(ContactImport, EmptyMeta);
export const ContactImportListResponse = listEnvelope(ContactImport);
export const ImportErrorListResponse = listEnvelope(ImportRowError);
