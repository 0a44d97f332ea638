import { eventTypes, splitEventTypes } from "../../../contract/vocabulary.js";
import type { WebhookDeliveryAttempt, WebhookEndpoint } from "../../../contract/webhooks.js";
import { usageError } from "../../cli-error.js";
import { when } from "../../output/time.js";
import type { Column } from "../../output/view.js";

/** `/api/v1/webhook-endpoints[/<id>[/rest]]`, the id encoded. */
export function endpointsPath(id?: string, rest = ""): string {
  return `/api/v1/webhook-endpoints${id === undefined ? "" : `/${encodeURIComponent(id)}`}${rest}`;
}

/** `--events a,b` as the list the API takes; `*` alone for all. */
export function eventList(text: string): string[] {
  const split = splitEventTypes(text);
  const { types } = split;
  if (types.length === 0) throw usageError("--events needs at least one event type, or *.");
  const unknown = split.unknown.filter((t) => t !== "*");
  if (unknown.length > 0) {
    throw usageError(
      `--events: unknown event type ${unknown.join(", ")}.`,
      `Known: ${eventTypes.join(", ")}, or * for all.`,
    );
  }
  return types;
}

export const endpointColumns: Column<WebhookEndpoint>[] = [
  { header: "Id", key: "id", value: (e) => e.id },
  { header: "URL", key: "url", value: (e) => e.url, display: (e, paint) => paint.bold(e.url) },
  { header: "Events", key: "events", value: (e) => e.events.join(",") },
  {
    header: "Enabled",
    key: "enabled",
    value: (e) => e.enabled,
    display: (e, paint) => (e.enabled ? paint.good("yes") : paint.warn("no")),
  },
  { header: "Description", key: "description", value: (e) => e.description },
  { header: "Secret", key: "secret_hint", value: (e) => e.secret_hint },
  {
    header: "Created",
    key: "created_at",
    value: (e) => e.created_at,
    display: (e) => when(e.created_at),
  },
  // Last, so piped lines keep the columns they had before these two.
  {
    header: "Pending",
    key: "pending_deliveries",
    value: (e) => e.pending_deliveries,
    display: (e, paint) =>
      e.pending_deliveries > 0 ? paint.warn(String(e.pending_deliveries)) : "0",
  },
  {
    header: "Last delivery",
    key: "last_attempt",
    value: (e) => lastAttemptText(e.last_attempt),
    display: (e, paint) => {
      const last = e.last_attempt;
      if (!last) return "—";
      const text = `${lastAttemptText(last)}, ${when(last.created_at)}`;
      return last.delivered ? paint.good(text) : paint.bad(text);
    },
  },
];

/** The latest attempt in a word: `200`, `500`, or the error when no status came. */
function lastAttemptText(last: WebhookDeliveryAttempt | null): string {
  if (!last) return "";
  return last.status_code === null ? (last.error ?? "no answer") : String(last.status_code);
}

export const attemptColumns: Column<WebhookDeliveryAttempt>[] = [
  {
    header: "When",
    key: "created_at",
    value: (a) => a.created_at,
    display: (a) => when(a.created_at),
  },
  { header: "Event", key: "event_id", value: (a) => a.event_id },
  { header: "Type", key: "event_type", value: (a) => a.event_type },
  { header: "Try", key: "attempt", value: (a) => a.attempt },
  {
    header: "Status",
    key: "status_code",
    value: (a) => a.status_code,
    display: (a, paint) =>
      a.delivered ? paint.good(String(a.status_code)) : paint.bad(String(a.status_code ?? "—")),
  },
  { header: "Ms", key: "duration_ms", value: (a) => a.duration_ms },
  { header: "Error", key: "error", value: (a) => a.error },
];
