import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import {
  hasZodFastifySchemaValidationErrors,
  isResponseSerializationError,
} from "fastify-type-provider-zod";
import type { ErrorBody, ErrorDetail } from "../../contract/envelope.js";
import { type ErrorCode, errorCatalogue } from "../../contract/errors.js";
import { megabytes } from "../../contract/numbers.js";
import { storableCopy } from "../../contract/storable-text.js";
import type { App } from "../app-types.js";
import { isDatabaseUnavailable } from "../db/database-errors.js";
import { PoolExhaustedError } from "../db/postgres-pool.js";
import { lockWaitLimitMs } from "../db/sqlite-writer-turns.js";
import { isWriteConflict } from "../db/write-conflicts.js";
import { newRequestId } from "../domain/ids.js";
import { invalidFields, ServiceError } from "../domain/service-error.js";
import { installJsonBodies, refuseCompressedBodies } from "./json-bodies.js";
import { refuseBodiesOfBodilessRoutes, refuseEmptyIds } from "./request-guards.js";
import { validationDetails } from "./validation-messages.js";

/** Fastify's own errors that are the client's fault, by their code. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_json",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_json",
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_json",
};

/**
 * The most characters of an answer's message, or of a detail's field or message. Messages quote
 * values cut short (`quoted`); this holds for any that does not, so no request can make its
 * error answer as large as itself.
 */
const answerTextLength = 2000;

function bounded(said: string): string {
  // Quoted text is shown as it can be stored and printed: a NUL would end a C string in a
  // reader's terminal, and half a surrogate pair is not valid UTF-8.
  const text = storableCopy(said);
  if (text.length <= answerTextLength) return text;
  let cut = text.slice(0, answerTextLength - 1);
  // Never half an emoji: a lone surrogate is not valid text.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * The most details an answer lists: a body of 50,000 unknown fields would otherwise get an
 * answer several times its own size. The message says how many there were.
 */
const answerDetails = 100;

/** The error envelope of `code`: the catalogue's message unless told another, texts bounded. */
export function errorBody(code: ErrorCode, message?: string, details?: ErrorDetail[]): ErrorBody {
  const cut = details !== undefined && details.length > answerDetails;
  const said = message ?? errorCatalogue[code].message;
  return {
    status: "error",
    message: cut
      ? `${bounded(said)} (details lists the first ${answerDetails} of ${details.length.toLocaleString("en-US")} problems)`
      : bounded(said),
    error_code: code,
    ...(details
      ? {
          details: details.slice(0, answerDetails).map((d) => ({
            ...d,
            field: bounded(d.field),
            message: bounded(d.message),
          })),
        }
      : {}),
  };
}

function send(reply: FastifyReply, code: ErrorCode, message?: string, details?: ErrorDetail[]) {
  return reply
    .code(errorCatalogue[code].status)
    .type("application/json")
    .send(errorBody(code, message, details));
}

/** A 503 of the database's: the log line, the Retry-After and what the client is told. */
interface Unavailable {
  level: "warn" | "error";
  log: string;
  retryAfter: string;
  message: string;
}

/** Whether `error` is the database unable to do the work now (retry later), and how to answer. */
function databaseUnavailable(error: FastifyError): Unavailable | null {
  if (isWriteConflict(error)) {
    // A concurrent request (on this instance or another) wrote the same thing first; nothing of
    // this one was kept, and a retry sees the other's result.
    const busy = (error as { code?: unknown }).code === "SQLITE_BUSY";
    return {
      level: "warn",
      log: "write conflict with a concurrent request",
      retryAfter: "1",
      message: busy
        ? `The database was busy with other writes (such as a large import) for ${lockWaitLimitMs / 1000} s; nothing was written. Retry the request.`
        : "A concurrent request changed the same data; nothing was written. Retry the request.",
    };
  }
  if (error instanceof PoolExhaustedError) {
    return {
      level: "error",
      log: "no database connection free",
      retryAfter: "5",
      message:
        "Every database connection of this instance stayed busy; nothing was done. Retry the request.",
    };
  }
  if (isDatabaseUnavailable(error)) {
    // An outage /readyz reports too: the load balancer moves on, clients wait and retry.
    return {
      level: "error",
      log: "the database does not answer",
      retryAfter: "5",
      message:
        "The database does not answer; the request may not have been carried out. Retry it (a POST with the same Idempotency-Key).",
    };
  }
  return null;
}

/** The error of reading a body whose client closed the connection before sending all of it. */
function isBodyCutShort(error: FastifyError, request: FastifyRequest): boolean {
  const reset = error.code === "ECONNRESET" || error.message === "aborted";
  return reset && !request.raw.complete && request.raw.readableAborted;
}

/** The body limit of the request's route, as a client reads it ("this endpoint takes at most 1 MB"). */
function sizeLimitOf(request: FastifyRequest): string {
  const bytes = request.routeOptions.bodyLimit;
  if (bytes === undefined) return "allowed";
  const size = bytes >= 1024 * 1024 ? megabytes(bytes) : `${Math.floor(bytes / 1024)} KB`;
  return `this endpoint takes (at most ${size})`;
}

/** Turns every failure into the error envelope: never HTML, never a stack trace. */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ServiceError) {
    if (error.headers) reply.headers(error.headers);
    return send(reply, error.code, error.message, error.details);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const refused = invalidFields(validationDetails(error, request));
    return send(reply, refused.code, refused.message, refused.details);
  }
  const mapped = error.code ? fastifyCodes[error.code] : undefined;
  if (mapped === "unsupported_media_type") {
    const type = request.headers["content-type"]?.split(";", 1)[0] ?? "none";
    return send(
      reply,
      mapped,
      `The body's Content-Type (${type}) is not accepted: send application/json; a contact import also takes text/csv, the file itself as the body.`,
    );
  }
  if (mapped === "payload_too_large") {
    return send(reply, mapped, `The request body is larger than ${sizeLimitOf(request)}.`);
  }
  if (mapped) {
    const own = mapped === "invalid_json" && error.message.includes("UTF-8");
    return send(reply, mapped, mapped === "invalid_json" && !own ? undefined : error.message);
  }
  if (error.statusCode === 429) return send(reply, "rate_limited");
  // A client that hung up before its body ended: the reset of the body's stream is no
  // database's fault. (Any other error of a request whose client has gone is reported as itself.)
  if (isBodyCutShort(error, request)) {
    request.log.info(
      { err: error },
      "the client closed the connection before the request's body ended",
    );
    return send(reply, "bad_request", "The request's body ended before its Content-Length.");
  }
  const unavailable = databaseUnavailable(error);
  if (unavailable) {
    request.log[unavailable.level]({ err: error }, unavailable.log);
    reply.header("retry-after", unavailable.retryAfter);
    return send(reply, "service_unavailable", unavailable.message);
  }
  if (!isResponseSerializationError(error) && error.statusCode && error.statusCode < 500) {
    return send(reply, "validation_failed", error.message);
  }
  request.log.error({ err: error }, "unhandled error");
  return send(reply, "internal_error");
}

/** Routes as patterns, to tell a wrong method (405) from an unknown path (404). */
function routeMatcher(app: App) {
  const routes: { methods: string[]; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const methods = ([] as string[]).concat(route.method);
    const source = route.url
      .split("/")
      .map((part) =>
        part.startsWith(":")
          ? "[^/]+"
          : part === "*"
            ? ".*"
            : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    routes.push({ methods, pattern: new RegExp(`^${source}$`) });
  });
  return (path: string) => routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods);
}

/**
 * Errors the router raises before any route runs (fastify's `frameworkErrors` option): a path
 * whose percent-escapes do not decode, and a path parameter too long to be any id.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // Outside any route, so no hook adds what every answer carries.
  reply.header("x-request-id", request.id);
  request.server.announceBudget(request, reply);
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return send(reply, "not_found", "No resource has an id that long.");
  }
  return send(reply, "invalid_url");
}

/**
 * Requests Node's HTTP parser refuses before fastify sees them (headers over 16 KB, too many
 * headers, a malformed request line): the error envelope, an X-Request-Id and the client
 * address's RateLimit-* headers (`budgetOf`) like any other answer, instead of Node's or
 * fastify's bare reply. Fastify's `clientErrorHandler` option.
 */
export function clientErrorHandlerWith(
  budgetOf: (address: string) => Record<string, number>,
): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === "HPE_HEADER_OVERFLOW" ? "headers_too_large" : "bad_request";
    const { status } = errorCatalogue[code];
    const body = JSON.stringify(errorBody(code));
    const reason = code === "headers_too_large" ? "Request Header Fields Too Large" : "Bad Request";
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress;
    const budget = Object.entries(address === undefined ? {} : budgetOf(address))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${newRequestId()}\r\n${budget}Connection: close\r\n\r\n${body}`,
    );
  };
}

/** Installs the error handler and the JSON 404/405 for unknown routes. */
export function installErrorHandling(app: App): void {
  installJsonBodies(app);
  refuseCompressedBodies(app);
  refuseEmptyIds(app);
  refuseBodiesOfBodilessRoutes(app);
  const allowedMethods = routeMatcher(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      reply.header("allow", [...new Set(allowed)].join(", "));
      return send(
        reply,
        "method_not_allowed",
        `${request.method} is not allowed on ${path}; use ${[...new Set(allowed)].join(" or ")}.`,
      );
    }
    return send(reply, "not_found", `No endpoint ${request.method} ${path}.`);
  });
}
