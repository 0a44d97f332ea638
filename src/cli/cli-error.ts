/** An exit code's meaning with the HTTP statuses that end a command with it, so both say the same. */
const forStatuses = <const S extends readonly number[]>(
  code: number,
  meaning: string,
  statuses: S,
) => ({ code, meaning: `${meaning} (${statuses.join(", ")})`, statuses }) as const;

/**
 * Exit codes of the CLI, one meaning each (the README's table comes from here); `statuses` are
 * the service's answers that end a command with that code (exitKindOf reads them).
 */
export const exitCodes = {
  success: { code: 0, meaning: "success" },
  unexpected: { code: 1, meaning: "unexpected error" },
  usage: {
    code: 2,
    meaning: "usage error (bad flag, missing argument, invalid value caught before any request)",
  },
  auth: forStatuses(3, "authentication or permission", [401, 403]),
  notFound: forStatuses(4, "not found", [404]),
  conflict: forStatuses(5, "conflict or invalid state", [409]),
  // The request as sent was refused: its body, its size, its type, or (`reseller api`) its method.
  refused: forStatuses(6, "validation refused by the service", [422, 413, 400, 405, 415]),
  rateLimited: forStatuses(7, "rate limited after retries", [429]),
  // Every 5xx, a range rather than a list: exitKindOf reads it as status >= 500.
  unreachable: { code: 8, meaning: "service unreachable or 5xx" },
  interrupted: { code: 130, meaning: "interrupted (Ctrl-C)" },
} as const;

export type ExitKind = keyof typeof exitCodes;

/** Marks a CliError from any copy of this module (the run bundle's or an ESM handler's). */
const cliErrorBrand = Symbol.for("reseller.CliError");

/** The one error type of the CLI layer: something the user can fix, with an exit code and a hint. */
export class CliError extends Error {
  /** `instanceof` by brand: a handler loaded as ESM throws its own copy of this class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && cliErrorBrand in value;
  }

  readonly [cliErrorBrand] = true;
  readonly exitCode: number;
  /** The `error_code` printed with --json: `usage` for exit 2, else `cli_error` unless given. */
  readonly errorCode: string;
  readonly hint: string | undefined;
  /** Field-level problems found before any request (e.g. a template checked locally). */
  readonly details: { field: string; message: string; rule?: string }[];

  constructor(
    kind: ExitKind,
    message: string,
    hint?: string,
    details: { field: string; message: string; rule?: string }[] = [],
    errorCode?: string,
  ) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCodes[kind].code;
    this.errorCode = errorCode ?? (kind === "usage" ? "usage" : "cli_error");
    this.hint = hint;
    this.details = details;
  }
}

/** The `error` object a failure prints on stdout with `--json` (the CLI contract's shape). */
export interface ErrorJson {
  status: number | null;
  error_code: string;
  message: string;
  details: unknown[];
  request_id: string | null;
}

/** `{"error": …}` as printed on stdout with `--json`, one line per field as every JSON output. */
export function errorJsonText(error: ErrorJson): string {
  return `${JSON.stringify({ error }, null, 2)}\n`;
}

/** The error_code of a config file that is not what the CLI writes (a usage error, exit 2). */
export const brokenConfigCode = "config_unreadable";

/** A usage error (exit 2) that names the flag to use. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError("usage", message, hint);
}
