import { randomBytes } from "node:crypto";
import { ApiError } from "../../../client/api-error.js";
import { isRetryableStatus } from "../../../client/retry-policy.js";
import { isoSeconds } from "../../../contract/timestamps.js";
import { eventTypes, splitEventTypes } from "../../../contract/vocabulary.js";
import { webhookSecretPrefix } from "../../../contract/webhooks.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { interruptibleWait } from "../../interruptible-wait.js";
import { requiredString, stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { webhookUrlProblem } from "../webhooks/webhook-input.js";
import { type Forwarded, forwarder } from "./forward.js";
import { type SseMessage, SseParser } from "./sse.js";

/** Waits before each reconnect that follows a failed one (a restart takes a few seconds). */
const reconnectDelaysMs = [1000, 2000, 4000, 8000, 15_000];

/** The --forward-to URL, checked with the rule of a webhook endpoint's URL. */
function parseUrl(text: string): URL {
  const problem = webhookUrlProblem(text, "--forward-to");
  if (problem !== undefined) {
    throw usageError(
      `${problem}.`,
      "Give your local receiver's URL, such as http://localhost:4000/hooks; it checks the Reseller-Signature header with the secret listen prints.",
    );
  }
  return new URL(text.trim());
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

/**
 * One line per event, in the output mode: at a terminal `time  type  id  -> 200 (12 ms)`; piped,
 * the same fields tab-separated; --json the event as the service sent it (one per line), with
 * the receiver's answer on stderr; --quiet the event's id.
 */
function report(ctx: Context, at: Date, message: SseMessage, answer: Forwarded): void {
  const time = isoSeconds(at);
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
  // Ctrl-C, or a supervisor's SIGTERM, is how listen ends: with the count, exit 0.
  const wait = interruptibleWait(ctx.sleep, ["SIGINT", "SIGTERM"]);
  const receiver = forwarder(target, secret, ctx.dispatcher);
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
    while (!wait.interrupted) {
      let delivered = false;
      try {
        const parser = new SseParser();
        const stream = client.stream(
          "/api/v1/events/stream",
          types.length > 0 ? { types: types.join(",") } : {},
          wait.signal,
          lastId,
        );
        for await (const chunk of stream) {
          // Connected (the service's first chunk comes at once): said, so the user knows events
          // made from now on arrive; a lost connection is waited for, and the count starts over.
          if (!delivered) {
            ctx.info(failures === null ? "Connected; waiting for events." : "Connected again.");
          }
          delivered = true;
          failures = 0;
          const messages = parser.push(chunk);
          lastId = parser.lastEventId ?? lastId;
          for (const message of messages) {
            // After Ctrl-C the events already received are not forwarded: listen ends now.
            if (wait.interrupted) break;
            const id = message.id ?? "";
            const answer = await receiver.send(id, message.data, ctx.now(), wait.signal);
            if (wait.interrupted) break;
            forwarded += 1;
            if (answer.error !== null || answer.status === null || answer.status >= 300) {
              unanswered += 1;
            }
            report(ctx, ctx.now(), message, answer);
          }
          if (wait.interrupted) break;
        }
      } catch (error) {
        // A service that is restarting is waited for: unreachable, or answering 429/502/503/504
        // from itself or its load balancer (opening the stream does no work, so a gateway's
        // answers are waited for too). Any other answer (a revoked token's 401) ends listen with
        // that answer's exit code; so does a first connection that fails.
        const transient =
          error instanceof ApiError &&
          (error.kind === "network" || isRetryableStatus(error.status, { safe: true }));
        if (!transient || failures === null) throw error;
        // A stream that broke after it delivered is no failed reconnect; a try that got nothing is.
        if (!delivered) failures += 1;
      }
      if (wait.interrupted) break;
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
      await wait.sleep(delay);
    }
  } finally {
    wait.dispose();
    await receiver.close();
  }
  return {
    message: `Stopped listening; ${counted(forwarded, "event")} forwarded${unanswered > 0 ? `, ${unanswered} not taken by ${target.href} (no answer or not a 2xx)` : ""}.`,
  };
};
