import { Argument, Command, InvalidArgumentError, Option } from "commander";
import { paging } from "../contract/vocabulary.js";
import { type CommandSpec, type GroupSpec, isGroup } from "./command-spec.js";
import { commandTree } from "./commands/tree.js";
import { defaultBaseUrl } from "./settings.js";
import { cliVersion } from "./version.js";

/** What the program does with a leaf command once commander has parsed it. */
export type RunLeaf = (spec: CommandSpec, command: Command) => Promise<void>;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The choice `value` names, in any case (`--status REJECTED`, as Meta writes statuses and the
 * service takes them), as the choice is spelt.
 */
function chosen(choices: readonly string[], value: string): string {
  const found = choices.find((choice) => choice.toLowerCase() === value.toLowerCase());
  if (found === undefined) {
    throw new InvalidArgumentError(`Allowed choices are ${choices.join(", ")}.`);
  }
  return found;
}

/** An argument given as "" (an unset shell variable) names nothing: refused before any request. */
function nonEmpty(value: string): string {
  if (value.trim() === "") throw new InvalidArgumentError("It must not be empty.");
  return value;
}

function collectChoice(choices: readonly string[]) {
  return (value: string, previous: string[] | undefined): string[] =>
    collect(chosen(choices, value), previous);
}

function examplesText(examples: readonly string[]): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`;
}

/**
 * Gives a top-level command's stub what the help listing shows of the command (`usage
 * [options]`, `completion <shell>`): its arguments, and an option hidden from help when it has
 * any. A stub is never run.
 */
function listAsLeaf(stub: Command, spec: CommandSpec): void {
  for (const arg of spec.arguments ?? []) {
    const name = `${arg.name}${arg.variadic ? "..." : ""}`;
    stub.addArgument(new Argument(arg.required === false ? `[${name}]` : `<${name}>`));
  }
  if ((spec.options?.length ?? 0) > 0 || spec.inWorkspace || spec.paged) {
    stub.addOption(new Option("--options").hideHelp());
  }
}

function addLeaf(parent: Command, spec: CommandSpec, runLeaf: RunLeaf): void {
  const command = parent
    .command(spec.name)
    .summary(spec.summary)
    // The one-line summary heads the command's own help too, then the longer account.
    .description(spec.description ? `${spec.summary}.\n\n${spec.description}` : spec.summary);
  for (const arg of spec.arguments ?? []) {
    const name = `${arg.name}${arg.variadic ? "..." : ""}`;
    const argument = new Argument(
      arg.required === false ? `[${name}]` : `<${name}>`,
      arg.description,
    );
    if (arg.choices) {
      // As for options: listed for help and completion, taken in any case (`api get /plans`).
      const choices = arg.choices;
      argument.choices(choices).argParser((value: string) => chosen(choices, value));
    } else if (!arg.variadic) argument.argParser(nonEmpty);
    command.addArgument(argument);
  }
  if (spec.inWorkspace) {
    command.option(
      "-w, --workspace <id>",
      "workspace to work in (default: RESELLER_WORKSPACE, then a workspace token's own, then the profile's)",
    );
  }
  for (const opt of spec.options ?? []) {
    const option = new Option(opt.flags, opt.description);
    if (opt.choices) {
      const choices = opt.choices;
      // choices() lists them in help and completion; the parser then takes any case.
      option.choices(choices).argParser((value: string) => chosen(choices, value));
    }
    if (opt.repeatable) option.argParser(opt.choices ? collectChoice(opt.choices) : collect);
    if (opt.default !== undefined) option.default(opt.default);
    command.addOption(option);
  }
  if (spec.paged) {
    command.option(
      "--page <n>",
      `page to show, from 1 (default: ${spec.paged === "all" ? "every page" : "1"})`,
    );
    command.option(
      "--per-page <n>",
      `items per page, 1 to ${paging.maxPerPage} (default: ${paging.defaultPerPage})`,
    );
    command.option("--all", "follow every page (by cursor)");
  }
  command.addHelpText("after", examplesText(spec.examples));
  command.action(async (...params: unknown[]) => {
    await runLeaf(spec, params[params.length - 1] as Command);
  });
  if (spec.passThrough) command.allowUnknownOption();
  for (const sub of spec.subcommands ?? []) addLeaf(command, sub, runLeaf);
}

/** A group's examples: its own, else the first example of each command in it. */
function groupExamples(spec: GroupSpec): string[] {
  if (spec.examples) return spec.examples;
  return spec.commands.flatMap((c) => (isGroup(c) ? groupExamples(c) : c.examples).slice(0, 1));
}

function addGroup(parent: Command, spec: GroupSpec, runLeaf: RunLeaf): void {
  const group = parent.command(spec.name).summary(spec.summary).description(spec.summary);
  group.addHelpText("after", examplesText(groupExamples(spec)));
  for (const child of spec.commands) {
    if (isGroup(child)) addGroup(group, child, runLeaf);
    else addLeaf(group, child, runLeaf);
  }
}

/** Root options that take a value, so the command name is not mistaken for one. */
const valuedRootOptions = new Set(["--base-url", "--token", "--profile", "--idempotency-key"]);

/**
 * Which top-level command an invocation names: its name, "none" when it names none (plain
 * `reseller --help`), or "all" when the word is unknown (commander then suggests a command).
 */
export function expansionFor(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") break;
    if (arg.startsWith("-")) {
      if (valuedRootOptions.has(arg)) i += 1;
      continue;
    }
    return commandTree.some((spec) => spec.name === arg) ? arg : "all";
  }
  return "none";
}

/**
 * Builds the command tree: in full (`expand` "all", for completion, docs and tests), or only the
 * branch one invocation needs, with the other top-level commands as name-and-summary stubs for
 * the help listing. Building ~80 commands with their options would be most of start-up.
 */
export function buildProgram(
  output: { writeOut(text: string): void; writeErr(text: string): void },
  runLeaf: RunLeaf,
  expand = "all",
): Command {
  const program = new Command("reseller")
    .description(
      "Manage client workspaces, contacts, templates and broadcast campaigns on the WhatsApp-marketing platform, or run the whole service locally.",
    )
    .version(cliVersion(), "-V, --version", "print the version")
    .exitOverride()
    .configureOutput(output)
    .showHelpAfterError("(run the command with --help for usage)")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .option(
      "--base-url <url>",
      `service base URL (default: RESELLER_BASE_URL, the profile, ${defaultBaseUrl})`,
    )
    .option(
      "--token <token>",
      "API token (prefer `reseller login` or RESELLER_TOKEN: flags land in shell history)",
    )
    .option(
      "--profile <name>",
      "stored profile to use (default: RESELLER_PROFILE, then the active one)",
    )
    .option("--json", "print the service's data as JSON, nothing else on stdout")
    .option("--csv", "print lists as CSV")
    .option("-q, --quiet", "print ids only (one of --json, --csv, --quiet at a time)")
    .option("--no-color", "no colour (also NO_COLOR)")
    .option("--debug", "log every HTTP request and response to stderr (token masked)")
    .option(
      "--idempotency-key <key>",
      "Idempotency-Key of the command's POST (a command that posts more than once adds -2, -3…)",
    );
  program.addHelpText(
    "after",
    examplesText([
      "reseller serve",
      `reseller login --base-url ${defaultBaseUrl} --token-stdin < token.txt`,
      "reseller plans list --billing-period monthly",
    ]),
  );
  for (const spec of commandTree) {
    if (expand !== "all" && expand !== spec.name) {
      const stub = program.command(spec.name).summary(spec.summary).description(spec.summary);
      if (!isGroup(spec)) listAsLeaf(stub, spec);
    } else if (isGroup(spec)) addGroup(program, spec, runLeaf);
    else addLeaf(program, spec, runLeaf);
  }
  return program;
}
