import { type CommandModel, type ModelOption, pathKey } from "./command-model.js";
import { fishQuote, oneLine } from "./shell-quote.js";

/** `complete` arguments of one option: its names, its value, its description. */
function optionFlags(option: ModelOption): string {
  const parts: string[] = [];
  for (const name of option.names) {
    if (name.startsWith("--")) parts.push(`-l ${name.slice(2)}`);
    else parts.push(`-s ${name.slice(1)}`);
  }
  switch (option.value.kind) {
    case "choices":
      parts.push(`-x -a ${fishQuote(option.value.choices.join(" "))}`);
      break;
    case "file":
      parts.push("-r -F");
      break;
    case "command":
    case "free":
      parts.push("-x");
      break;
    default:
      break;
  }
  parts.push(`-d ${fishQuote(oneLine(option.description))}`);
  return parts.join(" ");
}

/** The fish completion script: put it in ~/.config/fish/completions/reseller.fish. */
export function fishScript(model: CommandModel): string {
  const name = model.name;
  const fn = `__${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const is = (path: readonly string[]) => `-n ${fishQuote(`${fn}_is ${fishQuote(pathKey(path))}`)}`;
  const subcommandCases = model.commands
    .filter((c) => c.subcommands.length > 0)
    .map(
      (c) =>
        `        case ${fishQuote(pathKey(c.path))}\n            printf '%s\\n' ${c.subcommands.map((s) => fishQuote(s.name)).join(" ")}`,
    );
  const valuePatterns = [
    ...model.commands.flatMap((c) =>
      c.options
        .filter((o) => o.value.kind !== "none")
        .flatMap((o) => o.names.map((n) => fishQuote(`${pathKey(c.path)}|${n}`))),
    ),
    ...model.globalOptions
      .filter((o) => o.value.kind !== "none")
      .flatMap((o) => o.names.map((n) => fishQuote(`*|${n}`))),
  ];
  const runsCommand = model.commands
    .filter((c) => c.runsCommand)
    .map((c) => fishQuote(pathKey(c.path)));

  const lines: string[] = [];
  for (const option of model.globalOptions)
    lines.push(`complete -c ${name} ${optionFlags(option)}`);
  for (const command of model.commands) {
    for (const sub of command.subcommands) {
      lines.push(
        `complete -c ${name} ${is(command.path)} -a ${fishQuote(sub.name)} -d ${fishQuote(oneLine(sub.summary))}`,
      );
    }
    for (const option of command.options) {
      lines.push(`complete -c ${name} ${is(command.path)} ${optionFlags(option)}`);
    }
    command.arguments.forEach((argument) => {
      if (argument.value.kind === "choices") {
        lines.push(
          `complete -c ${name} ${is(command.path)} -a ${fishQuote(argument.value.choices.join(" "))}`,
        );
      } else if (argument.value.kind === "file") {
        lines.push(`complete -c ${name} ${is(command.path)} -F`);
      } else if (argument.value.kind === "command") {
        lines.push(`complete -c ${name} ${is(command.path)} -a '(__fish_complete_command)'`);
      }
    });
  }

  return `# fish completion for ${name}
# Generated from the command tree by \`${name} completion fish\`; do not edit.
# Install: ${name} completion fish > ~/.config/fish/completions/${name}.fish

# The sub-commands of a command path ("" is the program itself).
function ${fn}_subcommands
    switch $argv[1]
${subcommandCases.join("\n")}
    end
end

# Status 0 when option $argv[2] of command path $argv[1] takes a value.
function ${fn}_takes_value
    switch "$argv[1]|$argv[2]"
        case ${valuePatterns.join(" ")}
            return 0
    end
    return 1
end

# The command path of the command line so far, e.g. "plans list", or "--" once the words
# belong to a command line that ${name} runs (serve exec -- …). With --child: the words of
# that command line, the one being typed included.
function ${fn}_path
    set -l tokens (commandline -opc)
    set -l path
    set -l skip 0
    set -l pos 0
    set -l first 0
    set -l child 0
    for i in (seq 2 (count $tokens))
        set -l token $tokens[$i]
        if test $skip -eq 1
            set skip 0
            continue
        end
        if test $pos -gt 0
            switch "$path"
                case ${runsCommand.length > 0 ? runsCommand.join(" ") : "''"}
                    set child $first
                    break
            end
        end
        switch $token
            case --
                set child (math $i + 1)
                break
            case '--*=*'
                continue
            case '-*'
                if ${fn}_takes_value "$path" $token
                    set skip 1
                end
                continue
        end
        if test $pos -eq 0; and contains -- $token (${fn}_subcommands "$path")
            set -a path $token
        else
            set pos (math $pos + 1)
            test $first -eq 0; and set first $i
        end
    end
    if test $child -eq 0; and test $pos -gt 0
        switch "$path"
            case ${runsCommand.length > 0 ? runsCommand.join(" ") : "''"}
                set child $first
        end
    end
    if test "$argv[1]" = --child
        test $child -gt 0; and printf '%s\n' $tokens[$child..-1]
        commandline -ct
    else if test $child -gt 0
        printf '%s\n' --
    else
        printf '%s\n' "$path"
    end
end

function ${fn}_is
    test (${fn}_path) = "$argv[1]"
end

complete -c ${name} -f
complete -c ${name} -n ${fishQuote(`${fn}_is --`)} -F -a ${fishQuote(`(__fish_complete_subcommand --commandline (${fn}_path --child))`)}
${lines.join("\n")}
`;
}
