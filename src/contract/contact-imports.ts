import { z } from "zod";
import { csvDelimiters, csvEncodings, mappingProblem, parseEncoding } from "./csv-options.js";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { megabytes, thousands } from "./numbers.js";
import { listEnvelope } from "./pagination.js";
import { duplicateHandlings, importStatuses } from "./vocabulary.js";

/** The most a contact import takes: decoded CSV bytes and data rows (413 above either). */
export const importLimits = { csvBytes: 100 * 1024 * 1024, rows: 1_000_000, errorsShown: 1000 };

/** The limits as people read them: "100 MB", "1,000,000 data rows". */
export const importLimitTexts = {
  csv: megabytes(importLimits.csvBytes),
  rows: `${thousands(importLimits.rows)} data rows`,
};

/** What a file larger than an import takes is told; `file` names it ("The CSV", "'big.csv'"). */
export function tooLargeMessage(file: string): string {
  return `${file} is larger than ${importLimitTexts.csv}, the most an import takes. Split the file.`;
}

/** What a file of more data rows than an import takes is told, with how many it has. */
export function tooManyRowsMessage(file: string, rows: number): string {
  return `${file} has ${thousands(rows)} data rows; an import takes at most ${importLimitTexts.rows}. Split the file.`;
}

/** `{"<header in the file>": "<field>" | "custom.<key>" | null}`, checked field by field. */
export const CsvMappingSchema = z
  .record(z.string(), z.string({ error: "mapping values are a field name or null" }).nullable(), {
    error: 'mapping must be an object such as {"Phone 1 - Value": "phone", "Notes": null}',
  })
  .superRefine((mapping, ctx) => {
    const problem = mappingProblem(mapping);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe(
    'Which column fills which field: `{"<header in the file>": "<field>"}` with fields phone, first_name, last_name, email, tags, opt_in_status, opt_in_source, opted_in_at, opted_out_at or `custom.<key>`, or null to ignore the column. Headers match case-insensitively; columns not named keep their default reading.',
  )
  .meta({ id: "CsvMapping" });

const delimiterInput = z
  .enum([...csvDelimiters, "tab"], { error: "delimiter must be one of , ; | or tab" })
  .describe(
    "The separator: `,` `;` `|` or tab (`\t` or `tab`). Default: detected from the header row.",
  );

const encodingMessage = `encoding must be one of ${csvEncodings.join(", ")} (any case; utf8, cp1252 and latin1 too)`;
const encodingInput = z
  .string({ error: encodingMessage })
  .transform((text, ctx) => {
    const encoding = parseEncoding(text);
    if (encoding === undefined) {
      ctx.addIssue({ code: "custom", message: encodingMessage });
      return z.NEVER;
    }
    return encoding;
  })
  .describe(
    `The file's encoding (default utf-8): ${csvEncodings.join(", ")}, in any case (utf8, cp1252, latin1 too). A UTF-16 byte order mark is detected whatever this says.`,
  );

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
    opt_outs_kept: z
      .number()
      .int()
      .min(0)
      .describe(
        "Rows saying `opted_in` or `not_set` for a contact who had opted out: imported, but the contact's consent is left as it was (only the contact's START or a PATCH with an `opt_in_source` re-subscribes).",
      ),
    errors: z.array(ImportRowError).describe("The first 1000 row errors, by row."),
    ignored_columns: z
      .array(z.string())
      .describe("Header columns the import does not read (nameless ones are not listed)."),
    mapping: z
      .record(z.string(), z.string().nullable())
      .describe(
        "Every header column of the file and the field it filled (null: ignored), as the import read it.",
      ),
    delimiter: z.enum(csvDelimiters).describe("The separator used (given or detected)."),
    encoding: z
      .enum(csvEncodings)
      .describe("The encoding used (given, or UTF-16 detected by its byte order mark)."),
    failure_reason: z.string().nullable().describe("Why a failed import stopped."),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: "ContactImport" });
export type ContactImport = z.infer<typeof ContactImport>;

/** What a `csv` that is no string is told (also where a large body is read as it streams). */
export const csvNotAString = "csv must be the CSV file encoded as base64";

export const CreateImportBody = z.strictObject({
  csv: z
    .string({ error: csvNotAString })
    .min(1, { error: "csv must not be empty: send the CSV file encoded as base64" })
    .describe(
      `The CSV file, base64-encoded (at most ${importLimitTexts.csv} decoded and ${importLimitTexts.rows}).`,
    ),
  duplicate_handling: z
    .enum(duplicateHandlings, { error: "duplicate_handling must be update or skip" })
    .default("update")
    .describe(
      "`update` overwrites an existing contact's fields with the row's non-empty cells; `skip` leaves it unchanged, but for a row saying `opted_out`: that withdrawal of consent is recorded (counted as updated) unless its `opted_out_at` is older than the contact's `opted_in_at`.",
    ),
  default_country: z
    .string({ error: "default_country must be a two-letter country code such as DE" })
    .optional()
    .describe(
      "Two-letter country code for numbers written without +country (e.g. `DE` for 0151…). Digits that start with its calling code and form a valid international number are read as international (Excel drops the +); where both readings are valid and the country has no trunk prefix (Italy), the row is refused as `ambiguous_phone`.",
    ),
  mapping: CsvMappingSchema.optional(),
  delimiter: delimiterInput.optional(),
  encoding: encodingInput.optional(),
});
export type CreateImportBody = z.infer<typeof CreateImportBody>;

export const ImportParams = z.object({
  id: z.string().describe("The workspace's id."),
  import_id: z.string().describe("The import's id (`imp_…`)."),
});

export const ContactImportResponse = successEnvelope(ContactImport, EmptyMeta);
export const ContactImportListResponse = listEnvelope(ContactImport);
export const ImportErrorListResponse = listEnvelope(ImportRowError);

/**
 * The options of an upload sent as the CSV itself (`Content-Type: text/csv`), in the query;
 * a JSON body carries them as fields instead.
 */
export const ImportUploadQuery = z.object({
  duplicate_handling: z
    .enum(duplicateHandlings, { error: "duplicate_handling must be update or skip" })
    .optional()
    .describe("With a text/csv body: `update` (the default) or `skip`, as in the JSON body."),
  default_country: z
    .string()
    .optional()
    .describe("With a text/csv body: the two-letter country code for national numbers."),
  mapping: z
    .string()
    .optional()
    .describe(
      'With a text/csv body: the mapping as JSON, e.g. `{"Phone 1 - Value":"phone"}` (URL-encoded).',
    ),
  delimiter: delimiterInput.optional(),
  encoding: encodingInput.optional(),
});
export type ImportUploadQuery = z.infer<typeof ImportUploadQuery>;
