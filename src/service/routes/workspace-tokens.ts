import { PageQuery } from "../../contract/pagination.js";
import {
  CreatedTokenResponse,
  CreateTokenBody,
  TokenListResponse,
  TokenResponse,
  WorkspaceTokenParams,
} from "../../contract/tokens.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import {
  createWorkspaceToken,
  listWorkspaceTokens,
  revokeWorkspaceToken,
} from "../domain/token-management.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Tokens"];

/**
 * Tokens of one workspace (e.g. a `plans:read` token for a client's pricing page): create, list,
 * revoke. They take `workspaces:write` (`workspaces:read` to list); a workspace token may manage
 * its own workspace's tokens, never another's (404).
 */
export function workspaceTokenRoutes(app: App, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;

  app.post(
    "/api/v1/workspaces/:id/tokens",
    {
      config: { scope: "workspaces:write", secretInResponse: true },
      schema: {
        tags,
        operationId: "createWorkspaceToken",
        summary: "Create a workspace token",
        description:
          "A `wsk_` token that reaches only this workspace. The secret is in `token` of this response only; scopes must be ones the creating token holds (422 otherwise). A retry with the same Idempotency-Key replays this answer; it is stored sealed with the asking token, never readable. An archived workspace's tokens do not work, so creating one there is a 409 `workspace_not_active`; a workspace token creates none in its suspended workspace either (409).",
        params: WorkspaceIdParams,
        body: CreateTokenBody,
        response: { 201: CreatedTokenResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request, reply) => {
      const data = await createWorkspaceToken(
        db,
        clock,
        principalOf(request),
        request.params.id,
        request.body,
      );
      reply.code(201);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    "/api/v1/workspaces/:id/tokens",
    {
      config: { scope: "workspaces:read" },
      schema: {
        tags,
        operationId: "listWorkspaceTokens",
        summary: "List the workspace's tokens that are not revoked, newest first",
        params: WorkspaceIdParams,
        querystring: PageQuery,
        response: { 200: TokenListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listWorkspaceTokens(
        db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );

  app.delete(
    "/api/v1/workspaces/:id/tokens/:token_id",
    {
      config: { scope: "workspaces:write", revokesToken: true },
      schema: {
        tags,
        operationId: "revokeWorkspaceToken",
        summary: "Revoke a workspace token",
        description:
          "Sets `revoked_at`; the token answers 401 from then on. Only a token holding every scope of the one revoked may (403 `insufficient_scope` naming the scopes it lacks).",
        params: WorkspaceTokenParams,
        response: { 200: TokenResponse, ...errorResponses(...authErrors, ...bodyErrors, 404) },
      },
    },
    async (request) => {
      const data = await revokeWorkspaceToken(
        db,
        clock,
        principalOf(request),
        request.params.id,
        request.params.token_id,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );
}
