import type { App } from "../app-types.js";

/** Echoes the request id on every response and writes one JSON log line per request. */
export function installRequestLogging(app: App): void {
  // Callback hooks rather than async ones: neither waits for anything, and on every request
  // a promise each is measurable.
  app.addHook("onSend", (request, reply, _payload, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        // The path only: query strings carry secrets (Meta's hub.verify_token, sign-in codes).
        url: request.url.split("?", 1)[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        token: request.principal?.tokenId,
      },
      "request",
    );
    done();
  });
}
