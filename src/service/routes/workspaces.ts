import {
  CreateWorkspaceBody,
  UpdateWorkspaceBody,
  WorkspaceIdParams,
  WorkspaceListQuery,
  WorkspaceListResponse,
  WorkspaceResponse,
  WorkspaceWithUsageResponse,
} from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import {
  createWorkspace,
  getWorkspace,
  listWorkspaces,
  updateWorkspace,
  type WorkspaceServices,
} from "../domain/workspaces.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Workspaces"];

/** GET/POST /api/v1/workspaces and GET/PATCH /api/v1/workspaces/:id; there is no delete. */
export function workspaceRoutes(app: App, deps: WorkspaceServices): void {
  const { db, clock } = deps;

  app.get(
    "/api/v1/workspaces",
    {
      config: { scope: "workspaces:read" },
      schema: {
        tags,
        operationId: "listWorkspaces",
        summary: "List the reseller's workspaces, newest first",
        description:
          "A workspace token sees only its own workspace. Paging: `page`/`per_page`, or `cursor` from `meta.pagination.next_cursor`.",
        querystring: WorkspaceListQuery,
        response: { 200: WorkspaceListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listWorkspaces(db, principalOf(request), request.query);
      return { status: "success" as const, data, meta };
    },
  );

  app.post(
    "/api/v1/workspaces",
    {
      config: { scope: "workspaces:write" },
      schema: {
        tags,
        operationId: "createWorkspace",
        summary: "Create a workspace",
        description:
          "Status is `trial` (with `trial_ends_at`) on a free plan with trial days, otherwise `active`. With `send_invitation` (default true) the invitation goes to the outbox and, when configured, SMTP; a failed send never fails the create. Reseller tokens only.",
        body: CreateWorkspaceBody,
        response: { 201: WorkspaceResponse, ...errorResponses(...postErrors) },
      },
    },
    async (request, reply) => {
      const data = await createWorkspace(deps, principalOf(request), request.body);
      reply.code(201);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    "/api/v1/workspaces/:id",
    {
      config: { scope: "workspaces:read" },
      schema: {
        tags,
        operationId: "getWorkspace",
        summary: "Get a workspace with its usage against its plan",
        params: WorkspaceIdParams,
        response: { 200: WorkspaceWithUsageResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getWorkspace(db, clock, principalOf(request), request.params.id);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.patch(
    "/api/v1/workspaces/:id",
    {
      config: { scope: "workspaces:write" },
      schema: {
        tags,
        operationId: "updateWorkspace",
        summary: "Change a workspace's name or status",
        description:
          "Only the given fields change. `status` accepts `active` or `suspended`; trial and archived are set by the service.",
        params: WorkspaceIdParams,
        body: UpdateWorkspaceBody,
        response: {
          200: WorkspaceResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 422),
        },
      },
    },
    async (request) => {
      const data = await updateWorkspace(
        db,
        clock,
        principalOf(request),
        request.params.id,
        request.body,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );
}
