import { ApiError } from "../client/api-error.js";
import { ownValue } from "../contract/own-value.js";
import { CliError, type ErrorJson, type ExitKind, errorJsonText, exitCodes } from "./cli-error.js";
import { contactFieldFlags } from "./commands/contacts/contact-flags.js";
import type { GlobalOptions } from "./context.js";
import type { Env } from "./env-vars.js";
import type { Io } from "./io.js";
import { terminalText } from "./output/terminal-text.js";

/** The exit code of a service answer, per the CLI contract's table. */
export function exitKindOf(error: ApiError): ExitKind {
  if (error.kind === "network" || error.kind === "timeout") return "unreachable";
  if (error.kind === "invalid_response") return "unexpected";
  const status = error.status;
  for (const [kind, exit] of Object.entries(exitCodes)) {
    if ("statuses" in exit && (exit.statuses as readonly number[]).includes(status)) {
      return kind as ExitKind;
    }
  }
  if (status >= 500) return "unreachable";
  return "unexpected";
}

/** Where the address a request went to came from, for hints about a wrong one. */
const baseUrlSources =
  "--base-url, RESELLER_BASE_URL or the profile; `reseller auth status` shows which is used";

/** The proxy variables the HTTP client honours, as set: the way to the service may be through one. */
const proxyVariables = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

function hintFor(error: ApiError, command: string, env: Env): string | undefined {
  if (error.hint) return error.hint;
  if (error.kind === "network" || error.kind === "timeout") {
    const proxy = proxyVariables.filter((name) => env[name]);
    // A proxy that is down looks like a service that is down: say the proxy may be it.
    const through =
      proxy.length > 0
        ? ` ${proxy.join(" and ")} ${proxy.length === 1 ? "is" : "are"} set: the request may have gone through a proxy that is not answering (NO_PROXY exempts a host).`
        : "";
    return `Is the service running? Start one with \`reseller serve\`, or check the address it was sent to (${baseUrlSources}).${through}`;
  }
  // Not the service's envelope, or one the contract does not describe (api-client.ts `call`).
  if (error.kind === "invalid_response") {
    return `Check that the address the request was sent to (${baseUrlSources}) is the reseller service's, and that this CLI is not older than the service (\`reseller --version\`).`;
  }
  if (error.status === 401)
    return "Run `reseller login` with a valid token, or check RESELLER_TOKEN.";
  if (error.status === 403) return "Use a token that has this scope (see `reseller auth status`).";
  if (error.status === 429) return "The token's rate limit is spent; wait and try again.";
  if (error.status === 422) return flagsHint(error, command);
  // `reseller api GET /plans`: a path with a leading / is sent as given (see commands/api).
  if (
    command === "api" &&
    error.status === 404 &&
    /^No endpoint \S+ \/(?!api\/)/.test(error.message)
  ) {
    return "A path that starts with / is sent as given; without it, it goes under /api/v1/ (`reseller api GET plans`).";
  }
  return undefined;
}

/**
 * The service's field names that a command's flags spell otherwise, by command: a 422 names the
 * field, the hint names the flag. Names the service shares with the flags (`name`, `phone`) need
 * no line.
 */
const flagsByCommand: Record<string, Record<string, string>> = {
  "contacts import": {
    encoding: "--encoding",
    default_country: "--default-country",
    mapping: `--map "Their column=phone"`,
    delimiter: "--delimiter",
    duplicate_handling: "--on-duplicate",
  },
  "campaigns create": {
    channel_id: "--channel",
    template_name: "--template",
    template_language: "--language",
    variable_mapping: "--var n=field",
    audience: "--all, --tag or --contacts",
    scheduled_at: "--schedule",
  },
  "contacts upsert": contactFieldFlags,
  "contacts update": contactFieldFlags,
  "workspaces create": { contact_email: "--email", plan_id: "--plan" },
  "workspaces onboard": { contact_email: "--email", plan_id: "--plan" },
};

/**
 * A 422 of `command` that names the service's field names: how to give them with its flags.
 * Another command's refusal gets none (`workspaces plan` takes the plan as an argument).
 */
function flagsHint(error: ApiError, command: string): string | undefined {
  const text = [error.message, ...error.details.flatMap((d) => [d.field, d.message])].join(" ");
  const named = Object.entries(ownValue(flagsByCommand, command) ?? {}).filter(([field]) =>
    new RegExp(`\\b${field}\\b`).test(text),
  );
  return named.length === 0
    ? undefined
    : `With \`reseller ${command}\`: ${named.map(([field, flag]) => `${field} is ${flag}`).join(", ")}.`;
}

/** What a failed read or write of a file says of the machine, by its error code. */
const storageFailures: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EIO: "the device reported an input/output error",
  EROFS: "the file system is read-only",
  EFBIG: "the file is larger than the file system allows",
};

/** Whether `error` is the machine refusing a read or write (a full disk, a broken device). */
function storageFailure(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return error instanceof Error && code !== undefined && Object.hasOwn(storageFailures, code);
}

/** Ctrl-C at a prompt: @inquirer/prompts rejects with an ExitPromptError. */
export function isInterrupt(error: unknown): boolean {
  return error instanceof Error && error.name === "ExitPromptError";
}

/** Prints an error for people on stderr (and as JSON on stdout with --json); returns the exit code. */
export function reportError(
  error: unknown,
  io: Io,
  globals: GlobalOptions,
  command = "",
  env: Env = {},
): number {
  // The person chose to stop: no error to report, only the shell's code for an interrupt.
  if (isInterrupt(error)) {
    io.stderr.write("\n");
    return exitCodes.interrupted.code;
  }
  let exitCode: number = exitCodes.unexpected.code;
  let json: ErrorJson;
  const lines: string[] = [];
  if (error instanceof ApiError) {
    exitCode = exitCodes[exitKindOf(error)].code;
    const code = error.errorCode
      ? ` (${error.errorCode}${error.status ? `, HTTP ${error.status}` : ""})`
      : error.status
        ? ` (HTTP ${error.status})`
        : "";
    // The service's message often is its details joined ("csv: is empty …", "Invalid request.
    // url: …; events: …"): each is said once, on its own line where there are lines.
    const summary = error.details.map((d) => `${d.field}: ${d.message}`).join("; ");
    const ruled = error.details.some((d) => d.rule !== undefined);
    const said = error.details.length === 1 && !ruled && error.message === summary;
    const headline =
      error.details.length > 0 && error.message === `Invalid request. ${summary}`
        ? "Invalid request."
        : error.message;
    lines.push(`Error: ${headline}${code}`);
    for (const d of said ? [] : error.details) {
      lines.push(`  ${d.field}: ${d.message}${d.rule ? ` [${d.rule}]` : ""}`);
    }
    if (error.requestId) lines.push(`Request id: ${error.requestId}`);
    const hint = hintFor(error, command, env);
    if (hint) lines.push(`Hint: ${hint}`);
    json = {
      status: error.status || null,
      error_code: error.errorCode ?? error.kind,
      message: error.message,
      details: error.details,
      request_id: error.requestId,
    };
  } else if (error instanceof CliError) {
    exitCode = error.exitCode;
    lines.push(`Error: ${error.message}`);
    for (const d of error.details) {
      lines.push(`  ${d.field}: ${d.message}${d.rule ? ` [${d.rule}]` : ""}`);
    }
    if (error.hint) lines.push(`Hint: ${error.hint}`);
    json = {
      status: null,
      error_code: error.errorCode,
      message: error.message,
      details: error.details,
      request_id: null,
    };
  } else if (storageFailure(error)) {
    // The machine's disk, not the command: said as such, with no stack to read.
    const { code, path, syscall } = error as NodeJS.ErrnoException;
    const verb = syscall === "read" ? "read" : "write";
    const message = `Could not ${verb}${path ? ` '${path}'` : ""}: ${storageFailures[code ?? ""]} (${code}).`;
    lines.push(`Error: ${message}`);
    json = { status: null, error_code: "write_failed", message, details: [], request_id: null };
  } else {
    const err = error instanceof Error ? error : new Error(String(error));
    lines.push(`Unexpected error: ${err.message}`);
    if (globals.debug && err.stack) lines.push(err.stack);
    else lines.push("Hint: run again with --debug for details.");
    json = {
      status: null,
      error_code: "unexpected",
      message: err.message,
      details: [],
      request_id: null,
    };
  }
  // An error quotes the service's message and the fields a person sent: no control codes.
  io.stderr.write(`${terminalText(lines.join("\n"), "many", false)}\n`);
  if (globals.json) io.stdout.write(errorJsonText(json));
  return exitCode;
}
