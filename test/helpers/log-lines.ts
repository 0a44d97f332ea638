import { Writable } from "node:stream";
import pino, { type Logger } from "pino";

/** One line of the service's JSON log, as a test reads it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger whose lines a test reads back, parsed, in `lines`. */
export function logLines(level = "info"): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as LogLine);
        done();
      },
    }),
  );
  return { logger, lines };
}
