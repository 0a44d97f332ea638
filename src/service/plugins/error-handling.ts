import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import {
  hasZodFastifySchemaValidationErrors,
  isResponseSerializationError,
} from "fastify-type-provider-zod";
import type { ErrorBody, ErrorDetail } from "../../contract/envelope.js";
import { type ErrorCode, errorCatalogue, quoted } from "../../contract/errors.js";
import { storableCopy } from "../../contract/storable-text.js";
import type { App } from "../app-types.js";
import { isDatabaseUnavailable, PoolExhaustedError } from "../db/database.js";
import { lockWaitLimitMs } from "../db/sqlite-writer-turns.js";
import { isWriteConflict } from "../db/write-conflicts.js";
import { newRequestId } from "../domain/ids.js";
import { invalidField, invalidFields, ServiceError } from "../domain/service-error.js";

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

function send(reply: FastifyReply, code: ErrorCode, message?: string, details?: ErrorDetail[]) {
  const cut = details !== undefined && details.length > answerDetails;
  const said = message ?? errorCatalogue[code].message;
  const body: ErrorBody = {
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
  return reply.code(errorCatalogue[code].status).type("application/json").send(body);
}

function fieldOf(context: string | undefined, instancePath: string): string {
  const path = instancePath.replace(/^\//, "").replaceAll("/", ".");
  if (path !== "") return path;
  return context === "body" ? "(body)" : (context ?? "(request)");
}

/** The value a validation error points at, or undefined where the request has none. */
function valueAt(request: FastifyRequest, context: string | undefined, instancePath: string) {
  const parts = instancePath.split("/").slice(1);
  let value: unknown =
    context === "body" ? request.body : context === "querystring" ? request.query : request.params;
  for (const part of parts) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * Whether the value a validation error points at is missing from the request (rather than there
 * with the wrong type): the two get different messages.
 */
function isAbsent(request: FastifyRequest, context: string | undefined, instancePath: string) {
  if (instancePath.split("/").length < 2) return false;
  return valueAt(request, context, instancePath) === undefined;
}

const typeNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
  null: "null",
};

const bounds: Record<string, string> = {
  ">=": "at least",
  ">": "more than",
  "<=": "at most",
  "<": "less than",
};

/**
 * zod's own wording, for a field whose schema gives none of its own ("Invalid input: expected
 * array, received string", "Too small: expected string to have >=1 characters"), said as the
 * service's messages say it: "events must be a list; got a string", "cursor must not be empty".
 * Any other message is kept.
 */
function plainZodMessage(instancePath: string, message: string, value: unknown): string {
  const leaf = instancePath.split("/").at(-1) || "the body";
  const wrongType = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (wrongType) {
    const [, expected = "", received = ""] = wrongType;
    return `${leaf} must be ${typeNames[expected] ?? expected}; got ${typeNames[received] ?? received}`;
  }
  const length =
    /^Too (?:small|big): expected (string|array) to have (>=|>|<=|<)(\d+) (?:characters|items)$/.exec(
      message,
    );
  if (length) {
    const [, kind = "", bound = "", limit = ""] = length;
    if (kind === "string" && bound === ">=" && limit === "1") return `${leaf} must not be empty`;
    const unit = kind === "string" ? "characters" : "items";
    return `${leaf} must have ${bounds[bound] ?? bound} ${limit} ${unit}`;
  }
  const size = /^Too (?:small|big): expected (number|int) to be (>=|>|<=|<)(\S+)$/.exec(message);
  if (size) {
    const [, kind = "", bound = "", limit = ""] = size;
    return `${leaf} must be ${typeNames[kind] ?? kind}, ${bounds[bound] ?? bound} ${limit}`;
  }
  const option = /^Invalid option: expected one of (.+)$/.exec(message);
  if (option) {
    const choices = (option[1] ?? "").split("|").map((choice) => choice.replace(/^"|"$/g, ""));
    const got = typeof value === "string" ? `; got ${quoted(value)}` : "";
    return `${leaf} must be one of ${choices.join(", ")}${got}`;
  }
  return message;
}

/**
 * How many times a query parameter that takes one value was given (`?search=a&search=b` parses
 * to an array), or 0: zod's "expected string, received array" would not say what went wrong.
 */
function repeatedTimes(request: FastifyRequest, context: string | undefined, instancePath: string) {
  if (context !== "querystring" || !/^\/[^/]+$/.test(instancePath)) return 0;
  const value = (request.query as Record<string, unknown> | undefined)?.[instancePath.slice(1)];
  return Array.isArray(value) ? value.length : 0;
}

/**
 * A missing field's message: "name is required: a string" from the type's "name must be a
 * string", so a client learns both that the field is missing and what it takes.
 */
function requiredMessage(instancePath: string, message: string | undefined): string {
  const leaf = instancePath.split("/").at(-1) ?? "";
  const expected = message?.startsWith(`${leaf} must be `)
    ? message.slice(`${leaf} must be `.length)
    : null;
  if (message?.startsWith(`${leaf} is required`)) return message;
  return expected ? `${leaf} is required: ${expected}` : `${leaf} is required`;
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
  const size =
    bytes >= 1024 * 1024
      ? `${Math.floor(bytes / (1024 * 1024))} MB`
      : `${Math.floor(bytes / 1024)} KB`;
  return `this endpoint takes (at most ${size})`;
}

/**
 * The route's body rules' problems (config.bodyRules) at fields its schema did not refuse: a
 * field the schema refused, or one inside it, is told once, as the schema said it.
 */
function bodyRuleProblems(
  request: FastifyRequest,
  context: string | undefined,
  refused: readonly ErrorDetail[],
): ErrorDetail[] {
  const rules = request.routeOptions.config.bodyRules;
  if (context !== "body" || !rules) return [];
  const told = (field: string) =>
    refused.some((r) => field === r.field || field.startsWith(`${r.field}.`));
  return rules(request.body).filter((problem) => !told(problem.field));
}

/** Turns every failure into the error envelope: never HTML, never a stack trace. */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ServiceError) {
    if (error.headers) reply.headers(error.headers);
    return send(reply, error.code, error.message, error.details);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const found = error.validation.flatMap((v): ErrorDetail[] => {
      // An unknown field is reported on its parent object; name each unknown field instead.
      const keys = v.keyword === "unrecognized_keys" ? v.params.keys : undefined;
      if (Array.isArray(keys)) {
        const parent = v.instancePath.replace(/^\/$/, "");
        return keys.map((key) => ({
          field: fieldOf(error.validationContext, `${parent}/${String(key)}`),
          message: "is not a field this endpoint accepts",
        }));
      }
      const field = fieldOf(error.validationContext, v.instancePath);
      // No body, or a body that is not an object: zod's "expected object, received null" says
      // less than what the endpoint wants.
      const noObject = field === "(body)" && /expected object/.test(v.message ?? "");
      const missing =
        v.keyword === "invalid_type" && isAbsent(request, error.validationContext, v.instancePath);
      const repeated = repeatedTimes(request, error.validationContext, v.instancePath);
      return [
        {
          field,
          message: noObject
            ? "the request needs a JSON object as its body (Content-Type: application/json)"
            : missing
              ? requiredMessage(v.instancePath, v.message)
              : repeated > 0
                ? `is given ${repeated} times in the query; give it once`
                : plainZodMessage(
                    v.instancePath,
                    v.message ?? "is invalid",
                    valueAt(request, error.validationContext, v.instancePath),
                  ),
        },
      ];
    });
    found.push(...bodyRuleProblems(request, error.validationContext, found));
    // A value can break two checks that say the same (page=1e20: not a safe integer, over the
    // maximum): each problem is named once.
    const seen = new Set<string>();
    const details = found.filter((d) => {
      const key = `${d.field}\0${d.message}`;
      return seen.has(key) ? false : Boolean(seen.add(key));
    });
    const refused = invalidFields(details);
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
    const { status, message } = errorCatalogue[code];
    const body = JSON.stringify({ status: "error", message, error_code: code } satisfies ErrorBody);
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

/** An unsupported_media_type error as fastify raises it, so handleError answers it alike. */
function unsupportedMediaType(): FastifyError {
  return Object.assign(new Error("Unsupported Media Type"), {
    code: "FST_ERR_CTP_INVALID_MEDIA_TYPE",
    name: "FastifyError",
    statusCode: 415,
  }) as FastifyError;
}

/** An invalid_json error as fastify's own parser raises it, so handleError answers it alike. */
function invalidJson(message: string): FastifyError {
  return Object.assign(new Error(message), {
    code: "FST_ERR_CTP_INVALID_JSON_BODY",
    name: "FastifyError",
    statusCode: 400,
  }) as FastifyError;
}

/**
 * JSON bodies: an empty body is no body (many HTTP wrappers send Content-Type: application/json
 * with every POST, launch and submit included), and bytes that are not UTF-8 are refused rather
 * than read as U+FFFD. Parsing itself stays fastify's (prototype poisoning refused).
 */
function installJsonBodies(app: App): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  app.removeContentTypeParser("application/json");
  // Fastify reads text/plain as a string by default, which then failed the body's check (422);
  // no route takes it, so a text/plain body is refused as every type no route takes (415). An
  // empty one is no body, as for JSON: a browser's fetch sends one with a body-less POST.
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("text/plain", { parseAs: "buffer" }, (_request, body, done) => {
    if ((body as Buffer).length === 0) done(null, undefined);
    else done(unsupportedMediaType(), undefined);
  });
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) {
      done(null, undefined);
      return;
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      done(invalidJson("The request body is not valid UTF-8."), undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      // Fastify refuses keys that would reach objects' prototypes with the error of JSON that
      // does not parse. When the text does parse (JSON.parse only reads it), that was the
      // reason, and the answer says so: a 422 on a route whose body is checked, a 400 (the
      // status every route documents for a body it cannot take) on one that takes no body.
      // An unknown route never reads its body: its 404 says more.
      if (error && parses(text)) {
        if (request.is404) done(null, undefined);
        else if (request.routeOptions.schema?.body !== undefined) {
          done(invalidField("(body)", prototypeKeys), undefined);
        } else {
          done(
            new ServiceError(
              "invalid_json",
              `The request body is JSON, but ${prototypeKeys}; this endpoint takes no body: send none.`,
            ),
            undefined,
          );
        }
        return;
      }
      done(error, parsed);
    });
  });
}

/** Why a body that parses as JSON is refused all the same (prototype poisoning). */
const prototypeKeys =
  "holds a key named __proto__, or constructor with a prototype, which is not accepted anywhere in a body";

/** Whether `text` is JSON (read by JSON.parse, which never touches a prototype). */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Bodies are read as sent: a compressed one (Content-Encoding: gzip…) was refused as text that
 * is not UTF-8, or as a CSV in the wrong encoding, which sent its client after the wrong fix.
 */
function refuseCompressedBodies(app: App): void {
  app.addHook("preParsing", async (request, _reply, payload) => {
    const encoding = request.headers["content-encoding"]?.trim() ?? "";
    const length = request.headers["content-length"];
    // Fastify never reads a GET's body, so neither is it refused there.
    const hasBody =
      request.method !== "GET" &&
      request.method !== "HEAD" &&
      (request.headers["transfer-encoding"] !== undefined ||
        (length !== undefined && length !== "0"));
    if (hasBody && encoding !== "" && encoding.toLowerCase() !== "identity") {
      throw new ServiceError(
        "unsupported_media_type",
        `The body is compressed (Content-Encoding: ${quoted(encoding)}), which the service does not accept: send it uncompressed, without a Content-Encoding header.`,
      );
    }
    return payload;
  });
}

/**
 * A path whose id is empty (`/api/v1/workspaces/`, a trailing slash) names no resource of its
 * route: it is no endpoint, as the documented paths say, not "Workspace '' was not found".
 */
function refuseEmptyIds(app: App): void {
  app.addHook("preValidation", async (request) => {
    if (request.is404) return;
    const params = Object.values((request.params ?? {}) as Record<string, unknown>);
    if (!params.includes("")) return;
    throw new ServiceError(
      "not_found",
      `No endpoint ${request.method} ${request.url.split("?")[0]}.`,
    );
  });
}

/**
 * An API route that takes no body (launch, cancel, submit, archive, a DELETE) refuses one that
 * says something: `{"dry_run": true}` sent to a launch would otherwise launch, as if the field had
 * been understood. No body, `{}` and `null` (what HTTP wrappers send with every POST) are none.
 */
function refuseBodiesOfBodilessRoutes(app: App): void {
  app.addHook("preValidation", async (request) => {
    if (request.is404 || !request.url.startsWith("/api/")) return;
    if (request.routeOptions.schema?.body !== undefined) return;
    const body: unknown = request.body;
    if (body === undefined || body === null) return;
    const fields =
      typeof body === "object" && !Array.isArray(body) ? Object.keys(body as object) : null;
    if (fields?.length === 0) return;
    const details = (fields ?? ["(body)"]).map((field) => ({
      field,
      message:
        field === "(body)"
          ? "this endpoint takes no body: send none (or {})"
          : "is not a field this endpoint accepts: it takes no body",
    }));
    throw invalidFields(details);
  });
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
