/**
 * The database cannot be reached or opened (server down, wrong host, password or database
 * name): the operator's to fix, so its message says where and why without a stack.
 */
export class DatabaseUnavailableError extends Error {
  /** `cause` keeps the driver's error, whose code says what went wrong (e.g. 28000, no such role). */
  constructor(location: string, reason: string, cause?: unknown) {
    super(`Cannot open the database ${location}: ${reason}`, { cause });
    this.name = "DatabaseUnavailableError";
  }
}

/** Node's socket codes of a server that cannot be reached. */
export const unreachableSocketCodes: readonly string[] = [
  "ECONNREFUSED",
  "ENOTFOUND",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
];

/** pg's own errors of a connection lost or never made (a port that is not PostgreSQL): no code. */
const lostConnection = /Connection terminated[^.:]*|connection error and is not queryable/;

/**
 * Why the database server cannot be reached now (the socket's code, the server shutting down or
 * starting: 57P01–57P03, or pg's own words), or null when the error is of another kind. The
 * service's 503 and the CLI's "cannot reach" both decide by it.
 */
export function unreachableReason(code: string | undefined, message: string): string | null {
  if (code === undefined) return lostConnection.exec(message)?.[0] ?? null;
  return unreachableSocketCodes.includes(code) || /^57P0[123]$/.test(code) ? code : null;
}

/**
 * Whether a statement failed because the database cannot be reached now rather than because of
 * the statement: unreachable (above), a connection refused at login or otherwise failed
 * (PostgreSQL's 28, 3D and 08 classes), too many connections (53300), connections turned off
 * (55000 "not currently accepting connections"). A request that meets one is a 503 to retry,
 * not a fault of ours.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as { message?: unknown } | null)?.message ?? "");
  if (typeof code !== "string") return unreachableReason(undefined, message) !== null;
  return (
    unreachableReason(code, message) !== null ||
    /^(08|28|3D)/.test(code) ||
    code === "53300" ||
    (code === "55000" && message.includes("not currently accepting connections"))
  );
}

/** A database this release must not migrate; nothing was changed. `hint` says what to do. */
export abstract class IncompatibleDatabaseError extends Error {
  abstract readonly hint: string;
}

/**
 * The database was migrated by a newer release (a downgrade, or an old instance restarting
 * during a rolling upgrade): this one does not know its tables and changes nothing.
 */
export class NewerDatabaseError extends IncompatibleDatabaseError {
  readonly hint =
    "Run the version that migrated it (every instance of a rolling upgrade on the new release).";
  constructor(readonly migration: string) {
    super(
      `The database was migrated by a newer version of reseller (migration ${migration} is unknown to this one); nothing was changed.`,
    );
    this.name = "NewerDatabaseError";
  }
}

/**
 * The database holds another application's tables (a mistyped --db or DATABASE_URL): migrating
 * would add the service's tables beside them, so it is left as it is.
 */
export class ForeignDatabaseError extends IncompatibleDatabaseError {
  readonly hint =
    "Give reseller a database of its own: a new file for --db, or an empty PostgreSQL database (e.g. `createdb reseller`).";
  constructor(readonly tables: string[]) {
    const shown = tables.slice(0, 3).join(", ");
    super(
      `The database holds tables that are not reseller's (${shown}${tables.length > 3 ? `, and ${tables.length - 3} more` : ""}) and no record of reseller's migrations; nothing was changed.`,
    );
    this.name = "ForeignDatabaseError";
  }
}
