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
  archiveWorkspace,
  createWorkspace,
  getWorkspace,
  listWorkspaces,
  updateWorkspace,
  type WorkspaceServices,
} from "../domain/workspaces.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Workspaces"];

/**
 * GET/POST /api/v1/workspaces, GET/PATCH /api/v1/workspaces/:id and POST …/:id/archive;
 * there is no delete (archive instead).
 */
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
      config: { scope: "workspaces:write", resellerOnly: "create workspaces" },
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
        summary: "Change a workspace's name, status or plan",
        description:
          "Only the given fields change. `status` accepts `active` or `suspended` (either restores an archived workspace, `suspended` into suspension); trial is set by the service, archived by POST …/archive. `plan_id` moves the workspace to another plan: a paid plan makes a trial or trial-ended workspace active (trial_ends_at null); a plan whose limits are below current usage is a 409 plan_limit_exceeded with one detail per feature. An archived workspace takes only `status: active` or `suspended` (with a name, not a plan). `status: active` ends a trial, running or ended (trial_ends_at null), as a paid plan does. Only a reseller token may change `status` or `plan_id` (403 insufficient_scope for a workspace token, which may rename its workspace while it is active or trial, else 409 workspace_not_active).",
        params: WorkspaceIdParams,
        body: UpdateWorkspaceBody,
        response: {
          200: WorkspaceResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 409, 422),
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

  app.post(
    "/api/v1/workspaces/:id/archive",
    {
      // Archiving stops the workspace's tokens: authentication forgets the ones it remembered.
      config: { scope: "workspaces:write", revokesToken: true, resellerOnly: "archive workspaces" },
      schema: {
        tags,
        operationId: "archiveWorkspace",
        summary: "Archive a workspace",
        description:
          "The workspace becomes `archived`: read-only, nothing is sent, its workspace tokens stop working, and lists leave it out unless `status=archived` is asked for. PATCH `status: active` restores it (`suspended` restores it into suspension). Archiving an archived workspace changes nothing. Reseller tokens only.",
        params: WorkspaceIdParams,
        response: {
          200: WorkspaceResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 409, 422),
        },
      },
    },
    async (request) => {
      const data = await archiveWorkspace(db, clock, principalOf(request), request.params.id);
      return { status: "success" as const, data, meta: {} };
    },
  );
}
