import { GraphError } from "./graph-client.js";
import type { SendOutcome } from "./message-sender.js";

/**
 * What a Graph API error code means for one message (running-for-real.md, "The WhatsApp Cloud
 * API provider"). Codes as listed at
 * https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes .
 */
export type SendErrorMeaning =
  /** Throughput or rate limits: wait and send again; the recipient stays queued. */
  | { kind: "backoff"; reason: string }
  /** This message fails for good with `reason`; `optOut` when the person stopped marketing. */
  | { kind: "message"; reason: string; optOut?: boolean }
  /** Nothing more of the campaign can be sent (template gone or paused). */
  | { kind: "campaign"; reason: string; templateStatus?: "paused" | "disabled" }
  /** The token was refused: the channel is disconnected and the campaign fails. */
  | { kind: "disconnect"; reason: "channel_disconnected" };

const meanings: Record<number, SendErrorMeaning> = {
  4: { kind: "backoff", reason: "app_rate_limited" },
  80007: { kind: "backoff", reason: "waba_rate_limited" },
  130429: { kind: "backoff", reason: "throughput_limited" },
  131056: { kind: "backoff", reason: "pair_rate_limited" },
  131026: { kind: "message", reason: "undeliverable" },
  131049: { kind: "message", reason: "marketing_limit" },
  131050: { kind: "message", reason: "user_stopped_marketing", optOut: true },
  132000: { kind: "message", reason: "template_parameter_mismatch" },
  132001: { kind: "campaign", reason: "template_unavailable" },
  132015: { kind: "campaign", reason: "template_paused", templateStatus: "paused" },
  // 132016 is a template paused too often and now disabled for good: still a paused template.
  132016: { kind: "campaign", reason: "template_paused", templateStatus: "disabled" },
  190: { kind: "disconnect", reason: "channel_disconnected" },
};

/** The meaning of a Graph error code; anything unlisted fails the message as `provider_error_<code>`. */
export function sendErrorMeaning(code: number): SendErrorMeaning {
  return meanings[code] ?? { kind: "message", reason: `provider_error_${code}` };
}

/**
 * Whether Meta, or a proxy in front of it, refused a request for its rate without taking it:
 * a code that backs off, or an HTTP 429 without a Graph error. Such a request is made again later.
 */
export function isRateLimited(answer: { code: number; httpStatus: number }): boolean {
  if (answer.code === 0) return answer.httpStatus === 429;
  return sendErrorMeaning(answer.code).kind === "backoff";
}

/** The send outcome of a Graph error code, for the Cloud API adapter and the sandbox alike. */
export function sendOutcomeForCode(code: number): SendOutcome {
  const meaning = sendErrorMeaning(code);
  switch (meaning.kind) {
    case "backoff":
      return { status: "backoff", reason: meaning.reason, code };
    case "message":
      return {
        status: "failed",
        reason: meaning.reason,
        code,
        ...(meaning.optOut ? { optOut: true } : {}),
      };
    case "campaign":
      return {
        status: "campaign_failed",
        reason: meaning.reason,
        code,
        ...(meaning.templateStatus ? { templateStatus: meaning.templateStatus } : {}),
      };
    case "disconnect":
      return { status: "campaign_failed", reason: meaning.reason, code, disconnectChannel: true };
  }
}

/**
 * Whether a Graph error is Meta refusing the channel's token (code 190, invalid or expired), as
 * `sendOutcomeForCode` says for a send: for a template submission and the periodic sync, which
 * then disconnect the channel too, so a token that expires between campaigns shows before the
 * next one.
 */
export function isTokenRefused(error: unknown): boolean {
  return error instanceof GraphError && sendErrorMeaning(error.code).kind === "disconnect";
}
