import type { Context } from "./context.js";
import type { View } from "./output/view.js";

/** One option of a command, as data: help, parsing and completion are generated from it. */
export interface OptionSpec {
  /** Commander flags, e.g. `--billing-period <period>` or `-w, --workspace <id>`. */
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string | boolean;
  /** Collects every occurrence into an array (e.g. `--tag vip --tag new`). */
  repeatable?: boolean;
}

export interface ArgumentSpec {
  name: string;
  description: string;
  required?: boolean;
  /** Takes every remaining word (e.g. the command of `serve exec -- <command...>`). */
  variadic?: boolean;
  /** The accepted values; checked by the parser and offered by shell completion. */
  choices?: readonly string[];
}

/** What a handler hands back for `main` to print; handlers never write data themselves. */
export interface CommandResult {
  /** The service's `data`, printed verbatim with `--json`. */
  data?: unknown;
  /** How to show `data` to a person (table at a terminal, tab-separated when piped, CSV). */
  view?: View;
  /** A closing note for people, on stderr. */
  message?: string;
  /**
   * What the service did not do as asked although the command succeeded (its `meta.notices`):
   * on stderr in every output mode, `--json` and `--quiet` included, so a script sees it too.
   */
  warnings?: string[];
  /**
   * Lines carrying a secret shown only this once: on stderr with --quiet, whose stdout keeps to
   * ids (the other modes show the secret in their output), so --quiet never loses it.
   */
  secrets?: string[];
  exitCode?: number;
  /**
   * With an exitCode other than 0: the failure's code and details in the `{"error": …}` that
   * --json prints instead of `data` (cli-contract.md: a failure prints it, so a script reads it).
   * Without a code, --json prints `data` whatever the exit (onboarding's partial record).
   */
  errorCode?: string;
  details?: unknown[];
  /** The HTTP status and request id of the service's answer that made it fail, where one did. */
  status?: number | null;
  requestId?: string | null;
}

/** The parsed invocation: positional arguments and options (globals included). */
export interface HandlerInput {
  args: string[];
  options: Readonly<Record<string, unknown>>;
}

export type Handler = (ctx: Context, input: HandlerInput) => Promise<CommandResult>;

/** A leaf command: a declaration plus a lazily loaded handler module. */
export interface CommandSpec {
  name: string;
  summary: string;
  description?: string;
  arguments?: ArgumentSpec[];
  options?: OptionSpec[];
  /** Adds `-w, --workspace <id>`. */
  inWorkspace?: boolean;
  /**
   * Adds `--page`, `--per-page` and `--all`; `"all"` for a list that shows every page unless
   * `--page` asks for one (`usage`: a bill needs every workspace).
   */
  paged?: boolean | "all";
  examples: string[];
  /** The handler module, relative to `commands/` without extension, e.g. `plans/list`. */
  handler: string;
  /**
   * Sub-commands of a command that also runs on its own (`serve` and `serve exec`); they see
   * this command's options too.
   */
  subcommands?: CommandSpec[];
  /** Unknown options are kept as arguments instead of refused (a command line to run). */
  passThrough?: boolean;
}

/** A noun grouping commands, e.g. `plans`. */
export interface GroupSpec {
  name: string;
  summary: string;
  commands: (CommandSpec | GroupSpec)[];
  examples?: string[];
}

/** Whether a spec is a group of commands rather than one runnable command. */
export function isGroup(spec: CommandSpec | GroupSpec): spec is GroupSpec {
  return "commands" in spec;
}
