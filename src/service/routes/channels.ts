import {
  ChannelListResponse,
  ChannelResponse,
  CreateChannelBody,
} from "../../contract/channels.js";
import { PageQuery } from "../../contract/pagination.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import { createChannel, listChannels } from "../domain/channels.js";
import { principalOf } from "../plugins/authentication.js";
import type { Services } from "../services.js";
import { authErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Channels"];

/** GET/POST /api/v1/workspaces/:id/channels: the numbers a workspace sends from. */
export function channelRoutes(app: App, services: Services): void {
  app.get(
    "/api/v1/workspaces/:id/channels",
    {
      config: { scope: "campaigns:read" },
      schema: {
        tags,
        operationId: "listChannels",
        summary: "List the workspace's channels (connected numbers), newest first",
        params: WorkspaceIdParams,
        querystring: PageQuery,
        response: { 200: ChannelListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const page = await listChannels(
        services.db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success" as const, data: page.rows, meta: { pagination: page.pagination } };
    },
  );

  app.post(
    "/api/v1/workspaces/:id/channels",
    {
      config: { scope: "campaigns:write" },
      schema: {
        tags,
        operationId: "createChannel",
        summary: "Connect a number to the workspace",
        description: `Locally the operator is the sandbox, which connects any valid E.164 number at once. 422 when the number is invalid or already connected.`,
        params: WorkspaceIdParams,
        body: CreateChannelBody,
        response: { 201: ChannelResponse, ...errorResponses(...postErrors, 404) },
      },
    },
    async (request, reply) => {
      const data = await createChannel(
        { db: services.db, clock: services.clock, provider: services.messaging.kind },
        principalOf(request),
        request.params.id,
        request.body,
      );
      return reply.code(201).send({ status: "success" as const, data, meta: {} });
    },
  );
}
