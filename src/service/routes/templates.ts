import { checkTemplate } from "../../contract/template-rules.js";
import {
  CreateTemplateBody,
  DeletedTemplateResponse,
  SandboxReviewBody,
  TemplateIdParams,
  TemplateListQuery,
  TemplateListResponse,
  TemplateResponse,
  WorkspaceTemplateParams,
} from "../../contract/templates.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import {
  createTemplate,
  decideAsOperator,
  deleteTemplate,
  getTemplate,
  listTemplates,
  submitTemplate,
  type TemplateServices,
} from "../domain/templates.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Templates"];

const rulesNote =
  "Every formal WhatsApp rule is checked first: a 422 `validation_failed` lists each problem in `details` with its `field` (e.g. `components.2.buttons.0.text`), `rule` (e.g. `button_text_length`) and message. `reseller templates lint FILE` runs the same check offline.";

/**
 * Message templates of a workspace: list, get, create (submit for review, or store a draft),
 * submit a draft, delete a draft or rejected one; and the sandbox operator's controls.
 */
export function templateRoutes(app: App, services: TemplateServices): void {
  const { db } = services;

  app.get(
    "/api/v1/workspaces/:id/templates",
    {
      config: { scope: "templates:read" },
      schema: {
        tags,
        operationId: "listTemplates",
        summary: "List the workspace's templates, newest first",
        description:
          "Filters: `status`, `category`, `name` (exact), `language`. Paging as everywhere.",
        params: WorkspaceIdParams,
        querystring: TemplateListQuery,
        response: { 200: TemplateListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listTemplates(
        db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );

  app.post(
    "/api/v1/workspaces/:id/templates",
    {
      config: { scope: "templates:write", bodyRules: (body) => checkTemplate(body).problems },
      schema: {
        tags,
        operationId: "createTemplate",
        summary: "Create a template and submit it for review (or store a draft)",
        description: `Stored as \`pending\` and handed to the operator for review (the local sandbox decides after \`serve --review-delay\`), or as \`draft\` with \`"draft": true\`. ${rulesNote} Identity is workspace + name + language (409 \`template_exists\`); the plan's \`templates\` limit counts every stored template (409 \`plan_limit_exceeded\`); a suspended workspace answers 409 \`workspace_not_active\`.`,
        params: WorkspaceIdParams,
        body: CreateTemplateBody,
        response: { 201: TemplateResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request, reply) => {
      const data = await createTemplate(
        services,
        principalOf(request),
        request.params.id,
        request.body,
      );
      reply.code(201);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/templates/:template_id",
    {
      config: { scope: "templates:read" },
      schema: {
        tags,
        operationId: "getTemplate",
        summary: "Get a template with its components and, when rejected, the reason",
        params: WorkspaceTemplateParams,
        response: { 200: TemplateResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getTemplate(
        db,
        principalOf(request),
        request.params.id,
        request.params.template_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.post(
    "/api/v1/workspaces/:id/templates/:template_id/submit",
    {
      config: { scope: "templates:write" },
      schema: {
        tags,
        operationId: "submitTemplate",
        summary: "Submit a draft template for review",
        description:
          "The draft becomes `pending` and goes to the operator. Any other status is a 409 `template_not_draft`.",
        params: WorkspaceTemplateParams,
        response: { 200: TemplateResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request) => {
      const data = await submitTemplate(
        services,
        principalOf(request),
        request.params.id,
        request.params.template_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.delete(
    "/api/v1/workspaces/:id/templates/:template_id",
    {
      config: { scope: "templates:write" },
      schema: {
        tags,
        operationId: "deleteTemplate",
        summary: "Delete a draft or rejected template",
        description:
          "Approved, pending and paused templates are managed in the workspace dashboard: 409 `template_not_deletable`. Deleting frees the name and a unit of the plan's `templates` limit.",
        params: WorkspaceTemplateParams,
        response: {
          200: DeletedTemplateResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 409),
        },
      },
    },
    async (request) => {
      const data = await deleteTemplate(
        db,
        principalOf(request),
        request.params.id,
        request.params.template_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.post(
    "/api/v1/sandbox/templates/:template_id/review",
    {
      config: { scope: "templates:write" },
      schema: {
        tags: ["Sandbox"],
        operationId: "reviewTemplate",
        summary: "Sandbox operator: approve, reject or pause a template",
        description:
          "Local service only (404 elsewhere): decides a review explicitly, for tests and demos. `approve` a pending or paused template, `reject` a pending one with a `reason` from the operator's list (and an optional `detail`), `pause` an approved one; anything else is a 409 `template_not_reviewable`. Any token that can see the template's workspace with `templates:write` may decide.",
        params: TemplateIdParams,
        body: SandboxReviewBody,
        response: { 200: TemplateResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request) => {
      const data = await decideAsOperator(
        services,
        principalOf(request),
        request.params.template_id,
        request.body,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );
}
