import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * When this process started (ms since the epoch, by this machine's clock): with its pid, it tells
 * this process apart from an earlier one that had the same pid.
 */
const startedMs = Math.round(Date.now() - process.uptime() * 1000);

/** What `read` gives, or "" where this system has no such thing (no /proc outside Linux). */
function orNothing(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return "";
  }
}

/**
 * Where this process's pid means something, as the instances table's `host` records it: the host
 * name, the machine's boot id and the pid namespace. An instance judges another dead by its pid
 * only within the same space: containers that share a host name (Docker's host network, one
 * `--hostname` on two machines) each count pids of their own, where a pid not found is no sign.
 */
export const processSpace = [
  hostname(),
  orNothing(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
  orNothing(() => readlinkSync("/proc/self/ns/pid")),
]
  .filter((part) => part !== "")
  .join(" ");

/**
 * The host as the connection name carries it: the start of the MD5 of its name (as PostgreSQL's
 * `md5(host)` reads the instances table), so a long host name (a Kubernetes pod's) keeps what
 * tells it apart within the server's 63 bytes of `application_name`.
 */
function hostKey(host: string): string {
  return createHash("md5").update(host).digest("hex").slice(0, hostKeyLength);
}

/**
 * How long an instance may miss heartbeats before it counts as gone: its job leases are taken
 * over and the locks its connections hold are ended (write-conflicts.ts).
 */
export const defaultDeadAfterMs = 20_000;

/** Hex digits of the host's key. */
export const hostKeyLength = 12;

/**
 * The `application_name` of this process's PostgreSQL connections: `reseller <pid> <started ms>
 * <host key>`. Another instance waiting for a lock that one of them holds reads it to tell, with
 * the instances' heartbeats, whether the holder's process is a dead instance (write-conflicts.ts).
 */
export function connectionName(): string {
  return connectionNameOf(process.pid, startedMs, processSpace);
}

/** The connection name of a process: its pid, start (ms since the epoch) and processSpace. */
export function connectionNameOf(pid: number, started: number, host: string): string {
  return `reseller ${pid} ${started} ${hostKey(host)}`;
}

/** The process a connection name says. */
export interface ConnectionProcess {
  pid: number;
  startedMs: number;
  /** hostKey of its host. */
  hostKey: string;
}

/** Reads a connectionName back; null for a name this service did not give. */
export function processOfConnection(name: string): ConnectionProcess | null {
  const match = /^reseller (\d+) (\d+) ([0-9a-f]+)$/.exec(name);
  if (!match || match[3]?.length !== hostKeyLength) return null;
  return { pid: Number(match[1]), startedMs: Number(match[2]), hostKey: match[3] };
}
