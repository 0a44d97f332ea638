/**
 * The catalogue of the service's stable error codes: each with its HTTP status and default
 * message. The service answers with these, the CLI maps their statuses to exit codes, and the
 * README's table lists them all (a test checks it). Add a code here and nowhere else.
 */
export const errorCatalogue = {
  invalid_json: { status: 400, message: "The request body is not valid JSON." },
  bad_request: {
    status: 400,
    message: "The request is not valid HTTP (for example, too many headers or a malformed line).",
  },
  invalid_url: {
    status: 400,
    message: "The URL's path does not decode: check its percent-escapes (%XX).",
  },
  unauthenticated: {
    status: 401,
    message: "A valid bearer token is required: send 'Authorization: Bearer <token>'.",
  },
  insufficient_scope: { status: 403, message: "The token lacks the scope this endpoint needs." },
  webhook_verification_failed: {
    status: 403,
    message:
      "Webhook verification needs hub.mode=subscribe and the hub.verify_token set in RESELLER_WHATSAPP_VERIFY_TOKEN.",
  },
  not_found: { status: 404, message: "No such resource." },
  method_not_allowed: { status: 405, message: "This path does not accept that method." },
  campaign_not_draft: { status: 409, message: "Only a campaign in draft can be launched." },
  template_not_deletable: {
    status: 409,
    message:
      "Only a rejected or draft template can be deleted through the API; manage approved, pending or paused templates in the workspace dashboard.",
  },
  campaign_state_conflict: {
    status: 409,
    message:
      "The campaign's status does not allow that move: pause a running or scheduled campaign, resume a paused one, cancel one that has not ended.",
  },
  template_exists: {
    status: 409,
    message: "A template with that name and language already exists in the workspace.",
  },
  channel_exists: {
    status: 409,
    message: "That number is already connected as a channel.",
  },
  template_not_draft: {
    status: 409,
    message: "Only a draft template can be submitted; this one has been submitted already.",
  },
  template_not_reviewable: {
    status: 409,
    message:
      "The operator cannot decide that in the template's status: approve a pending or paused template, reject a pending one, pause an approved one.",
  },
  workspace_not_active: {
    status: 409,
    message: "The workspace is suspended or archived; reactivate it first.",
  },
  plan_limit_exceeded: {
    status: 409,
    message: "The workspace's plan does not allow this; upgrade the plan or free some capacity.",
  },
  idempotency_request_in_progress: {
    status: 409,
    message:
      "A request with this Idempotency-Key is still being processed; retry after the Retry-After delay.",
  },
  secret_not_replayable: {
    status: 409,
    message:
      "The first request with this Idempotency-Key revealed a secret, and its answer, stored sealed with the token that asked, cannot be opened; revoke what it created and create it again with a new key.",
  },
  token_limit_reached: {
    status: 409,
    message:
      "The account or workspace already holds 100 tokens that work, the most it may; revoke one it no longer needs.",
  },
  payload_too_large: { status: 413, message: "The request body is larger than allowed." },
  headers_too_large: {
    status: 431,
    message: "The request's URL and headers are larger than the service accepts (16 KB in all).",
  },
  unsupported_media_type: {
    status: 415,
    message: "Send the request body as JSON with 'Content-Type: application/json'.",
  },
  validation_failed: { status: 422, message: "The request has invalid fields." },
  invalid_billing_period: {
    status: 422,
    message:
      "Unknown billing_period; accepted values are monthly, quarterly, half_yearly, yearly, lifetime.",
  },
  template_not_approved: {
    status: 422,
    message: "The campaign's template is not approved in that language.",
  },
  idempotency_key_reused: {
    status: 422,
    message:
      "This Idempotency-Key was already used for a different request (another body, path or method).",
  },
  rate_limited: { status: 429, message: "Rate limit exceeded; retry after the Retry-After delay." },
  internal_error: { status: 500, message: "Something went wrong on our side." },
  service_unavailable: {
    status: 503,
    message: "The service is shutting down or overloaded; retry shortly.",
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

/** The longest value a message quotes back whole: any id or name, not a pasted file. */
const quotedLength = 40;

/**
 * A value of the client's as an error message quotes it: in single quotes, cut to 40 characters
 * with "…", so no request can make its error answer as large as itself.
 */
export function quoted(value: string): string {
  if (value.length <= quotedLength) return `'${value}'`;
  // Never half of a surrogate pair: the answer stays well-formed UTF-8.
  const end = /[\uD800-\uDBFF]/.test(value.charAt(quotedLength - 1))
    ? quotedLength - 1
    : quotedLength;
  return `'${value.slice(0, end)}…'`;
}
