import { existsSync } from "node:fs";
import { holdsSecret, redactedUrl } from "../contract/redacted-url.js";
import { isPostgresUrl } from "../service/db/engine.js";
import { usageError } from "./cli-error.js";
import { stringOption } from "./options.js";

/** Which database a command works on, and how to name it in messages. */
export interface DatabaseTarget {
  /** A `postgres://…` URL or a SQLite file path, as openDatabase takes it. */
  target: string;
  /** For messages: the file, or the URL without its password. */
  label: string;
  engine: "sqlite" | "postgres";
  /** Whether the user named it (a flag or DATABASE_URL) rather than the default file. */
  given: boolean;
  /** Said before the work starts: a password given on the command line. */
  warning?: string;
}

/**
 * The warning for a PostgreSQL URL whose password was given on the command line, where every
 * user of the machine reads it (`ps`); undefined when it has none. `instead` says where else
 * the command takes it.
 */
export function passwordInArgsWarning(
  url: string,
  flag: string,
  instead: string,
): string | undefined {
  if (!URL.canParse(url) || !holdsSecret(new URL(url))) return undefined;
  return `Warning: the URL in ${flag} holds a password, which anyone on this machine can read in the process list; ${instead}.`;
}

/**
 * Refuses (exit 2) a value of `source` that is not a PostgreSQL URL node-postgres can read: the
 * wrong scheme, or one that does not parse (`postgres://[bad`, a port that is no number), which
 * would otherwise surface as an unexpected error once the service starts.
 */
export function requirePostgresUrl(url: string, source: string, hint: string): void {
  if (!isPostgresUrl(url)) {
    throw usageError(
      `${source} expects a postgres:// or postgresql:// URL; got '${redactedUrl(url)}'.`,
      hint,
    );
  }
  if (!URL.canParse(url)) {
    throw usageError(
      `${source} is not a URL that can be read: '${redactedUrl(url)}'.`,
      "Write it as postgres://user@host:5432/database (a port in digits; characters such as @, :, / or [ in the user or password percent-encoded).",
    );
  }
}

/**
 * The database of `serve` and the admin commands: `--database <postgres url>`, else `--db
 * <file>`, else DATABASE_URL, else `fallback` (serve's ./reseller.db). Both flags at once are
 * refused, and `--database` takes only a PostgreSQL URL, so a typo never silently creates a
 * SQLite file named like a URL.
 */
export function databaseTarget(
  options: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
  fallback: string | null,
): DatabaseTarget | null {
  const url = stringOption(options, "database");
  const file = stringOption(options, "db");
  if (url !== undefined && file !== undefined) {
    throw usageError("Give either --database (PostgreSQL) or --db (SQLite file), not both.");
  }
  if (url !== undefined) {
    requirePostgresUrl(url, "--database", "For an embedded SQLite file, use --db FILE.");
    const warning = passwordInArgsWarning(
      url,
      "--database",
      "put the URL in DATABASE_URL instead, or the password in PGPASSWORD",
    );
    return {
      target: url,
      label: redactedUrl(url),
      engine: "postgres",
      given: true,
      ...(warning ? { warning } : {}),
    };
  }
  if (file !== undefined) {
    // Taken as a file it would still open PostgreSQL (openDatabase reads the URL) and print the
    // password in every message that names the database.
    if (isPostgresUrl(file)) {
      throw usageError(
        `--db takes a SQLite file; '${redactedUrl(file)}' is a PostgreSQL URL.`,
        "Use --database URL (or DATABASE_URL) for PostgreSQL.",
      );
    }
    return { target: file, label: file, engine: "sqlite", given: true };
  }
  const fromEnv = env.DATABASE_URL;
  if (fromEnv) {
    requirePostgresUrl(
      fromEnv,
      "DATABASE_URL",
      "Unset it to use the embedded SQLite database, or use --db FILE.",
    );
    return { target: fromEnv, label: redactedUrl(fromEnv), engine: "postgres", given: true };
  }
  if (fallback === null) return null;
  return { target: fallback, label: fallback, engine: "sqlite", given: false };
}

/**
 * The database of an admin command: `--database`, `--db` or DATABASE_URL, with no default (an
 * operator names the database they change). A SQLite file must exist already, so a mistyped
 * path is an error instead of a new empty database.
 */
export function existingDatabaseTarget(
  options: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): DatabaseTarget {
  const target = databaseTarget(options, env, null);
  if (target === null) {
    throw usageError(
      "Missing --db <file> or --database <url>.",
      "Name the database `reseller serve` uses: --db FILE (SQLite) or --database postgres://… (or set DATABASE_URL).",
    );
  }
  if (target.engine === "sqlite" && !existsSync(target.target)) {
    throw usageError(
      `No database at ${redactedUrl(target.target)}.`,
      "Point --db at the file `reseller serve --db` uses.",
    );
  }
  return target;
}
