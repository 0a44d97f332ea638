import { Command, Option } from "commander";
import { type CommandSpec, type GroupSpec, isGroup } from "./command-spec.js";
import { commandTree } from "./commands/tree.js";
import { cliVersion } from "./version.js";

/** What the program does with a leaf command once commander has parsed it. */
export type RunLeaf = (spec: CommandSpec, command: Command) => Promise<void>;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function examplesText(examples: readonly string[]): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`;
}

function addLeaf(parent: Command, spec: CommandSpec, runLeaf: RunLeaf): void {
  const command = parent
    .command(spec.name)
    .summary(spec.summary)
    .description(spec.description ?? spec.summary);
  for (const arg of spec.arguments ?? []) {
    command.argument(arg.required === false ? `[${arg.name}]` : `<${arg.name}>`, arg.description);
  }
  if (spec.inWorkspace) {
    command.option(
      "-w, --workspace <id>",
      "workspace to work in (default: RESELLER_WORKSPACE, then the profile's)",
    );
  }
  for (const opt of spec.options ?? []) {
    const option = new Option(opt.flags, opt.description);
    if (opt.choices) option.choices(opt.choices);
    if (opt.repeatable) option.argParser(collect);
    if (opt.default !== undefined) option.default(opt.default);
    command.addOption(option);
  }
  if (spec.paged) {
    command.option("--page <n>", "page to show, from 1", "1");
    command.option("--per-page <n>", "items per page, 1 to 100", "20");
    command.option("--all", "follow every page (by cursor)");
  }
  command.addHelpText("after", examplesText(spec.examples));
  command.action(async (...params: unknown[]) => {
    await runLeaf(spec, params[params.length - 1] as Command);
  });
}

function addGroup(parent: Command, spec: GroupSpec, runLeaf: RunLeaf): void {
  const group = parent.command(spec.name).summary(spec.summary).description(spec.summary);
  if (spec.examples) group.addHelpText("after", examplesText(spec.examples));
  for (const child of spec.commands) {
    if (isGroup(child)) addGroup(group, child, runLeaf);
    else addLeaf(group, child, runLeaf);
  }
}

/** Builds the whole command tree; cheap, since handlers load only when their command runs. */
export function buildProgram(
  output: { writeOut(text: string): void; writeErr(text: string): void },
  runLeaf: RunLeaf,
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
      "service base URL (default: RESELLER_BASE_URL, the profile, http://127.0.0.1:8420)",
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
    .option("-q, --quiet", "print ids only")
    .option("--no-color", "no colour (also NO_COLOR)")
    .option("--debug", "log every HTTP request and response to stderr (token masked)")
    .option("--idempotency-key <key>", "base of the Idempotency-Key sent with POST requests");
  program.addHelpText(
    "after",
    examplesText([
      "reseller serve",
      "reseller login --base-url http://127.0.0.1:8420 --token-stdin < token.txt",
      "reseller plans list --billing-period monthly",
    ]),
  );
  for (const spec of commandTree) {
    if (isGroup(spec)) addGroup(program, spec, runLeaf);
    else addLeaf(program, spec, runLeaf);
  }
  return program;
}
