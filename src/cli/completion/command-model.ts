import type { Argument, Command, Option } from "commander";

/** How the value of an option or argument completes. */
export type ValueKind =
  | { kind: "none" }
  | { kind: "free" }
  | { kind: "choices"; choices: readonly string[] }
  | { kind: "file" }
  | { kind: "command" };

export interface ModelOption {
  /** Every spelling, e.g. `-w` and `--workspace`. */
  names: string[];
  description: string;
  /** What follows the option; `none` for a flag. */
  value: ValueKind;
}

export interface ModelArgument {
  name: string;
  variadic: boolean;
  value: ValueKind;
}

/** One command of the tree, the program itself included (its path is empty). */
export interface ModelCommand {
  path: string[];
  summary: string;
  subcommands: { name: string; summary: string }[];
  /** Its own options and those of its parents below the program (global options aside). */
  options: ModelOption[];
  arguments: ModelArgument[];
  /** Runs a command line of its own (`serve exec`): what follows its first argument is not ours. */
  runsCommand: boolean;
  /** The commander command, for help text. */
  command: Command;
}

export interface CommandModel {
  name: string;
  /** Options of the program, understood by every command. */
  globalOptions: ModelOption[];
  /** Every command, depth first in help order, the program first. */
  commands: ModelCommand[];
}

const helpOption: ModelOption = {
  names: ["-h", "--help"],
  description: "show help",
  value: { kind: "none" },
};

function placeholder(flags: string): string {
  return /[<[]([^>\]]+)[>\]]/.exec(flags)?.[1] ?? "";
}

function valueKind(name: string, choices: readonly string[] | undefined): ValueKind {
  if (choices && choices.length > 0) return { kind: "choices", choices };
  if (/file/i.test(name)) return { kind: "file" };
  return { kind: "free" };
}

function optionModel(option: Option): ModelOption {
  const takesValue = option.required || option.optional;
  return {
    names: [option.short, option.long].filter((n): n is string => Boolean(n)),
    description: option.description,
    value: takesValue ? valueKind(placeholder(option.flags), option.argChoices) : { kind: "none" },
  };
}

function argumentModel(argument: Argument, runsCommand: boolean): ModelArgument {
  return {
    name: argument.name(),
    variadic: argument.variadic,
    value: runsCommand ? { kind: "command" } : valueKind(argument.name(), argument.argChoices),
  };
}

/** Whether a command takes unknown options as arguments (commander keeps this private). */
function allowsUnknownOptions(command: Command): boolean {
  return (command as unknown as { _allowUnknownOption?: boolean })._allowUnknownOption === true;
}

/**
 * Reads the commander program (as `buildProgram` makes it from the command tree) into plain
 * data for completion scripts and the command reference, so both follow the tree as it is.
 */
export function commandModel(program: Command): CommandModel {
  const commands: ModelCommand[] = [];
  const visit = (command: Command, path: string[], inherited: ModelOption[]) => {
    const own = command.options.filter((o) => !o.hidden).map(optionModel);
    const options = path.length === 0 ? [helpOption] : [...own, ...inherited, helpOption];
    const runsCommand = allowsUnknownOptions(command) && command.registeredArguments.length > 0;
    commands.push({
      path,
      summary: command.summary() || command.description(),
      subcommands: command.commands.map((c) => ({
        name: c.name(),
        summary: c.summary() || c.description(),
      })),
      options,
      arguments: command.registeredArguments.map((a) => argumentModel(a, runsCommand)),
      runsCommand,
      command,
    });
    for (const child of command.commands) {
      visit(child, [...path, child.name()], path.length === 0 ? [] : [...own, ...inherited]);
    }
  };
  visit(program, [], []);
  return {
    name: program.name(),
    globalOptions: program.options.filter((o) => !o.hidden).map(optionModel),
    commands,
  };
}

/** A command path as one string, e.g. `plans list`. */
export function pathKey(path: readonly string[]): string {
  return path.join(" ");
}
