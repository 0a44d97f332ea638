import { type CommandModel, type ModelOption, pathKey, type ValueKind } from "./command-model.js";
import { oneLine, shQuote } from "./shell-quote.js";

/** What the script's lookup functions put in `reply` for a value: words, `@file` or `@command`. */
function replyOf(value: ValueKind): string {
  switch (value.kind) {
    case "choices":
      return value.choices.map(shQuote).join(" ");
    case "file":
      return "@file";
    case "command":
      return "@command";
    default:
      return "";
  }
}

function described(name: string, description: string): string {
  return shQuote(`${name.replace(/:/g, "\\:")}:${oneLine(description)}`);
}

function optionWords(options: ModelOption[]): string {
  return options.flatMap((o) => o.names.map((n) => described(n, o.description))).join(" ");
}

function arm(pattern: string, body: string): string {
  return `    (${pattern}) ${body} ;;`;
}

function valueArms(prefix: string, options: ModelOption[], wildcard: boolean): string[] {
  return options.flatMap((o) =>
    o.value.kind === "none"
      ? []
      : o.names.map((n) =>
          arm(
            wildcard ? `*${shQuote(`|${n}`)}` : shQuote(`${prefix}|${n}`),
            `reply=(${replyOf(o.value)})`,
          ),
        ),
  );
}

/** The zsh completion script: autoload it from $fpath as `_reseller`, or source it. */
export function zshScript(model: CommandModel): string {
  const name = model.name;
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const subcommandArms = model.commands
    .filter((c) => c.subcommands.length > 0)
    .map((c) =>
      arm(
        shQuote(pathKey(c.path)),
        `reply=(${c.subcommands.map((s) => described(s.name, s.summary)).join(" ")})`,
      ),
    );
  const optionArms = model.commands.map((c) =>
    arm(shQuote(pathKey(c.path)), `reply=(${optionWords(c.options)})`),
  );
  const optionValueArms = [
    ...model.commands.flatMap((c) => valueArms(pathKey(c.path), c.options, false)),
    ...valueArms("", model.globalOptions, true),
  ];
  const argumentArms = model.commands.flatMap((c) =>
    c.arguments.flatMap((a, i) =>
      a.value.kind === "free" && !a.variadic
        ? []
        : [
            arm(
              a.variadic
                ? `${shQuote(`${pathKey(c.path)}|`)}*`
                : shQuote(`${pathKey(c.path)}|${i}`),
              `reply=(${replyOf(a.value)})`,
            ),
          ],
    ),
  );
  const runsCommandArms = model.commands
    .filter((c) => c.runsCommand)
    .map((c) => arm(shQuote(pathKey(c.path)), "return 0"));

  return `#compdef ${name}
# zsh completion for ${name}
# Generated from the command tree by \`${name} completion zsh\`; do not edit.
# Install: ${name} completion zsh > "\${fpath[1]}/_${name}"   (then start a new shell)
#      or: echo 'source <(${name} completion zsh)' >> ~/.zshrc   (after compinit)

# The sub-commands of a command path ("" is the program itself), as name:description.
${fn}_subcommands() {
  case $1 in
${subcommandArms.join("\n")}
    (*) reply=() ;;
  esac
}

# The options of a command path, as name:description (global options come separately).
${fn}_options() {
  case $1 in
${optionArms.join("\n")}
    (*) reply=() ;;
  esac
  reply+=(${optionWords(model.globalOptions)})
}

# How the value of option $2 of command path $1 completes (words, @file or @command);
# status 1 when the option takes no value.
${fn}_option_value() {
  case "$1|$2" in
${optionValueArms.join("\n")}
    (*) return 1 ;;
  esac
}

# How argument number $2 (from 0) of command path $1 completes; status 1 when nothing helps.
${fn}_argument() {
  case "$1|$2" in
${argumentArms.join("\n")}
    (*) return 1 ;;
  esac
}

# Status 0 when the command path runs a command line of its own (after its options).
${fn}_runs_command() {
  case $1 in
${runsCommandArms.join("\n")}
  esac
  return 1
}

# Offers what is in reply: files, commands or words.
${fn}_offer() {
  case $reply in
    (@file) _files ;;
    (@command) _command_names -e ;;
    (*) (( $#reply )) && compadd -a reply ;;
  esac
}

${fn}() {
  local -a reply
  local cmdpath='' word cur=\${words[CURRENT]}
  integer i skip=0 pos=0 start=0
  for (( i = 2; i < CURRENT; i++ )); do
    word=\${words[i]}
    if (( skip )); then
      skip=0
      continue
    fi
    if (( start )); then
      continue
    fi
    if (( pos > 0 )) && ${fn}_runs_command "$cmdpath"; then
      start=$(( i - 1 ))
      continue
    fi
    case $word in
      (--) start=$(( i + 1 )); continue ;;
      (--*=*) continue ;;
      (-*) ${fn}_option_value "$cmdpath" "$word" && skip=1; continue ;;
    esac
    ${fn}_subcommands "$cmdpath"
    if (( pos == 0 && \${reply[(I)\${(b)word}:*]} )); then
      cmdpath=\${cmdpath:+$cmdpath }$word
    else
      (( pos++ ))
    fi
  done
  if (( ! start && pos > 0 )) && ${fn}_runs_command "$cmdpath"; then
    start=$(( CURRENT - 1 ))
  fi

  # The command line that a command such as \`serve exec\` runs: complete it as its own.
  if (( start )); then
    if (( start <= CURRENT )); then
      shift $(( start - 1 )) words
      (( CURRENT -= start - 1 ))
      _normal
    fi
    return
  fi
  if (( skip )); then
    ${fn}_option_value "$cmdpath" "\${words[CURRENT-1]}"
    ${fn}_offer
    return
  fi
  if [[ $cur == --*=* ]]; then
    if ${fn}_option_value "$cmdpath" "\${cur%%=*}"; then
      compset -P '*='
      ${fn}_offer
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    ${fn}_options "$cmdpath"
    _describe -t options option reply
    return
  fi
  ${fn}_subcommands "$cmdpath"
  if (( pos == 0 && $#reply )); then
    _describe -t commands command reply
    return
  fi
  if ${fn}_argument "$cmdpath" $pos; then
    ${fn}_offer
    return
  fi
  ${fn}_options "$cmdpath"
  _describe -t options option reply
}

if [[ $funcstack[1] == ${fn} ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}
