import { randomBytes } from "node:crypto";
import { eventTypes, splitEventTypes } from "../../../contract/vocabulary.js";
import { signatureHeader } from "../../../contract/webhook-signature.js";
import { webhookSecretPrefix } from "../../../contract/webhooks.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { requiredString, stringOption } from "../../options.js";
import { SseParser } from "./sse.js";

/** How long the local receiver has to answer, as for real deliveries. */
const forwardTimeoutMs = 10_000;

function parseUrl(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {
    // Falls through to the usage error.
  }
  throw usageError(
    `--forward-to expects an http(s) URL such as http://localhost:4000/hooks; got '${text}'.`,
  );
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

/** POSTs one event, signed, and says how the local receiver answered. */
async function forward(
  url: URL,
  secret: string,
  id: string,
  body: string,
  now: Date,
): Promise<string> {
  const started = performance.now();
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
    return `${response.status} (${Math.round(performance.now() - started)} ms)`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const name = (error as Error).name;
    return name === "TimeoutError"
      ? "no answer within 10 s"
      : `error ${cause?.code ?? (error as Error).message}`;
  }
}

function line(ctx: Context, text: string): void {
  ctx.io.stdout.write(`${text}\n`);
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
    `Forwarding ${types.length > 0 ? types.join(", ") : "every"} event of ${client.baseUrl} to ${target.href}.\nSigning secret for this session: ${secret}\nCtrl-C stops.`,
  );
  let forwarded = 0;
  try {
    const parser = new SseParser();
    const stream = client.stream(
      "/api/v1/events/stream",
      types.length > 0 ? { types: types.join(",") } : {},
      abort.signal,
    );
    for await (const chunk of stream) {
      for (const message of parser.push(chunk)) {
        const id = message.id ?? "";
        const status = await forward(target, secret, id, message.data, ctx.now());
        forwarded += 1;
        line(
          ctx,
          `${ctx.now().toISOString().slice(0, 19)}Z  ${message.event ?? "message"}  ${id}  -> ${status}`,
        );
      }
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return {
    message: abort.signal.aborted
      ? `Stopped listening; ${forwarded} event${forwarded === 1 ? "" : "s"} forwarded.`
      : `The service ended the stream; ${forwarded} event${forwarded === 1 ? "" : "s"} forwarded.`,
  };
};
