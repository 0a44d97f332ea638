import { type CommandModel, type ModelOption, pathKey, type ValueKind } from "./command-model.js";
import { shQuote } from "./shell-quote.js";

/** What the script's lookup functions put in REPLY for a value: words, `@file` or `@command`. */
function replyOf(value: ValueKind): string {
  switch (value.kind) {
    case "choices":
      return value.choices.join(" ");
    case "file":
      return "@file";
    case "command":
      return "@command";
    default:
      return "";
  }
}

function caseArm(pattern: string, body: string): string {
  return `    ${pattern}) ${body} ;;`;
}

function valueArms(prefix: string, options: ModelOption[], wildcard: boolean): string[] {
  return options.flatMap((o) =>
    o.value.kind === "none"
      ? []
      : o.names.map((n) =>
          caseArm(
            wildcard ? `*${shQuote(`|${n}`)}` : shQuote(`${prefix}|${n}`),
            `REPLY=${shQuote(replyOf(o.value))}`,
          ),
        ),
  );
}

/** The bash completion script of the program: plain bash, bash-completion not needed. */
export function bashScript(model: CommandModel): string {
  const name = model.name;
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const globals = model.globalOptions.flatMap((o) => o.names).join(" ");
  const subcommandArms = model.commands
    .filter((c) => c.subcommands.length > 0)
    .map((c) =>
      caseArm(
        shQuote(pathKey(c.path)),
        `REPLY=${shQuote(c.subcommands.map((s) => s.name).join(" "))}`,
      ),
    );
  const optionArms = model.commands.map((c) =>
    caseArm(
      shQuote(pathKey(c.path)),
      `REPLY=${shQuote(c.options.flatMap((o) => o.names).join(" "))}`,
    ),
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
            caseArm(
              a.variadic
                ? `${shQuote(`${pathKey(c.path)}|`)}*`
                : shQuote(`${pathKey(c.path)}|${i}`),
              `REPLY=${shQuote(replyOf(a.value))}`,
            ),
          ],
    ),
  );
  const runsCommandArms = model.commands
    .filter((c) => c.runsCommand)
    .map((c) => caseArm(shQuote(pathKey(c.path)), "return 0"));

  return `# bash completion for ${name}
# Generated from the command tree by \`${name} completion bash\`; do not edit.
# Install: ${name} completion bash > ~/.local/share/bash-completion/completions/${name}
#      or: echo 'source <(${name} completion bash)' >> ~/.bashrc

# The sub-commands of a command path ("" is the program itself).
${fn}_subcommands() {
  case $1 in
${subcommandArms.join("\n")}
    *) REPLY='' ;;
  esac
}

# The options of a command path, global options included.
${fn}_options() {
  case $1 in
${optionArms.join("\n")}
    *) REPLY='' ;;
  esac
  REPLY+=${shQuote(` ${globals}`)}
}

# How the value of option $2 of command path $1 completes (words, @file or @command);
# status 1 when the option takes no value.
${fn}_option_value() {
  case "$1|$2" in
${optionValueArms.join("\n")}
    *) return 1 ;;
  esac
}

# How argument number $2 (from 0) of command path $1 completes; status 1 when nothing helps.
${fn}_argument() {
  case "$1|$2" in
${argumentArms.join("\n")}
    *) return 1 ;;
  esac
}

# Status 0 when the command path runs a command line of its own (after its options).
${fn}_runs_command() {
  case $1 in
${runsCommandArms.join("\n")}
  esac
  return 1
}

# Fills COMPREPLY with what $1 (words, @file or @command) offers for the word $2; each
# candidate gets $3 in front (an --option= being completed) and loses $4, the part of the
# word that bash does not replace (up to its last = or :).
${fn}_offer() {
  local candidate
  local -a found=()
  case $1 in
    @file)
      compopt -o filenames 2>/dev/null
      mapfile -t found < <(compgen -f -- "$2")
      ;;
    @command) mapfile -t found < <(compgen -c -- "$2") ;;
    *) mapfile -t found < <(compgen -W "$1" -- "$2") ;;
  esac
  COMPREPLY=()
  for candidate in "\${found[@]}"; do
    candidate=$3$candidate
    COMPREPLY+=("\${candidate#"$4"}")
  done
}

${fn}() {
  local REPLY word cur path='' i n skip=0 pos=0 dashdash=0 glue=0
  local -a words=()
  # bash splits words at = and : (COMP_WORDBREAKS); put them back together.
  for ((i = 0; i <= COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    if ((i > 1)) && [[ $word == [=:] || $glue == 1 ]]; then
      words[\${#words[@]}-1]+=$word
      if [[ $word == [=:] ]]; then glue=1; else glue=0; fi
    else
      words+=("$word")
      glue=0
    fi
  done
  n=$((\${#words[@]} - 1))
  cur=\${words[n]}
  # Readline replaces only what follows the last word-break character (= or :) of the word.
  local breaks='' keep=''
  [[ $COMP_WORDBREAKS == *=* ]] && breaks+='='
  [[ $COMP_WORDBREAKS == *:* ]] && breaks+=':'
  [[ -n $breaks ]] && keep=\${cur%"\${cur##*[$breaks]}"}

  for ((i = 1; i < n; i++)); do
    word=\${words[i]}
    if ((skip)); then
      skip=0
      continue
    fi
    if ((dashdash)) || { ${fn}_runs_command "$path" && ((pos > 0)); }; then
      ((pos++))
      continue
    fi
    case $word in
      --) dashdash=1; pos=0; continue ;;
      --*=*) continue ;;
      -*) ${fn}_option_value "$path" "$word" && skip=1; continue ;;
    esac
    ${fn}_subcommands "$path"
    if ((pos == 0)) && [[ " $REPLY " == *" $word "* ]]; then
      path=\${path:+$path }$word
    else
      ((pos++))
    fi
  done

  # The command line that a command such as \`serve exec\` runs: a command, then files.
  if ((dashdash)) || { ${fn}_runs_command "$path" && ((pos > 0)); }; then
    if ((dashdash && pos == 0)); then
      ${fn}_offer @command "$cur" '' "$keep"
    else
      ${fn}_offer @file "$cur" '' "$keep"
    fi
    return 0
  fi
  # The value of an option: --opt value or --opt=value.
  if ((skip)); then
    ${fn}_option_value "$path" "\${words[n - 1]}"
    ${fn}_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  if [[ $cur == --*=* ]]; then
    COMPREPLY=()
    if ${fn}_option_value "$path" "\${cur%%=*}"; then
      ${fn}_offer "$REPLY" "\${cur#*=}" "\${cur%%=*}=" "$keep"
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    ${fn}_options "$path"
    ${fn}_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  ${fn}_subcommands "$path"
  if [[ -n $REPLY ]] && ((pos == 0)); then
    ${fn}_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  if ${fn}_argument "$path" "$pos"; then
    ${fn}_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  ${fn}_options "$path"
  ${fn}_offer "$REPLY" "$cur" '' "$keep"
}

complete -F ${fn} ${name}
`;
}
