import { z } from "zod";
import {
  EventIdParams,
  EventListQuery,
  EventListResponse,
  EventResponse,
  EventStreamQuery,
  RedeliverBody,
  RedeliveryResponse,
} from "../../contract/events.js";
import { eventTypes, splitEventTypes } from "../../contract/vocabulary.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import {
  eventsAfter,
  listEvents,
  loadEvent,
  type StreamPosition,
  sequenceEvents,
  streamStart,
  toEvent,
} from "../domain/events.js";
import { invalidField, ServiceError } from "../domain/service-error.js";
import { type Principal, stillAuthorised } from "../domain/tokens.js";
import { redeliverEvent } from "../domain/webhook-delivery.js";
import { principalOf } from "../plugins/authentication.js";
import { openSse, type SseStream } from "../server-sent-events.js";
import type { JobScheduler } from "../services.js";
import { authErrors, bodyErrors, errorResponses } from "./responses.js";

const tags = ["Events"];

/** How often an open stream looks for new events. */
const streamPollMs = 500;
/** Open streams per token on one instance: each polls the database twice a second. */
const maxStreamsPerToken = 5;

function parseTypes(text: string | undefined): string[] {
  if (text === undefined || text.trim() === "") return [];
  const { types, unknown } = splitEventTypes(text);
  if (unknown.length > 0) {
    throw invalidField(
      "types",
      `unknown event types ${unknown.join(", ")}; known: ${eventTypes.join(", ")}`,
    );
  }
  return types;
}

/**
 * Writes the caller's new events to `stream` until it ends: polls the event log, so it sees
 * events of every instance sharing the database.
 */
function streamEvents(
  deps: { db: Db; clock: Clock },
  principal: Principal,
  stream: SseStream,
  startAfter: StreamPosition,
  types: readonly string[],
): () => void {
  const { db, clock } = deps;
  let after = startAfter;
  let busy = false;
  const poll = async () => {
    if (busy || stream.ended) return;
    busy = true;
    try {
      // A token revoked (or expired) while the stream is open ends it within a poll: the
      // client's reconnect then gets its 401.
      if (!(await stillAuthorised(db, clock, principal))) {
        stream.send({ comment: "the token no longer works" });
        end();
        return;
      }
      // A failed run (a busy database) only delays the new events to a later poll; the events
      // placed already still go out now.
      await sequenceEvents(db).catch(() => undefined);
      for (const { event, position } of await eventsAfter(db, principal, after.seq, types)) {
        stream.send({ id: event.id, event: event.type, data: JSON.stringify(event) });
        after = position;
      }
    } catch {
      // A closed database during shutdown ends the stream below; nothing to tell the client.
    } finally {
      busy = false;
    }
  };
  const pollTimer = setInterval(() => void poll(), streamPollMs);
  const end = () => {
    clearInterval(pollTimer);
    stream.end();
  };
  return end;
}

/** The event log, one event, redelivery and the live stream (`reseller listen` reads it). */
export function eventRoutes(app: App, deps: { db: Db; clock: Clock; jobs: JobScheduler }): void {
  const { db, clock } = deps;
  const streams = new Set<() => void>();
  const openPerToken = new Map<string, number>();
  // Open streams would hold the server open: end them before it closes.
  app.addHook("preClose", async () => {
    for (const end of streams) end();
  });

  app.get(
    "/api/v1/events",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        operationId: "listEvents",
        summary: "List events of the last 30 days, newest first",
        description:
          "Filter by `type` and `workspace_id`; page with `cursor`. A workspace token sees its workspace's events.",
        querystring: EventListQuery,
        response: { 200: EventListResponse, ...errorResponses(...authErrors, 422) },
      },
    },
    async (request) => {
      const { data, meta } = await listEvents(db, clock, principalOf(request), request.query);
      return { status: "success" as const, data, meta };
    },
  );

  app.get(
    "/api/v1/events/stream",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        operationId: "streamEvents",
        summary: "Stream events as they happen (Server-Sent Events)",
        description:
          "`text/event-stream`: each event as `id: evt_…`, `event: <type>`, `data: <the event as JSON>`, from the moment of connecting (or after the `Last-Event-ID` header's event). For a reseller token the stream opens with an `id:` alone, the position it streams from (`evt_0` before any event), so a client that reconnects with it misses nothing. A comment line every 15 seconds keeps idle connections open.",
        querystring: EventStreamQuery,
        response: {
          200: z.string().describe("An endless text/event-stream."),
          ...errorResponses(...authErrors, 422),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if ((openPerToken.get(principal.tokenId) ?? 0) >= maxStreamsPerToken) {
        throw new ServiceError(
          "rate_limited",
          `A token may hold at most ${maxStreamsPerToken} event streams open at once (per instance); close one first.`,
          { headers: { "retry-after": "5" } },
        );
      }
      const types = parseTypes(request.query.types);
      const lastId = request.headers["last-event-id"];
      const startAfter = await streamStart(
        db,
        principal,
        typeof lastId === "string" && lastId.startsWith("evt_") ? lastId : undefined,
      );
      // Headers set on the reply so far (RateLimit-*) are not sent by a hijacked reply: carry them.
      const earlier = Object.fromEntries(
        Object.entries(reply.getHeaders()).filter(
          (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
        ),
      );
      reply.hijack();
      const stream = openSse(reply.raw, { ...earlier, "x-request-id": request.id });
      // Where the stream starts, as an SSE id without data (EventSource keeps it as the last
      // event id): a client that must reconnect before any event came resumes from here, not
      // from the moment of its reconnect. Not for a workspace token: the reseller's newest
      // event may be another workspace's.
      const position = principal.workspaceId === null ? startAfter.id || "evt_0" : undefined;
      stream.send({ comment: "connected", ...(position ? { id: position } : {}) });
      const end = streamEvents({ db, clock }, principal, stream, startAfter, types);
      streams.add(end);
      openPerToken.set(principal.tokenId, (openPerToken.get(principal.tokenId) ?? 0) + 1);
      reply.raw.on("close", () => {
        end();
        streams.delete(end);
        const left = (openPerToken.get(principal.tokenId) ?? 1) - 1;
        if (left > 0) openPerToken.set(principal.tokenId, left);
        else openPerToken.delete(principal.tokenId);
      });
    },
  );

  app.get(
    "/api/v1/events/:id",
    {
      config: { scope: "webhooks:read" },
      schema: {
        tags,
        operationId: "getEvent",
        summary: "Get an event",
        params: EventIdParams,
        response: { 200: EventResponse, ...errorResponses(...authErrors, 404) },
      },
    },
    async (request) => {
      const row = await loadEvent(db, clock, principalOf(request), request.params.id);
      return { status: "success" as const, data: toEvent(row), meta: {} };
    },
  );

  app.post(
    "/api/v1/events/:id/redeliver",
    {
      config: { scope: "webhooks:write", resellerOnly: "redeliver events" },
      schema: {
        tags,
        operationId: "redeliverEvent",
        summary: "Send an event to the webhook endpoints again",
        description:
          "Queues a new delivery to every enabled endpoint subscribed to the event's type, or to the one `endpoint_id` names (a 422 when it is disabled). Answers 202 with the queued deliveries. Endpoints are the reseller's: a workspace token is refused (403 `insufficient_scope`).",
        params: EventIdParams,
        body: RedeliverBody,
        response: {
          202: RedeliveryResponse,
          ...errorResponses(...authErrors, ...bodyErrors, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const data = await redeliverEvent(
        { db, clock, poke: deps.jobs.poke },
        principalOf(request),
        request.params.id,
        request.body?.endpoint_id,
      );
      reply.code(202);
      return { status: "success" as const, data, meta: {} };
    },
  );
}
