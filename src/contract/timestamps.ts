import { z } from "zod";

/**
 * A point in time as people write it in ISO 8601 / RFC 3339: date, `T` (or a space), hours and
 * minutes, optional seconds and fraction, and a zone (`Z`, `±hh:mm` or `±hhmm`); any case.
 */
const timestampShape =
  /^(?<date>\d{4}-\d{2}-\d{2})[T ](?<time>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?<zone>Z|[+-]\d{2}:?\d{2})?$/i;

/** Why a text is not a timestamp: not its shape, no zone, or no such day, hour or offset. */
export type TimestampProblem = "not-a-timestamp" | "no-time-zone" | "not-a-real-time";

/** The timestamp as the API writes them (UTC to the second), or why the text is not one. */
export function readTimestamp(
  text: string,
): { iso: string; problem?: undefined } | { iso?: undefined; problem: TimestampProblem } {
  const match = timestampShape.exec(text);
  const parts = match?.groups as { date: string; time: string; zone?: string } | undefined;
  if (!parts) return { problem: "not-a-timestamp" };
  // Without a zone the same words name a different instant in every country.
  if (!parts.zone) return { problem: "no-time-zone" };
  const zone = parts.zone.toUpperCase().replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const time = Date.parse(`${parts.date}T${parts.time}${zone}`);
  const [year, month, day] = parts.date.split("-").map(Number) as [number, number, number];
  const [hour, minute, second = 0] = parts.time.split(":").map(Number) as [number, number, number?];
  // Date.parse rolls 30 February over into March and reads 24:00 as the next day: a time must
  // be a real one, as written.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const [offsetHours = 0, offsetMinutes = 0] = (zone.match(/\d{2}/g) ?? []).map(Number);
  const real =
    month >= 1 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour < 24 &&
    minute < 60 &&
    offsetHours < 24 &&
    offsetMinutes < 60;
  if (Number.isNaN(time) || !real || second >= 60) return { problem: "not-a-real-time" };
  return { iso: isoSeconds(new Date(time)) };
}

/** A timestamp as the API writes them (UTC to the second), or null when it is not one. */
export function normaliseTimestamp(text: string): string | null {
  return readTimestamp(text).iso ?? null;
}

/** What a field's error says about a text that is not a timestamp. */
export function timestampMessage(
  field: string,
  problem: TimestampProblem,
  example: string,
): string {
  switch (problem) {
    case "no-time-zone":
      return `${field} needs a time-zone offset: add Z for UTC or ±hh:mm, e.g. ${example}`;
    case "not-a-real-time":
      return `${field} is not a real date and time (check the day of the month, the hour and the offset), e.g. ${example}`;
    default:
      return `${field} must be an ISO 8601 timestamp with a time zone, e.g. ${example}`;
  }
}

/** A request field holding a timestamp; it arrives normalised to UTC to the second. */
export function timestampField(field: string, example: string) {
  return z
    .string()
    .transform((text, ctx) => {
      const read = readTimestamp(text.trim());
      if (read.iso !== undefined) return read.iso;
      ctx.addIssue({ code: "custom", message: timestampMessage(field, read.problem, example) });
      return z.NEVER;
    })
    .meta({ format: "date-time" });
}

/** ISO 8601 UTC to the second, the timestamp form of the whole API. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
