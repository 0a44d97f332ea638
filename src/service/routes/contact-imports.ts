import {
  ContactImportListResponse,
  ContactImportResponse,
  CreateImportBody,
  ImportErrorListResponse,
  ImportParams,
} from "../../contract/contact-imports.js";
import { PageQuery } from "../../contract/pagination.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import {
  createImport,
  getImport,
  type ImportServices,
  listImportErrors,
  listImports,
} from "../domain/contact-imports.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Contact imports"];

/** Asynchronous CSV imports of contacts: start one, follow it, read its row errors. */
export function contactImportRoutes(app: App, services: ImportServices): void {
  const { db } = services;

  app.post(
    "/api/v1/workspaces/:id/contacts/import",
    {
      config: { scope: "contacts:write" },
      schema: {
        tags,
        operationId: "importContacts",
        summary: "Import contacts from a CSV file (asynchronous)",
        description:
          "Answers 202 at once with the queued import; follow it with GET …/contacts/imports/<import_id>. The CSV (base64 in `csv`, UTF-8 with or without BOM, CRLF or LF) has a header row naming its columns, case-insensitive: `phone` (required), first_name, last_name, email, tags (separated by `,`, `;` or `|`), opt_in_status, opt_in_source, opted_in_at, opted_out_at, and `custom.<key>` for custom fields; other columns are listed in `ignored_columns`. An empty cell leaves the field unchanged. A bad row becomes a row error and never stops the import; a phone twice in one file is one contact (the later row wins under `update`). Rows past the plan's `contacts` limit become row errors. At most 100 MB and 1,000,000 rows (413). A body that is not base64 or UTF-8, or a header without `phone`, is a 422.",
        params: WorkspaceIdParams,
        body: CreateImportBody,
        response: { 202: ContactImportResponse, ...errorResponses(...postErrors, 404, 413) },
      },
    },
    async (request, reply) => {
      const data = await createImport(
        services,
        principalOf(request),
        request.params.id,
        request.body,
      );
      reply.code(202);
      return { status: "success" as const, data, meta: {} };
    },
  );

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
