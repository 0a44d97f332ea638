import { PageQuery } from "../../contract/pagination.js";
import {
  CreatedTokenResponse,
  CreateTokenBody,
  CurrentTokenResponse,
  TokenIdParams,
  TokenListResponse,
  TokenResponse,
} from "../../contract/tokens.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import {
  createResellerToken,
  listResellerTokens,
  revokeResellerToken,
} from "../domain/token-management.js";
import { currentToken } from "../domain/tokens.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Tokens"];

/**
 * Token endpoints: who am I, and managing the reseller's own tokens. Managing tokens is
 * account administration, so it takes `workspaces:write` (`workspaces:read` to list), and only
 * a reseller token may do it: a workspace token is refused with 403 whatever its scopes.
 */
export function tokenRoutes(app: App, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;

  app.get(
    "/api/v1/tokens/current",
    {
      config: { scope: "any" },
      schema: {
        tags,
        operationId: "getCurrentToken",
        summary: "Describe the token making the request",
        description:
          "Any valid token may read itself: its kind, scopes and workspace. `reseller login` uses it to check a token before saving it.",
        response: { 200: CurrentTokenResponse, ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request) => {
      const data = await currentToken(db, principalOf(request));
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.post(
    "/api/v1/tokens",
    {
      config: {
        scope: "workspaces:write",
        secretInResponse: true,
        resellerOnly: "create reseller tokens",
      },
      schema: {
        tags,
        operationId: "createToken",
        summary: "Create a reseller token",
        description:
          "The secret is in `token` of this response only. Scopes must be ones the creating token holds (422 otherwise). Reseller tokens only. A retry with the same Idempotency-Key replays this answer; it is stored sealed with the asking token, never readable.",
        body: CreateTokenBody,
        response: { 201: CreatedTokenResponse, ...errorResponses(...postErrors) },
      },
    },
    async (request, reply) => {
      const data = await createResellerToken(db, clock, principalOf(request), request.body);
      reply.code(201);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    "/api/v1/tokens",
    {
      config: { scope: "workspaces:read", resellerOnly: "list reseller tokens" },
      schema: {
        tags,
        operationId: "listTokens",
        summary: "List the reseller's tokens that are not revoked, newest first",
        description: "Never shows secrets, only `token_hint`. Reseller tokens only.",
        querystring: PageQuery,
        response: { 200: TokenListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listResellerTokens(db, principalOf(request), request.query);
      return { status: "success" as const, data, meta };
    },
  );

  app.delete(
    "/api/v1/tokens/:id",
    {
      config: {
        scope: "workspaces:write",
        revokesToken: true,
        resellerOnly: "revoke reseller tokens",
      },
      schema: {
        tags,
        operationId: "revokeToken",
        summary: "Revoke a reseller token",
        description:
          "Sets `revoked_at`; the token answers 401 from then on. Revoking again answers the same record. Reseller tokens only, and only a token holding every scope of the one revoked (403 `insufficient_scope` naming the scopes it lacks).",
        params: TokenIdParams,
        response: { 200: TokenResponse, ...errorResponses(...authErrors, ...bodyErrors, 404) },
      },
    },
    async (request) => {
      const data = await revokeResellerToken(db, clock, principalOf(request), request.params.id);
      return { status: "success" as const, data, meta: {} };
    },
  );
}
