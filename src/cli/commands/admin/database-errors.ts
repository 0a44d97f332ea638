import {
  IncompatibleDatabaseError,
  unreachableReason,
  unreachableSocketCodes,
} from "../../../service/db/database-errors.js";
import { CliError } from "../../cli-error.js";

/** The driver's error code, looked for along the cause chain and, failing that, in the message. */
function driverCode(error: unknown): { code: string | undefined; message: string } {
  let current = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  const message = String(current?.message ?? error);
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === "string")
      return { code: current.code, message: String(current.message) };
    current = current.cause as typeof current;
  }
  // The migrator's wrapper keeps only the message (e.g. "… failed: connect ECONNREFUSED …").
  const network = unreachableSocketCodes.find((name) => new RegExp(`\\b${name}\\b`).test(message));
  if (network) return { code: network, message };
  if (/database "[^"]*" does not exist/.test(message)) return { code: "3D000", message };
  if (/password authentication failed|no pg_hba\.conf entry/.test(message)) {
    return { code: "28P01", message };
  }
  return { code: undefined, message };
}

/** A URL's part decoded, or as written when its percent-escapes do not decode. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A PostgreSQL identifier as SQL takes it: quoted unless it is a plain lower-case name. */
function identifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/**
 * The statements that let the URL's user create reseller's tables, named as in `label` (the URL,
 * its password hidden), so they can be pasted as they are (run by the database's owner).
 */
function grantHint(label: string, schema: string): string {
  const url = URL.canParse(label) ? new URL(label) : null;
  const user = identifier(decoded(url?.username ?? "") || "app");
  const database = identifier(decoded(url?.pathname.slice(1) ?? "") || "reseller");
  return `Make the user the database's owner (\`ALTER DATABASE ${database} OWNER TO ${user}\`), or \`GRANT CREATE ON SCHEMA ${identifier(schema)} TO ${user}\` (run either as the database's owner or a superuser).`;
}

/**
 * A database that cannot be opened, said as something the operator can fix (server down, no
 * such database, refused login) instead of a driver's stack; other errors pass unchanged.
 */
export function explainedDatabaseError(
  error: unknown,
  label: string,
  /** What to do about a SQLite file that cannot be opened; without it, such errors pass. */
  sqliteHint?: string,
): unknown {
  if (error instanceof IncompatibleDatabaseError) {
    return new CliError("conflict", `${error.message} (${label})`, error.hint);
  }
  const { code, message } = driverCode(error);
  const detail =
    /(?:database|role) "[^"]*" does not exist|password authentication failed[^.]*|no pg_hba\.conf entry[^.]*/.exec(
      message,
    )?.[0];
  const unreachable = unreachableReason(code, message);
  if (unreachable !== null) {
    return new CliError(
      "unreachable",
      `Cannot reach the PostgreSQL server of ${label} (${unreachable}).`,
      "Check the host and port, and that the server runs and accepts connections from here.",
      [],
      "database_unreachable",
    );
  }
  if (code === "3D000") {
    const named = URL.canParse(label) ? decoded(new URL(label).pathname.slice(1)) : "";
    return new CliError(
      "usage",
      `${detail ?? "The database does not exist"} (${label}).`,
      `Create it first, e.g. \`createdb ${identifier(named || "reseller")}\`, or fix the database name in the URL.`,
      [],
      "database_not_found",
    );
  }
  // node-postgres asks for the password only when the server does (SCRAM), and then finds none.
  if (/client password must be a string/.test(message)) {
    return new CliError(
      "auth",
      `PostgreSQL asks for a password and the URL has none (${label}).`,
      "Set PGPASSWORD (read when the URL has none), or put it in the URL kept in DATABASE_URL (serve, admin migrate): on the command line it shows in the process list.",
      [],
      "database_password_missing",
    );
  }
  const tls = tlsProblem(code, message);
  if (tls !== null) {
    return new CliError("usage", `${tls.problem} (${label}).`, tls.hint, [], "database_tls");
  }
  // 3F000 on an empty database, 42P01 when `public` was migrated but search_path names no schema.
  if (
    code === "3F000" ||
    (code === "42P01" && /"kysely_migration_lock" does not exist/.test(message))
  ) {
    return new CliError(
      "usage",
      `PostgreSQL has no schema to create reseller's tables in (${label}): the search_path the URL sets names none that exists.`,
      "Create the schema first (`CREATE SCHEMA …`), or fix `options=-c search_path=…` in the URL.",
      [],
      "database_schema_missing",
    );
  }
  // 42501 is any privilege refused; only a schema's means the tables cannot be created at all.
  const schema =
    code === "42501" ? /permission denied for schema (\S+)/.exec(message)?.[1] : undefined;
  if (schema !== undefined) {
    return new CliError(
      "auth",
      `PostgreSQL refused the user of ${label} the right to create reseller's tables (permission denied for schema ${schema}).`,
      // PostgreSQL 15 no longer lets every user create tables in the public schema.
      grantHint(label, schema),
      [],
      "database_permission_denied",
    );
  }
  const sqlite = sqliteHint === undefined ? null : sqliteOpenProblem(code, message);
  if (sqlite !== null) {
    return new CliError(
      "usage",
      `Cannot open the SQLite database ${label}: ${sqlite}.`,
      sqliteHint,
      [],
      "database_unreadable",
    );
  }
  if (code === "28P01" || code === "28000") {
    return new CliError(
      "auth",
      `PostgreSQL refused the login (${detail ?? code}) for ${label}.`,
      "Check the user and password in the URL.",
      [],
      "database_login_refused",
    );
  }
  return error;
}

/** Why a TLS connection to PostgreSQL failed, in words, with what to change; null for others. */
function tlsProblem(
  code: string | undefined,
  message: string,
): { problem: string; hint: string } | null {
  if (/does not support SSL connections/.test(message)) {
    return {
      problem: "The PostgreSQL server takes no TLS connections, and the URL asks for one",
      hint: "Remove sslmode from the URL, or turn ssl on in the server's configuration.",
    };
  }
  const untrusted = [
    "SELF_SIGNED_CERT_IN_CHAIN",
    "DEPTH_ZERO_SELF_SIGNED_CERT",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
    "CERT_HAS_EXPIRED",
    "ERR_TLS_CERT_ALTNAME_INVALID",
  ];
  // Node's own verification failures only: a server's refusal (SQLSTATE 28000, a client
  // certificate it wants) is a refused login, said below.
  const verifyFailure =
    /self[- ]signed certificate|unable to (?:verify|get (?:local )?issuer)|certificate has expired|does not match certificate/i;
  if (
    (code !== undefined && untrusted.includes(code)) ||
    (code === undefined && verifyFailure.test(message))
  ) {
    return {
      problem: `PostgreSQL's TLS certificate is not trusted here: ${message}`,
      hint: "Give its CA with sslrootcert=/path/to/ca.pem in the URL (a managed database publishes it), or use sslmode=no-verify to encrypt without checking the server (docs/operations.md).",
    };
  }
  return null;
}

/** The hint for a SQLite file an admin command cannot open: it must be the service's own. */
export const existingFileHint = "Point --db at the file `reseller serve --db` uses.";

/** Why better-sqlite3 could not open a file, in words, or null for any other error. */
function sqliteOpenProblem(code: string | undefined, message: string): string | null {
  // better-sqlite3 checks the folder itself and says so without a code.
  if (/directory does not exist/.test(message)) return "its folder does not exist";
  if (code === "SQLITE_NOTADB") return "the file is not a SQLite database";
  if (code === "SQLITE_CANTOPEN")
    return "it cannot be opened as a file (a folder, or no permission)";
  return null;
}
