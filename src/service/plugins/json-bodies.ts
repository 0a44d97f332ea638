import type { FastifyError, FastifyRequest } from "fastify";
import { quoted } from "../../contract/errors.js";
import type { App } from "../app-types.js";
import { invalidField, ServiceError } from "../domain/service-error.js";

/** An unsupported_media_type error as fastify raises it, so the error handler (error-handling.ts) answers it alike. */
function unsupportedMediaType(): FastifyError {
  return Object.assign(new Error("Unsupported Media Type"), {
    code: "FST_ERR_CTP_INVALID_MEDIA_TYPE",
    name: "FastifyError",
    statusCode: 415,
  }) as FastifyError;
}

/** An invalid_json error as fastify's own parser raises it, so the error handler (error-handling.ts) answers it alike. */
export function invalidJson(message: string): FastifyError {
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
export function installJsonBodies(app: App): void {
  const parseJson = jsonBytesParser(app);
  app.removeContentTypeParser("application/json");
  // Fastify reads text/plain as a string by default, which then failed the body's check (422);
  // no route takes it, so a text/plain body is refused as every type no route takes (415). An
  // empty one is no body, as for JSON: a browser's fetch sends one with a body-less POST.
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("text/plain", { parseAs: "buffer" }, (_request, body, done) => {
    if ((body as Buffer).length === 0) done(null, undefined);
    else done(unsupportedMediaType(), undefined);
  });
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) =>
    parseJson(request, body as Buffer, done),
  );
}

/** A JSON body's bytes as fastify's parsers are called with them. */
export type JsonBytesParser = (
  request: FastifyRequest,
  bytes: Buffer,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/**
 * Reads a JSON body's bytes as every route does (installJsonBodies): an empty body is none, bytes
 * that are not UTF-8 are a 400, and keys reaching prototypes are refused.
 */
export function jsonBytesParser(app: App): JsonBytesParser {
  const parseText = app.getDefaultJsonParser("error", "error");
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  return (request, bytes, done) => {
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
    parseText(request, text, (error, parsed) => {
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
  };
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
export function refuseCompressedBodies(app: App): void {
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
