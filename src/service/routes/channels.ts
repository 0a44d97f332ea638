import {
  ChannelIdParams,
  ChannelListResponse,
  ChannelResponse,
  CreateChannelBody,
} from "../../contract/channels.js";
import { PageQuery } from "../../contract/pagination.js";
import { WorkspaceIdParams } from "../../contract/workspaces.js";
import type { App } from "../app-types.js";
import { createChannel, getChannel, listChannels } from "../domain/channels.js";
import { principalOf } from "../plugins/authentication.js";
import type { Services } from "../services.js";
import { authErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Channels"];

/** GET/POST /api/v1/workspaces/:id/channels and GET …/channels/:channel_id: the numbers a workspace sends from. */
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

  app.get(
    "/api/v1/workspaces/:id/channels/:channel_id",
    {
      config: { scope: "campaigns:read" },
      schema: {
        tags,
        operationId: "getChannel",
        summary: "Get one channel, with Meta's verified name and quality rating for a cloud number",
        params: ChannelIdParams,
        response: { 200: ChannelResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getChannel(
        services.db,
        principalOf(request),
        request.params.id,
        request.params.channel_id,
      );
      return { status: "success" as const, data, meta: {} };
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
        description:
          "`provider: sandbox` (default) connects any valid E.164 `phone` at once. `provider: whatsapp_cloud` takes `phone_number_id`, `waba_id` and `access_token`, checks the number with Meta's Graph API (GET /<phone_number_id>) and keeps its display number, verified name and quality rating; the token is stored encrypted and never returned. A channel Meta disconnected (its token refused, code 190) is connected again by adding its number again with a fresh token: 200 with the same channel, `connected`. 409 `channel_exists` naming the field when the number is connected already (in this workspace: which channel); 422 naming the field when the number is invalid, Meta refuses the token or id, or the service has no RESELLER_SECRET_KEY; 503 when Meta cannot be reached.",
        params: WorkspaceIdParams,
        body: CreateChannelBody,
        response: {
          200: ChannelResponse,
          201: ChannelResponse,
          ...errorResponses(...postErrors, 404, 503),
        },
      },
    },
    async (request, reply) => {
      const { channel, reconnected } = await createChannel(
        services,
        principalOf(request),
        request.params.id,
        request.body,
      );
      return reply
        .code(reconnected ? 200 : 201)
        .send({ status: "success" as const, data: channel, meta: {} });
    },
  );
}
