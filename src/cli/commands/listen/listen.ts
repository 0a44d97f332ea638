import { randomBytes } from "node:crypto";
import { ApiError } from "../../../client/api-error.js";
import { eventTypes, splitEventTypes } from "../../../contract/vocabulary.js";
import { signatureHeader } from "../../../contract/webhook-signature.js";
import { webhookSecretPrefix } from "../../../contract/webhooks.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { requiredString, stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { type SseMessage, SseParser } from "./sse.js";

/** How long the local receiver has to answer, as for real deliveries. */
const forwardTimeoutMs = 10_000;

/** Waits before each reconnect that follows a failed one (a restart takes a few seconds). */
const reconnectDelaysMs = [1000, 2000, 4000, 8000, 15_000];

function parseUrl(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url?.username || url?.password) {
    throw usageError(
      "--forward-to must not hold a user name or password (user:pass@): a forward cannot carry them.",
      "Your receiver checks the Reseller-Signature header instead, with the secret listen prints.",
    );
  }
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw usageError(
      `--forward-to expects an http(s) URL such as http://localhost:4000/hooks; got '${text}'.`,
    );
  }
  return url;
}

function parseEvents(text: string | undefined): string[] {
  if (text === undefined) return [];
  const { types, unknown } = splitEventTypes(text);
  if (unknown.length > 0) {
    throw usageError(
      `Unknown event type ${unknown.join(", ")}.`,
      `Known types: ${eventTypes.join(", ")}.`,
    );
  }
  return types;
}

/** How the local receiver answered one forwarded event. */
interface Forwarded {
  status: number | null;
  durationMs: number;
  /** Why no status came (a refused connection, no answer within 10 s). */
  error: string | null;
}

/** POSTs one event, signed, and says how the local receiver answered. */
async function forward(
  url: URL,
  secret: string,
  id: string,
  body: string,
  now: Date,
): Promise<Forwarded> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "reseller-signature": signatureHeader(secret, Math.floor(now.getTime() / 1000), body),
        "reseller-event-id": id,
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(forwardTimeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, durationMs: took(), error: null };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const name = (error as Error).name;
    const why =
      name === "TimeoutError"
        ? "no answer within 10 s"
        : `error ${cause?.code ?? (error as Error).message}`;
    return { status: null, durationMs: took(), error: why };
  }
}

/**
 * One line per event, in the output mode: at a terminal `time  type  id  -> 200 (12 ms)`; piped,
 * the same fields tab-separated; --json the event as the service sent it (one per line), with
 * the receiver's answer on stderr; --quiet the event's id.
 */
function report(ctx: Context, at: Date, message: SseMessage, answer: Forwarded): void {
  const time = `${at.toISOString().slice(0, 19)}Z`;
  const type = message.event ?? "message";
  const id = message.id ?? "";
  const answered =
    answer.status === null ? (answer.error ?? "") : `${answer.status} (${answer.durationMs} ms)`;
  const human = `${time}  ${type}  ${id}  -> ${answered}`;
  switch (ctx.output) {
    case "json":
      ctx.io.stdout.write(`${message.data}\n`);
      ctx.info(human);
      return;
    case "quiet":
      ctx.io.stdout.write(`${id}\n`);
      return;
    case "table":
      ctx.io.stdout.write(`${human}\n`);
      return;
    default:
      ctx.io.stdout.write(
        `${[time, type, id, answer.status ?? "", answer.durationMs, answer.error ?? ""].join("\t")}\n`,
      );
  }
}

/**
 * `reseller listen --forward-to URL [--events a,b]`: streams the account's events and POSTs each,
 * signed with a secret made for this session, to a local URL; one line per event. Ctrl-C ends it.
 */
export const run: Handler = async (ctx, { options }) => {
  const target = parseUrl(requiredString(options, "forwardTo"));
  const types = parseEvents(stringOption(options, "events"));
  const secret = `${webhookSecretPrefix}${randomBytes(32).toString("base64url")}`;
  const client = await ctx.client();
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  ctx.info(
    `Forwarding ${types.length > 0 ? `${types.join(", ")} events` : "every event"} of ${client.shownBaseUrl} to ${target.href}.\nSigning secret for this session: ${secret}\nCtrl-C stops.`,
  );
  let forwarded = 0;
  /** Events the local URL did not take: no answer, or not a 2xx. */
  let unanswered = 0;
  let lastId: string | undefined;
  // Failed reconnects in a row, once connected; the first connection's failure is not retried
  // (exit 8 at once).
  let failures: number | null = null;
  try {
    while (!abort.signal.aborted) {
      let delivered = false;
      try {
        const parser = new SseParser();
        const stream = client.stream(
          "/api/v1/events/stream",
          types.length > 0 ? { types: types.join(",") } : {},
          abort.signal,
          lastId,
        );
        for await (const chunk of stream) {
          // Connected: from now on a lost connection is waited for, and the count starts over.
          delivered = true;
          failures = 0;
          const messages = parser.push(chunk);
          lastId = parser.lastEventId ?? lastId;
          for (const message of messages) {
            const id = message.id ?? "";
            const answer = await forward(target, secret, id, message.data, ctx.now());
            forwarded += 1;
            if (answer.error !== null || answer.status === null || answer.status >= 300) {
              unanswered += 1;
            }
            report(ctx, ctx.now(), message, answer);
          }
        }
      } catch (error) {
        // A service that is restarting is waited for: unreachable, or answering 429/502/503/504
        // from itself or its load balancer. Any other answer (a revoked token's 401) ends listen
        // with that answer's exit code; so does a first connection that fails.
        const transient =
          error instanceof ApiError &&
          (error.kind === "network" || [429, 502, 503, 504].includes(error.status));
        if (!transient || failures === null) throw error;
        // A stream that broke after it delivered is no failed reconnect; a try that got nothing is.
        if (!delivered) failures += 1;
      }
      if (abort.signal.aborted) break;
      // The stream ended or broke (a restart, a crash, a token revoked meanwhile): connect again
      // from the last event, as EventSource does.
      failures ??= 0;
      const delay = reconnectDelaysMs[failures];
      if (delay === undefined) {
        throw new ApiError({
          kind: "network",
          message: `Lost the service at ${client.shownBaseUrl}: ${reconnectDelaysMs.length} tries to connect again failed.`,
        });
      }
      ctx.info(
        delivered
          ? `The stream ended; connecting again in ${delay / 1000} s.`
          : `No stream yet (the service is not answering); trying again in ${delay / 1000} s.`,
      );
      await abortableSleep(ctx, delay, abort.signal);
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return {
    message: `Stopped listening; ${counted(forwarded, "event")} forwarded${unanswered > 0 ? `, ${unanswered} not taken by ${target.href} (no answer or not a 2xx)` : ""}.`,
  };
};

/** Waits `ms`, or less when `signal` aborts (Ctrl-C while waiting to reconnect). */
async function abortableSleep(ctx: Context, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener("abort", onAbort, { once: true });
  });
  await Promise.race([ctx.sleep(ms), aborted]);
  signal.removeEventListener("abort", onAbort);
}
