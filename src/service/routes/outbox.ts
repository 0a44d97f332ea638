import { OutboxListQuery, OutboxListResponse } from "../../contract/outbox.js";
import type { App } from "../app-types.js";
import { listOutbox } from "../domain/outbox-listing.js";
import { principalOf } from "../plugins/authentication.js";
import type { Services } from "../services.js";
import { authErrors, errorResponses } from "./responses.js";

/** GET /api/v1/outbox: the emails the service wrote (invitations), read-only. */
export function outboxRoutes(app: App, services: Services): void {
  app.get(
    "/api/v1/outbox",
    {
      config: { scope: "workspaces:read" },
      schema: {
        tags: ["Outbox"],
        operationId: "listOutbox",
        summary: "List the emails the service sent or queued (invitations), newest first",
        description:
          "Every email is kept here whether or not SMTP is configured; `delivery` says what became of it. A reseller token sees its own; a workspace token its workspace's. Filter with `workspace_id`.",
        querystring: OutboxListQuery,
        response: { 200: OutboxListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const page = await listOutbox(services.db, principalOf(request), request.query);
      return { status: "success" as const, ...page };
    },
  );
}
