import { PageQuery } from "../../contract/pagination.js";
import {
  CreatedWebhookEndpointResponse,
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDeliveryListQuery,
  WebhookDeliveryListResponse,
  WebhookEndpointIdParams,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
} from "../../contract/webhooks.js";
import type { App } from "../app-types.js";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listDeliveryAttempts,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  type WebhookEndpointServices,
} from "../domain/webhook-endpoints.js";
import { principalOf } from "../plugins/authentication.js";
import { authErrors, bodyErrors, errorResponses, postErrors } from "./responses.js";

const tags = ["Webhooks"];
const base = "/api/v1/webhook-endpoints";

/** CRUD of the reseller's webhook endpoints and their delivery attempts; reseller tokens only. */
export function webhookEndpointRoutes(app: App, deps: WebhookEndpointServices): void {
  const { db } = deps;

  app.post(
    base,
    {
      config: {
        scope: "webhooks:write",
        secretInResponse: true,
        resellerOnly: "manage webhook endpoints",
      },
      schema: {
        tags,
        operationId: "createWebhookEndpoint",
        summary: "Add a webhook endpoint",
        description:
          'Events of the selected types (`["*"]` for all, the default) are POSTed to `url`, signed with the endpoint\'s secret. The secret (`whsec_…`) is in this response only (a retry with the same Idempotency-Key replays it; it is stored sealed with the asking token, never readable). Under `serve --block-private-webhooks` a URL whose host resolves to a loopback, private or link-local address is a 422.',
        body: CreateWebhookEndpointBody,
        response: { 201: CreatedWebhookEndpointResponse, ...errorResponses(...postErrors) },
      },
    },
    async (request, reply) => {
      const data = await createWebhookEndpoint(deps, principalOf(request), request.body);
      reply.code(201);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    base,
    {
      config: { scope: "webhooks:read", resellerOnly: "manage webhook endpoints" },
      schema: {
        tags,
        operationId: "listWebhookEndpoints",
        summary: "List the webhook endpoints, newest first",
        querystring: PageQuery,
        response: { 200: WebhookEndpointListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listWebhookEndpoints(db, principalOf(request), request.query);
      return { status: "success" as const, data, meta };
    },
  );

  app.get(
    `${base}/:id`,
    {
      config: { scope: "webhooks:read", resellerOnly: "manage webhook endpoints" },
      schema: {
        tags,
        operationId: "getWebhookEndpoint",
        summary: "Get a webhook endpoint",
        params: WebhookEndpointIdParams,
        response: { 200: WebhookEndpointResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const data = await getWebhookEndpoint(db, principalOf(request), request.params.id);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.patch(
    `${base}/:id`,
    {
      config: { scope: "webhooks:write", resellerOnly: "manage webhook endpoints" },
      schema: {
        tags,
        operationId: "updateWebhookEndpoint",
        summary: "Change a webhook endpoint's url, events, enabled or description",
        description:
          "Only the given fields change. A disabled endpoint gets no new deliveries, and its pending ones end unsent.",
        params: WebhookEndpointIdParams,
        body: UpdateWebhookEndpointBody,
        response: {
          200: WebhookEndpointResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 422),
        },
      },
    },
    async (request) => {
      const data = await updateWebhookEndpoint(
        deps,
        principalOf(request),
        request.params.id,
        request.body,
      );
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.delete(
    `${base}/:id`,
    {
      config: { scope: "webhooks:write", resellerOnly: "manage webhook endpoints" },
      schema: {
        tags,
        operationId: "deleteWebhookEndpoint",
        summary: "Delete a webhook endpoint",
        description: "Pending deliveries to it end unsent; answers the endpoint as it was.",
        params: WebhookEndpointIdParams,
        response: {
          200: WebhookEndpointResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404),
        },
      },
    },
    async (request) => {
      const data = await deleteWebhookEndpoint(db, principalOf(request), request.params.id);
      return { status: "success" as const, data, meta: {} };
    },
  );

  app.get(
    `${base}/:id/deliveries`,
    {
      config: { scope: "webhooks:read", resellerOnly: "manage webhook endpoints" },
      schema: {
        tags,
        operationId: "listWebhookDeliveries",
        summary: "List an endpoint's delivery attempts, newest first",
        description:
          "Each attempt with the receiver's status code, how long it took and the error, if any.",
        params: WebhookEndpointIdParams,
        querystring: WebhookDeliveryListQuery,
        response: { 200: WebhookDeliveryListResponse, ...errorResponses(...authErrors, 404, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listDeliveryAttempts(
        db,
        principalOf(request),
        request.params.id,
        request.query,
      );
      return { status: "success" as const, data, meta };
    },
  );
}
