import { hostname } from "node:os";

/**
 * When this process started (ms since the epoch, by this machine's clock): with its pid, it tells
 * this process apart from an earlier one that had the same pid.
 */
const startedMs = Math.round(Date.now() - process.uptime() * 1000);

/** The server keeps at most this many bytes of an `application_name`. */
const nameLimit = 63;

/**
 * The `application_name` of this process's PostgreSQL connections: `reseller <pid> <started ms>
 * <host>`. Another instance waiting for a lock that one of them holds reads it to tell, with the
 * instances' heartbeats, whether the holder's process is a dead instance (write-conflicts.ts).
 */
export function connectionName(): string {
  return Buffer.from(`reseller ${process.pid} ${startedMs} ${hostname()}`)
    .subarray(0, nameLimit)
    .toString()
    .replace(/\uFFFD$/, "");
}

/** The process a connection name says, or null for another application's connection. */
export interface ConnectionProcess {
  pid: number;
  startedMs: number;
  /** The host's name, or its start where the name was cut to fit. */
  host: string;
}

/** Reads a connectionName back; null for a name this service did not give. */
export function processOfConnection(name: string): ConnectionProcess | null {
  const match = /^reseller (\d+) (\d+) (.+)$/.exec(name);
  if (!match) return null;
  return { pid: Number(match[1]), startedMs: Number(match[2]), host: match[3] as string };
}
