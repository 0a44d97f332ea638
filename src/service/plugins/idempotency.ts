import { createHash } from "node:crypto";
import type {
  FastifyReply,
  FastifyRequest,
  onRequestAbortAsyncHookHandler,
  onResponseAsyncHookHandler,
  onSendAsyncHookHandler,
  preValidationAsyncHookHandler,
} from "fastify";
import { errorCatalogue } from "../../contract/errors.js";
import type { App } from "../app-types.js";
import { importBodyLimitBytes } from "../body-limits.js";
import type { Db } from "../db/database.js";
import type { Clock } from "../domain/clock.js";
import {
  type Claim,
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyKeyRef,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  type StoredResponse,
} from "../domain/idempotency.js";
import { isSealed, openBody, sealBody } from "../domain/sealed-responses.js";
import { invalidField, ServiceError } from "../domain/service-error.js";
import { bearerSecret } from "./authentication.js";
import { errorBody } from "./error-handling.js";
import { digestedBodyOf } from "./streamed-bodies.js";

/** A key this request holds until its response is stored. */
interface HeldKey {
  ref: IdempotencyKeyRef;
  /**
   * For a body read as a stream, the fingerprint to store once the route has read it (the rest
   * of the request and the bytes' hash); null while the body is not read to its end.
   */
  streamedHash?: () => string | null;
  /** Whether the claim has been settled in the database: response stored or key given back. */
  settled: boolean;
  /** Lets duplicates waiting in this process go on; safe to call more than once. */
  finish: () => void;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The Idempotency-Key this POST claimed, if it sent one. */
    idempotencyKey: HeldKey | null;
  }
}

const maxKeyLength = 255;
/**
 * How long a duplicate waits for its key's first request running on another instance (several
 * instances share the keys) before answering 409: long enough for an ordinary request to finish
 * and be replayed, short enough that a claim whose instance died answers quickly.
 */
const otherInstanceWaitMs = 2000;
const otherInstancePollMs = 25;
const purgeEveryMs = 60 * 60 * 1000;

/** Response headers that describe this delivery rather than the result, so are not replayed. */
const perDeliveryHeaders = new Set([
  "x-request-id",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-policy",
  "retry-after",
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "idempotent-replayed",
]);

/** JSON with object keys sorted, so the same body in another key order is the same request. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** What makes two requests "the same": method, path with query, and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const text = canonicalJson([method, url, body ?? null]);
  return createHash("sha256").update(text).digest("hex");
}

/** The fingerprint of a streamed request: that of the rest of it, and its bytes' SHA-256. */
function bodyFingerprint(basis: string, bodyDigest: string): string {
  return createHash("sha256").update(`${basis}\n${bodyDigest}`).digest("hex");
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers["idempotency-key"];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(", ") : header;
  // HTTP drops a header value's surrounding spaces, so a key of spaces arrives empty: the
  // length would not tell its sender what went wrong.
  if (key.trim() === "") {
    throw invalidField(
      "Idempotency-Key",
      `must not be blank: send 1 to ${maxKeyLength} characters, or no Idempotency-Key header`,
    );
  }
  if ([...headerCharacters(key)].length > maxKeyLength) {
    throw invalidField("Idempotency-Key", `must be 1 to ${maxKeyLength} characters`);
  }
  return key;
}

/**
 * A header value's characters: Node hands a header's bytes over one per character, so a key
 * sent as UTF-8 (`é` is two bytes) is read back as UTF-8 to be counted as its sender wrote it.
 */
function headerCharacters(value: string): string {
  const text = Buffer.from(value, "latin1").toString("utf8");
  return text.includes("\uFFFD") ? value : text;
}

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply
    .code(response.status)
    .headers(response.headers)
    .header("idempotent-replayed", "true")
    .send(response.body);
}

/**
 * What the replay of an answer that revealed a secret says when the stored answer cannot be
 * opened (sealed for another token, or changed): never the secret itself.
 */
function secretNotReplayable(): StoredResponse {
  return {
    status: errorCatalogue.secret_not_replayable.status,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(
      errorBody("secret_not_replayable", undefined, [
        { field: "Idempotency-Key", message: "was used before" },
      ]),
    ),
  };
}

/** What seals and opens the stored answers of a route that reveals a secret. */
interface Sealing {
  callerSecret: string;
  context: string;
}

/** How this request's answer is sealed when its route reveals a secret (else null). */
function sealingOf(request: FastifyRequest, ref: IdempotencyKeyRef): Sealing | null {
  if (!request.routeOptions.config.secretInResponse) return null;
  const callerSecret = bearerSecret(request);
  return callerSecret === null ? null : { callerSecret, context: `${ref.tokenId}\n${ref.key}` };
}

function storable(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  ref: IdempotencyKeyRef,
): StoredResponse | null {
  if (reply.statusCode >= 500) return null;
  const text =
    typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? `${payload}` : null;
  if (text === null) return null;
  let body = text;
  if (request.routeOptions.config.secretInResponse && reply.statusCode < 300) {
    const sealing = sealingOf(request, ref);
    if (!sealing) return secretNotReplayable();
    body = sealBody(text, sealing.callerSecret, sealing.context);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || perDeliveryHeaders.has(name.toLowerCase())) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return { status: reply.statusCode, headers, body };
}

/** A stored answer as it is replayed: a sealed one opened with the retry's own token. */
function replayable(request: FastifyRequest, ref: IdempotencyKeyRef, stored: StoredResponse) {
  if (!isSealed(stored.body)) return stored;
  const sealing = sealingOf(request, ref);
  const body = sealing && openBody(stored.body, sealing.callerSecret, sealing.context);
  return body ? { ...stored, body } : secretNotReplayable();
}

/** Marks a key as held by a request of this process until `finish` is called. */
function startFlight(
  inFlight: Map<string, Promise<void>>,
  flightId: string,
  ref: IdempotencyKeyRef,
): HeldKey {
  let resolveFlight = () => {};
  const flight = new Promise<void>((resolve) => {
    resolveFlight = resolve;
  });
  inFlight.set(flightId, flight);
  return {
    ref,
    settled: false,
    finish: () => {
      if (inFlight.get(flightId) === flight) inFlight.delete(flightId);
      resolveFlight();
    },
  };
}

/**
 * `Idempotency-Key` for every authenticated POST, in one place. The first request with a key
 * claims it and its response (anything but a 5xx) is stored for 24 hours of the service's
 * clock; the same key and body from the same token replays it with `Idempotent-Replayed: true`
 * and does nothing again; another body is 422 idempotency_key_reused. A duplicate arriving
 * while the first is still running waits for it (here, or up to 2 s when another instance runs
 * it) and then replays, so even concurrent retries do the work once.
 */
export function installIdempotency(app: App, deps: { db: Db; clock: Clock }): void {
  const { db, clock } = deps;
  /** Requests of this process holding (or claiming) a key, by token and key. */
  const inFlight = new Map<string, Promise<void>>();
  let lastPurge = 0;

  app.decorateRequest("idempotencyKey", null);

  // preValidation: the body is parsed but not yet validated, so an invalid request with a key
  // is stored and replayed like any other 4xx, and the fingerprint is of the body as sent.
  const claimKey: preValidationAsyncHookHandler = async (request, reply) => {
    if (request.principal === null) return;
    const key = keyOf(request);
    if (key === undefined) return;
    const ref = { tokenId: request.principal.tokenId, key };
    const flightId = `${ref.tokenId}\n${key}`;
    let requestHash: string;
    try {
      requestHash = requestFingerprint(request.method, request.url, request.body);
    } catch (error) {
      // Only a body nested thousands of levels deep overflows the canonical form; no field is that deep.
      if (error instanceof RangeError) throw invalidField("(body)", "is nested too deeply");
      throw error;
    }

    if (clock.now().getTime() - lastPurge > purgeEveryMs) {
      lastPurge = clock.now().getTime();
      await purgeExpiredIdempotencyKeys(db, clock);
    }

    // A body read as a stream (a CSV import) is first claimed by the rest of the request; a
    // key found taken is then compared by the body's bytes too, read for their hash.
    const streamed = digestedBodyOf(request);
    const basis = requestHash;
    let bodyRead = false;
    let waitUntil: number | undefined;
    for (;;) {
      const running = inFlight.get(flightId);
      if (running) {
        await running;
        continue;
      }
      // Registered before the claim's await, so a duplicate arriving meanwhile waits on it.
      const held = startFlight(inFlight, flightId, ref);
      let claim: Claim;
      try {
        claim = await claimIdempotencyKey(db, clock, ref, requestHash);
      } catch (error) {
        held.finish();
        throw error;
      }
      if (claim.outcome === "claimed" && bodyRead) {
        // The key expired meanwhile, and this request's body has been read for its hash:
        // nothing is left to run it with.
        held.finish();
        await releaseIdempotencyKey(db, ref);
        throw new ServiceError("idempotency_request_in_progress", undefined, {
          headers: { "retry-after": "1" },
        });
      }
      if (claim.outcome === "claimed") {
        if (streamed) {
          held.streamedHash = () => {
            const digest = streamed.digest();
            return digest === null ? null : bodyFingerprint(basis, digest);
          };
        }
        request.idempotencyKey = held;
        return;
      }
      held.finish();
      if (claim.outcome === "replay")
        return replay(reply, replayable(request, ref, claim.response));
      if (claim.outcome === "reused" && streamed && !bodyRead) {
        bodyRead = true;
        const digest = await streamed.drain(importBodyLimitBytes);
        if (digest === null) throw new ServiceError("payload_too_large");
        requestHash = bodyFingerprint(basis, digest);
        continue;
      }
      if (claim.outcome === "reused") {
        throw new ServiceError("idempotency_key_reused", undefined, {
          details: [
            {
              field: "Idempotency-Key",
              message: "was first used with a different request; use a new key for this one",
            },
          ],
        });
      }
      // Held by another instance: its response is likely moments away, so wait and replay it.
      waitUntil ??= performance.now() + otherInstanceWaitMs;
      if (performance.now() < waitUntil) {
        await new Promise((resolve) => setTimeout(resolve, otherInstancePollMs));
        continue;
      }
      throw new ServiceError("idempotency_request_in_progress", undefined, {
        headers: { "retry-after": String(claim.retryAfterSeconds) },
      });
    }
  };

  const store: onSendAsyncHookHandler = async (request, reply, payload) => {
    const held = request.idempotencyKey;
    if (!held || held.settled) return payload;
    held.settled = true;
    try {
      const response = storable(request, reply, payload, held.ref);
      // A streamed body refused before its end is not known whole: the key is given back, and
      // a retry runs again (a refused upload stored nothing).
      const requestHash = held.streamedHash?.();
      if (response && requestHash !== null) {
        await completeIdempotencyKey(db, held.ref, response, requestHash);
      } else await releaseIdempotencyKey(db, held.ref);
    } catch (error) {
      request.log.error({ err: error }, "could not store the idempotent response");
      await releaseIdempotencyKey(db, held.ref).catch(() => {});
    } finally {
      held.finish();
    }
    return payload;
  };

  // Finished without a payload passing onSend: give the key back so a retry runs.
  const release: onResponseAsyncHookHandler = async (request) => {
    const held = request.idempotencyKey;
    if (!held || held.settled) return;
    held.settled = true;
    try {
      await releaseIdempotencyKey(db, held.ref);
    } finally {
      held.finish();
    }
  };

  // The client went away, but the handler may still finish and store its response, so the claim
  // stays; waiting duplicates are let go and meet the claim's lease (409 with Retry-After).
  const letGo: onRequestAbortAsyncHookHandler = async (request) => {
    request.idempotencyKey?.finish();
  };

  // Hooks of the POST routes only (an unknown route's request has no principal, so no key):
  // every other request is spared four of them.
  app.addHook("onRoute", (route) => {
    if (![route.method].flat().includes("POST")) return;
    route.preValidation = [...[route.preValidation ?? []].flat(), claimKey];
    route.onSend = [...[route.onSend ?? []].flat(), store];
    route.onResponse = [...[route.onResponse ?? []].flat(), release];
    route.onRequestAbort = [...[route.onRequestAbort ?? []].flat(), letGo];
  });
}
