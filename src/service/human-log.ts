// Log lines for people: what `reseller serve` prints at a terminal instead of pino's JSON (which
// it keeps when stdout is piped or with --log-format json). No pretty-printer dependency: the
// service's lines have few shapes (requests, jobs, start and stop, errors).

/** How `serve` writes its log: JSON lines for machines, or one readable line per entry. */
export type LogFormat = "json" | "pretty";

const levelNames: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};

/** Fields shown in their own way, or not at all (pino's bookkeeping). */
const shown = new Set(["level", "time", "pid", "hostname", "msg", "reqId", "req", "res", "v"]);
const requestFields = new Set(["method", "url", "status", "ms", "token"]);

function clock(time: unknown): string {
  const date = typeof time === "number" ? new Date(time) : new Date();
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
}

function value(v: unknown): string {
  if (typeof v === "string") return /\s/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/** One pino JSON line as a line for people; the line itself when it is not JSON. */
export function humanLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const level = levelNames[Number(entry.level)] ?? String(entry.level);
  const parts = [clock(entry.time), level];
  const isRequest = entry.msg === "request" && typeof entry.method === "string";
  if (isRequest) {
    parts.push(`${entry.method} ${entry.url} ${entry.status} ${entry.ms} ms`);
    if (entry.token) parts.push(`token ${entry.token}`);
  } else if (typeof entry.msg === "string") parts.push(entry.msg);
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const extra = Object.entries(entry)
    .filter(([k]) => !shown.has(k) && k !== "err" && !(isRequest && requestFields.has(k)))
    .map(([k, v]) => `${k}=${value(v)}`);
  if (entry.reqId) extra.push(`(${entry.reqId})`);
  parts.push(...extra);
  let text = parts.join("  ");
  if (err?.stack) text += `\n${err.stack}`;
  else if (err?.message) text += `  error=${value(err.message)}`;
  return `${text}\n`;
}

/** A pino destination that writes readable lines to `out`. */
export function humanLogDestination(out: { write(text: string): unknown }): {
  write(line: string): void;
} {
  return {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line.trim() !== "") out.write(humanLogLine(line));
    },
  };
}
