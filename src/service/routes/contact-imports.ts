import type { Readable } from "node:stream";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  ContactImportListResponse,
  ContactImportResponse,
  CreateImportBody,
  ImportErrorListResponse,
  ImportParams,
  ImportUploadQuery,
  importLimits,
  importLimitTexts,
} from "../../contract/contact-imports.js";
import type { ErrorDetail } from "../../contract/envelope.js";
import { megabytes } from "../../contract/numbers.js";
import { PageQuery } from "../../contract/pagination.js";
import { defaultCountryProblem } from "../../contract/phones.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import { importBodyLimitBytes, otherBodyLimitBytes } from "../body-limits.js";
import { base64Pieces, tooLarge } from "../domain/contact-import-uploads.js";
import {
  createImport,
  getImport,
  type ImportServices,
  listImportErrors,
  listImports,
} from "../domain/contact-imports.js";
import { invalidFields } from "../domain/service-error.js";
import { principalOf } from "../plugins/authentication.js";
import { streamedBody } from "../plugins/streamed-bodies.js";
import { streamLargeJsonBodies } from "../plugins/streamed-json-import.js";
import { authErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Contact imports"];

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An import body's rules past its schema's types: a default_country that is no country. */
function importBodyRules(body: unknown): ErrorDetail[] {
  const country =
    typeof body === "object" && body !== null && "default_country" in body
      ? body.default_country
      : undefined;
  const problem = typeof country === "string" ? defaultCountryProblem(country) : null;
  return problem === null ? [] : [{ field: "default_country", message: problem }];
}

/**
 * Refuses upload options in the query beside a JSON body, which carries its own: read from
 * neither, `?duplicate_handling=skip` would silently import as `update`.
 */
function refuseQueryOptions(query: ImportUploadQuery): void {
  const given = Object.entries(query).filter(([, value]) => value !== undefined);
  if (given.length === 0) return;
  throw invalidFields(
    given.map(([field]) => ({
      field,
      message:
        "is read from the query only with a text/csv body; with a JSON body, give it in the body",
    })),
  );
}

/** Asynchronous CSV imports of contacts: start one, follow it, read its row errors. */
export function contactImportRoutes(app: App, services: ImportServices): void {
  const { db } = services;

  // Only the upload takes text/csv: in a context of its own, so any other route answers a CSV
  // body 415 before reading it, as it answers every type it does not take.
  app.register(async (context) => {
    const upload: App = context.withTypeProvider<ZodTypeProvider>();
    // A text/csv body is the file itself: handed to the route as a stream, never buffered whole.
    // What the body schema checks is a stand-in with the options from the query, so a bad option
    // is the same 422 as in a JSON body.
    const csvStreams = new WeakMap<object, Readable>();
    upload.addContentTypeParser("text/csv", (request, payload, done) => {
      // A file declared larger than an import takes is refused before any of it is read.
      const declared = Number(request.headers["content-length"] ?? 0);
      if (declared > importLimits.csvBytes) {
        done(tooLarge(), undefined);
        return;
      }
      const query = (request.query ?? {}) as Record<string, unknown>;
      const standIn: Record<string, unknown> = { csv: "(the text/csv body)" };
      if (query.duplicate_handling !== undefined)
        standIn.duplicate_handling = query.duplicate_handling;
      if (query.default_country !== undefined) standIn.default_country = query.default_country;
      for (const name of ["delimiter", "encoding"] as const) {
        if (query[name] !== undefined) standIn[name] = query[name];
      }
      // The HTTP way to name a body's encoding (`text/csv; charset=windows-1252`) names the
      // file's, unless the query's `encoding` does; UTF-8 (and its subset ASCII) is the default.
      const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers["content-type"] ?? "")?.[1];
      if (
        standIn.encoding === undefined &&
        charset !== undefined &&
        !/^(utf-?8|us-ascii)$/i.test(charset)
      ) {
        standIn.encoding = charset.toLowerCase();
      }
      // The mapping travels as JSON in the query; text that is not JSON fails the body's check.
      if (typeof query.mapping === "string") standIn.mapping = jsonOrText(query.mapping);
      csvStreams.set(request, streamedBody(request, payload));
      done(null, standIn);
    });

    // A JSON body over 1 MB is read as it streams in, its csv decoded into a temporary file.
    const spooledJson = streamLargeJsonBodies(upload);

    upload.post(
      "/api/v1/workspaces/:id/contacts/import",
      {
        config: { scope: "contacts:write", bodyRules: importBodyRules },
        bodyLimit: importBodyLimitBytes,
        schema: {
          tags,
          operationId: "importContacts",
          summary: "Import contacts from a CSV file (asynchronous)",
          description: `Answers 202 with the queued import as soon as the file is stored; follow it with GET …/contacts/imports/<import_id>. Send the CSV either base64-encoded in the JSON body's \`csv\`, or as the body itself with \`Content-Type: text/csv\` and the options in the query (\`?duplicate_handling=skip&default_country=DE\`; beside a JSON body, options in the query are a 422). Both stream: the service never holds the whole file (a JSON body over ${megabytes(otherBodyLimitBytes)} is read as it arrives, its \`csv\` decoded into a temporary file; its other fields may total ${megabytes(otherBodyLimitBytes)}, and a \`csv\` given twice is a 422). The CSV (UTF-8 with or without BOM, CRLF or LF) has a header row naming its columns, case-insensitive: \`phone\` (required), first_name, last_name, email, tags (separated by \`,\`, \`;\` or \`|\`), opt_in_status, opt_in_source, opted_in_at, opted_out_at, and \`custom.<key>\` for custom fields; other columns are listed in \`ignored_columns\`. An empty cell leaves the field unchanged. A bad row becomes a row error and never stops the import; a phone twice in one file is one contact (the later row wins under \`update\`). Rows past the plan's \`contacts\` limit become row errors. At most ${importLimitTexts.csv} and ${importLimitTexts.rows} (413). Options \`mapping\` (header → field or null; in the query as JSON), \`delimiter\` (\`,\` \`;\` \`|\` tab; detected by default) and \`encoding\` (utf-8, windows-1252, iso-8859-1, utf-16le, utf-16be; a UTF-16 byte order mark is detected) say how the file is read, and the record shows what was used. A header without \`phone\` is a 422, naming the mapping that imports a recognised Google Contacts, Outlook or HubSpot export; a body that is not base64, not UTF-8 and without \`encoding\`, or not text in its \`encoding\` (a byte that stands for no character), is a 422; so is a file whose quoted cell opens before the last row and never closes (the rest of the file would be that one cell), naming the row. A quote left open on the last row is that row's error.`,
          params: WorkspaceIdParams,
          querystring: ImportUploadQuery,
          body: CreateImportBody,
          response: { 202: ContactImportResponse, ...errorResponses(...postErrors, 404, 413) },
        },
      },
      async (request, reply) => {
        const stream = csvStreams.get(request);
        const spooled = spooledJson.take(request);
        const { csv, ...options } = request.body;
        const data = await Promise.resolve()
          .then(() => {
            if (!stream) refuseQueryOptions(request.query);
            return createImport(
              services,
              principalOf(request),
              request.params.id,
              options,
              stream ?? spooled?.pieces ?? base64Pieces(csv),
            );
          })
          .catch((error: unknown) => {
            // The rest of a refused file is not read: the connection ends with the answer.
            if (stream) reply.header("connection", "close");
            throw error;
          })
          .finally(() => spooled?.done());
        reply.code(202);
        return { status: "success" as const, data, meta: {} };
      },
    );
  });

  app.get(
    "/api/v1/workspaces/:id/contacts/imports",
    {
      config: { scope: "contacts:read" },
      schema: {
        tags,
        operationId: "listContactImports",
        summary: "List the workspace's imports, newest first",
        params: WorkspaceIdParams,
        querystring: PageQuery,
        response: { 200: ContactImportListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listImports(
        db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/contacts/imports/:import_id",
    {
      config: { scope: "contacts:read" },
      schema: {
        tags,
        operationId: "getContactImport",
        summary: "Get an import: status, counts and the first 1000 row errors",
        params: ImportParams,
        response: { 200: ContactImportResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getImport(
        db,
        principalOf(request),
        request.params.id,
        request.params.import_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/contacts/imports/:import_id/errors",
    {
      config: { scope: "contacts:read" },
      schema: {
        tags,
        operationId: "listContactImportErrors",
        summary: "List every row error of an import, by row number",
        params: ImportParams,
        querystring: PageQuery,
        response: { 200: ImportErrorListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listImportErrors(
        db,
        principalOf(request),
        request.params.id,
        request.params.import_id,
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );
}
