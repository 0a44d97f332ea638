# bash completion for reseller
# Generated from the command tree by `reseller completion bash`; do not edit.
# Install: reseller completion bash > ~/.local/share/bash-completion/completions/reseller
#      or: echo 'source <(reseller completion bash)' >> ~/.bashrc

# The sub-commands of a command path ("" is the program itself).
_reseller_subcommands() {
  case $1 in
    '') REPLY='login logout auth profiles plans workspaces tokens contacts tags templates sandbox channels campaigns webhooks events listen usage serve admin api completion' ;;
    'auth') REPLY='status' ;;
    'profiles') REPLY='list use' ;;
    'plans') REPLY='list get' ;;
    'workspaces') REPLY='list create get update suspend activate archive restore plan use onboard tokens' ;;
    'workspaces tokens') REPLY='list create revoke' ;;
    'tokens') REPLY='list create revoke' ;;
    'contacts') REPLY='list get upsert update import imports export' ;;
    'contacts imports') REPLY='get list' ;;
    'tags') REPLY='list' ;;
    'templates') REPLY='list get create submit delete lint' ;;
    'sandbox') REPLY='templates inbound' ;;
    'sandbox templates') REPLY='review' ;;
    'channels') REPLY='list get add' ;;
    'campaigns') REPLY='list get create launch stats pause resume cancel' ;;
    'webhooks') REPLY='create list get update delete deliveries' ;;
    'events') REPLY='list get redeliver' ;;
    'serve') REPLY='exec' ;;
    'admin') REPLY='resellers migrate copy' ;;
    'admin resellers') REPLY='create' ;;
    *) REPLY='' ;;
  esac
}

# The options of a command path, global options included.
_reseller_options() {
  case $1 in
    '') REPLY='-h --help' ;;
    'login') REPLY='--token-stdin -h --help' ;;
    'logout') REPLY='-h --help' ;;
    'auth') REPLY='-h --help' ;;
    'auth status') REPLY='-h --help' ;;
    'profiles') REPLY='-h --help' ;;
    'profiles list') REPLY='-h --help' ;;
    'profiles use') REPLY='-h --help' ;;
    'plans') REPLY='-h --help' ;;
    'plans list') REPLY='--billing-period --include-private --page --per-page --all -h --help' ;;
    'plans get') REPLY='-h --help' ;;
    'workspaces') REPLY='-h --help' ;;
    'workspaces list') REPLY='--status --page --per-page --all -h --help' ;;
    'workspaces create') REPLY='--name --email --plan --no-invite -h --help' ;;
    'workspaces get') REPLY='-h --help' ;;
    'workspaces update') REPLY='--name --status --plan -y --yes -h --help' ;;
    'workspaces suspend') REPLY='-y --yes -h --help' ;;
    'workspaces activate') REPLY='-h --help' ;;
    'workspaces archive') REPLY='-y --yes -h --help' ;;
    'workspaces restore') REPLY='-h --help' ;;
    'workspaces plan') REPLY='-h --help' ;;
    'workspaces use') REPLY='-h --help' ;;
    'workspaces onboard') REPLY='--name --email --plan --no-invite --import --default-country --map --preset --delimiter --encoding --pricing-token -y --yes -h --help' ;;
    'workspaces tokens') REPLY='-h --help' ;;
    'workspaces tokens list') REPLY='-w --workspace --page --per-page --all -h --help' ;;
    'workspaces tokens create') REPLY='-w --workspace --name --scope --expires-at -h --help' ;;
    'workspaces tokens revoke') REPLY='-w --workspace -y --yes -h --help' ;;
    'tokens') REPLY='-h --help' ;;
    'tokens list') REPLY='--page --per-page --all -h --help' ;;
    'tokens create') REPLY='--name --scope --expires-at -h --help' ;;
    'tokens revoke') REPLY='-y --yes -h --help' ;;
    'contacts') REPLY='-h --help' ;;
    'contacts list') REPLY='-w --workspace --search --tag --opt-in-status --page --per-page --all -h --help' ;;
    'contacts get') REPLY='-w --workspace -h --help' ;;
    'contacts upsert') REPLY='-w --workspace --phone --first-name --last-name --email --tag --field --opt-in-source --opted-in-at --opt-in -h --help' ;;
    'contacts update') REPLY='-w --workspace --first-name --last-name --email --tag --field --opt-in-source --opted-in-at --opt-in --clear-tags --remove-field -h --help' ;;
    'contacts import') REPLY='-w --workspace --on-duplicate --default-country --no-wait --timeout --errors --dry-run --map --preset --delimiter --encoding --strict -h --help' ;;
    'contacts imports') REPLY='-h --help' ;;
    'contacts imports get') REPLY='-w --workspace --errors -h --help' ;;
    'contacts imports list') REPLY='-w --workspace --page --per-page --all -h --help' ;;
    'contacts export') REPLY='-w --workspace --output --tag --opt-in-status --bom -h --help' ;;
    'tags') REPLY='-h --help' ;;
    'tags list') REPLY='-w --workspace --page --per-page --all -h --help' ;;
    'templates') REPLY='-h --help' ;;
    'templates list') REPLY='-w --workspace --status --category --name --language --page --per-page --all -h --help' ;;
    'templates get') REPLY='-w --workspace -h --help' ;;
    'templates create') REPLY='-w --workspace --file --name --category --language --body --example --header --header-example --footer --button --draft --wait --timeout -h --help' ;;
    'templates submit') REPLY='-w --workspace --wait --timeout -h --help' ;;
    'templates delete') REPLY='-w --workspace -y --yes -h --help' ;;
    'templates lint') REPLY='--file -h --help' ;;
    'sandbox') REPLY='-h --help' ;;
    'sandbox templates') REPLY='-h --help' ;;
    'sandbox templates review') REPLY='-w --workspace --approve --reject --detail --pause -h --help' ;;
    'sandbox inbound') REPLY='-w --workspace --from --text -h --help' ;;
    'channels') REPLY='-h --help' ;;
    'channels list') REPLY='-w --workspace --page --per-page --all -h --help' ;;
    'channels get') REPLY='-w --workspace -h --help' ;;
    'channels add') REPLY='-w --workspace --provider --phone --name --phone-number-id --waba-id --access-token-stdin -h --help' ;;
    'campaigns') REPLY='-h --help' ;;
    'campaigns list') REPLY='-w --workspace --status --page --per-page --all -h --help' ;;
    'campaigns get') REPLY='-w --workspace -h --help' ;;
    'campaigns create') REPLY='-w --workspace --name --channel --template --language --all --tag --contacts --var --schedule -y --yes --dry-run -h --help' ;;
    'campaigns launch') REPLY='-w --workspace -y --yes -h --help' ;;
    'campaigns stats') REPLY='-w --workspace --watch -h --help' ;;
    'campaigns pause') REPLY='-w --workspace -h --help' ;;
    'campaigns resume') REPLY='-w --workspace -h --help' ;;
    'campaigns cancel') REPLY='-w --workspace -y --yes -h --help' ;;
    'webhooks') REPLY='-h --help' ;;
    'webhooks create') REPLY='--url --events --description -h --help' ;;
    'webhooks list') REPLY='--page --per-page --all -h --help' ;;
    'webhooks get') REPLY='-h --help' ;;
    'webhooks update') REPLY='--url --events --description --enable --disable -h --help' ;;
    'webhooks delete') REPLY='-y --yes -h --help' ;;
    'webhooks deliveries') REPLY='--page --per-page --all -h --help' ;;
    'events') REPLY='-h --help' ;;
    'events list') REPLY='--type -w --workspace --page --per-page --all -h --help' ;;
    'events get') REPLY='-h --help' ;;
    'events redeliver') REPLY='--endpoint -h --help' ;;
    'listen') REPLY='--forward-to --events -h --help' ;;
    'usage') REPLY='--month --page --per-page --all -h --help' ;;
    'serve') REPLY='--host --port --db --database --plans --public-url --sign-in-link --rate-limit --review-delay --graph-url --throughput --webhook-retry-base --block-private-webhooks --smtp-url --trust-proxy --no-public-signup --log-level --log-format -h --help' ;;
    'serve exec') REPLY='--host --port --db --database --plans --public-url --sign-in-link --rate-limit --review-delay --graph-url --throughput --webhook-retry-base --block-private-webhooks --smtp-url --trust-proxy --no-public-signup --log-level --log-format -h --help' ;;
    'admin') REPLY='-h --help' ;;
    'admin resellers') REPLY='-h --help' ;;
    'admin resellers create') REPLY='--db --database --name -h --help' ;;
    'admin migrate') REPLY='--db --database -h --help' ;;
    'admin copy') REPLY='--from --to --database -h --help' ;;
    'api') REPLY='--data --paginate -h --help' ;;
    'completion') REPLY='-h --help' ;;
    *) REPLY='' ;;
  esac
  REPLY+=' -V --version --base-url --token --profile --json --csv -q --quiet --no-color --debug --idempotency-key'
}

# How the value of option $2 of command path $1 completes (words, @file or @command);
# status 1 when the option takes no value.
_reseller_option_value() {
  case "$1|$2" in
    'plans list|--billing-period') REPLY='monthly quarterly half_yearly yearly lifetime' ;;
    'plans list|--page') REPLY='' ;;
    'plans list|--per-page') REPLY='' ;;
    'workspaces list|--status') REPLY='active trial suspended archived' ;;
    'workspaces list|--page') REPLY='' ;;
    'workspaces list|--per-page') REPLY='' ;;
    'workspaces create|--name') REPLY='' ;;
    'workspaces create|--email') REPLY='' ;;
    'workspaces create|--plan') REPLY='' ;;
    'workspaces update|--name') REPLY='' ;;
    'workspaces update|--status') REPLY='active suspended' ;;
    'workspaces update|--plan') REPLY='' ;;
    'workspaces onboard|--name') REPLY='' ;;
    'workspaces onboard|--email') REPLY='' ;;
    'workspaces onboard|--plan') REPLY='' ;;
    'workspaces onboard|--import') REPLY='@file' ;;
    'workspaces onboard|--default-country') REPLY='' ;;
    'workspaces onboard|--map') REPLY='' ;;
    'workspaces onboard|--preset') REPLY='google outlook hubspot' ;;
    'workspaces onboard|--delimiter') REPLY='' ;;
    'workspaces onboard|--encoding') REPLY='' ;;
    'workspaces tokens list|-w') REPLY='' ;;
    'workspaces tokens list|--workspace') REPLY='' ;;
    'workspaces tokens list|--page') REPLY='' ;;
    'workspaces tokens list|--per-page') REPLY='' ;;
    'workspaces tokens create|-w') REPLY='' ;;
    'workspaces tokens create|--workspace') REPLY='' ;;
    'workspaces tokens create|--name') REPLY='' ;;
    'workspaces tokens create|--scope') REPLY='plans:read workspaces:read workspaces:write contacts:read contacts:write campaigns:read campaigns:write templates:read templates:write webhooks:read webhooks:write' ;;
    'workspaces tokens create|--expires-at') REPLY='' ;;
    'workspaces tokens revoke|-w') REPLY='' ;;
    'workspaces tokens revoke|--workspace') REPLY='' ;;
    'tokens list|--page') REPLY='' ;;
    'tokens list|--per-page') REPLY='' ;;
    'tokens create|--name') REPLY='' ;;
    'tokens create|--scope') REPLY='plans:read workspaces:read workspaces:write contacts:read contacts:write campaigns:read campaigns:write templates:read templates:write webhooks:read webhooks:write' ;;
    'tokens create|--expires-at') REPLY='' ;;
    'contacts list|-w') REPLY='' ;;
    'contacts list|--workspace') REPLY='' ;;
    'contacts list|--search') REPLY='' ;;
    'contacts list|--tag') REPLY='' ;;
    'contacts list|--opt-in-status') REPLY='opted_in not_set opted_out' ;;
    'contacts list|--page') REPLY='' ;;
    'contacts list|--per-page') REPLY='' ;;
    'contacts get|-w') REPLY='' ;;
    'contacts get|--workspace') REPLY='' ;;
    'contacts upsert|-w') REPLY='' ;;
    'contacts upsert|--workspace') REPLY='' ;;
    'contacts upsert|--phone') REPLY='' ;;
    'contacts upsert|--first-name') REPLY='' ;;
    'contacts upsert|--last-name') REPLY='' ;;
    'contacts upsert|--email') REPLY='' ;;
    'contacts upsert|--tag') REPLY='' ;;
    'contacts upsert|--field') REPLY='' ;;
    'contacts upsert|--opt-in-source') REPLY='' ;;
    'contacts upsert|--opted-in-at') REPLY='' ;;
    'contacts upsert|--opt-in') REPLY='opted_in not_set' ;;
    'contacts update|-w') REPLY='' ;;
    'contacts update|--workspace') REPLY='' ;;
    'contacts update|--first-name') REPLY='' ;;
    'contacts update|--last-name') REPLY='' ;;
    'contacts update|--email') REPLY='' ;;
    'contacts update|--tag') REPLY='' ;;
    'contacts update|--field') REPLY='' ;;
    'contacts update|--opt-in-source') REPLY='' ;;
    'contacts update|--opted-in-at') REPLY='' ;;
    'contacts update|--opt-in') REPLY='opted_in not_set opted_out' ;;
    'contacts update|--remove-field') REPLY='' ;;
    'contacts import|-w') REPLY='' ;;
    'contacts import|--workspace') REPLY='' ;;
    'contacts import|--on-duplicate') REPLY='update skip' ;;
    'contacts import|--default-country') REPLY='' ;;
    'contacts import|--timeout') REPLY='' ;;
    'contacts import|--errors') REPLY='@file' ;;
    'contacts import|--map') REPLY='' ;;
    'contacts import|--preset') REPLY='google outlook hubspot' ;;
    'contacts import|--delimiter') REPLY='' ;;
    'contacts import|--encoding') REPLY='' ;;
    'contacts imports get|-w') REPLY='' ;;
    'contacts imports get|--workspace') REPLY='' ;;
    'contacts imports get|--errors') REPLY='@file' ;;
    'contacts imports list|-w') REPLY='' ;;
    'contacts imports list|--workspace') REPLY='' ;;
    'contacts imports list|--page') REPLY='' ;;
    'contacts imports list|--per-page') REPLY='' ;;
    'contacts export|-w') REPLY='' ;;
    'contacts export|--workspace') REPLY='' ;;
    'contacts export|--output') REPLY='@file' ;;
    'contacts export|--tag') REPLY='' ;;
    'contacts export|--opt-in-status') REPLY='opted_in not_set opted_out' ;;
    'tags list|-w') REPLY='' ;;
    'tags list|--workspace') REPLY='' ;;
    'tags list|--page') REPLY='' ;;
    'tags list|--per-page') REPLY='' ;;
    'templates list|-w') REPLY='' ;;
    'templates list|--workspace') REPLY='' ;;
    'templates list|--status') REPLY='draft pending approved rejected paused disabled' ;;
    'templates list|--category') REPLY='marketing utility authentication' ;;
    'templates list|--name') REPLY='' ;;
    'templates list|--language') REPLY='' ;;
    'templates list|--page') REPLY='' ;;
    'templates list|--per-page') REPLY='' ;;
    'templates get|-w') REPLY='' ;;
    'templates get|--workspace') REPLY='' ;;
    'templates create|-w') REPLY='' ;;
    'templates create|--workspace') REPLY='' ;;
    'templates create|--file') REPLY='@file' ;;
    'templates create|--name') REPLY='' ;;
    'templates create|--category') REPLY='marketing utility authentication' ;;
    'templates create|--language') REPLY='' ;;
    'templates create|--body') REPLY='' ;;
    'templates create|--example') REPLY='' ;;
    'templates create|--header') REPLY='' ;;
    'templates create|--header-example') REPLY='' ;;
    'templates create|--footer') REPLY='' ;;
    'templates create|--button') REPLY='' ;;
    'templates create|--timeout') REPLY='' ;;
    'templates submit|-w') REPLY='' ;;
    'templates submit|--workspace') REPLY='' ;;
    'templates submit|--timeout') REPLY='' ;;
    'templates delete|-w') REPLY='' ;;
    'templates delete|--workspace') REPLY='' ;;
    'templates lint|--file') REPLY='@file' ;;
    'sandbox templates review|-w') REPLY='' ;;
    'sandbox templates review|--workspace') REPLY='' ;;
    'sandbox templates review|--reject') REPLY='ABUSIVE_CONTENT INCORRECT_CATEGORY INVALID_FORMAT PROMOTIONAL SCAM TAG_CONTENT_MISMATCH' ;;
    'sandbox templates review|--detail') REPLY='' ;;
    'sandbox inbound|-w') REPLY='' ;;
    'sandbox inbound|--workspace') REPLY='' ;;
    'sandbox inbound|--from') REPLY='' ;;
    'sandbox inbound|--text') REPLY='' ;;
    'channels list|-w') REPLY='' ;;
    'channels list|--workspace') REPLY='' ;;
    'channels list|--page') REPLY='' ;;
    'channels list|--per-page') REPLY='' ;;
    'channels get|-w') REPLY='' ;;
    'channels get|--workspace') REPLY='' ;;
    'channels add|-w') REPLY='' ;;
    'channels add|--workspace') REPLY='' ;;
    'channels add|--provider') REPLY='sandbox whatsapp_cloud' ;;
    'channels add|--phone') REPLY='' ;;
    'channels add|--name') REPLY='' ;;
    'channels add|--phone-number-id') REPLY='' ;;
    'channels add|--waba-id') REPLY='' ;;
    'campaigns list|-w') REPLY='' ;;
    'campaigns list|--workspace') REPLY='' ;;
    'campaigns list|--status') REPLY='draft scheduled running paused completed failed cancelled' ;;
    'campaigns list|--page') REPLY='' ;;
    'campaigns list|--per-page') REPLY='' ;;
    'campaigns get|-w') REPLY='' ;;
    'campaigns get|--workspace') REPLY='' ;;
    'campaigns create|-w') REPLY='' ;;
    'campaigns create|--workspace') REPLY='' ;;
    'campaigns create|--name') REPLY='' ;;
    'campaigns create|--channel') REPLY='' ;;
    'campaigns create|--template') REPLY='' ;;
    'campaigns create|--language') REPLY='' ;;
    'campaigns create|--tag') REPLY='' ;;
    'campaigns create|--contacts') REPLY='' ;;
    'campaigns create|--var') REPLY='' ;;
    'campaigns create|--schedule') REPLY='' ;;
    'campaigns launch|-w') REPLY='' ;;
    'campaigns launch|--workspace') REPLY='' ;;
    'campaigns stats|-w') REPLY='' ;;
    'campaigns stats|--workspace') REPLY='' ;;
    'campaigns pause|-w') REPLY='' ;;
    'campaigns pause|--workspace') REPLY='' ;;
    'campaigns resume|-w') REPLY='' ;;
    'campaigns resume|--workspace') REPLY='' ;;
    'campaigns cancel|-w') REPLY='' ;;
    'campaigns cancel|--workspace') REPLY='' ;;
    'webhooks create|--url') REPLY='' ;;
    'webhooks create|--events') REPLY='' ;;
    'webhooks create|--description') REPLY='' ;;
    'webhooks list|--page') REPLY='' ;;
    'webhooks list|--per-page') REPLY='' ;;
    'webhooks update|--url') REPLY='' ;;
    'webhooks update|--events') REPLY='' ;;
    'webhooks update|--description') REPLY='' ;;
    'webhooks deliveries|--page') REPLY='' ;;
    'webhooks deliveries|--per-page') REPLY='' ;;
    'events list|--type') REPLY='workspace.created workspace.updated contact_import.completed contact_import.failed contact.opted_out contact.opted_in template.status_changed channel.connected channel.disconnected campaign.started campaign.completed campaign.failed campaign.paused campaign.cancelled' ;;
    'events list|-w') REPLY='' ;;
    'events list|--workspace') REPLY='' ;;
    'events list|--page') REPLY='' ;;
    'events list|--per-page') REPLY='' ;;
    'events redeliver|--endpoint') REPLY='' ;;
    'listen|--forward-to') REPLY='' ;;
    'listen|--events') REPLY='' ;;
    'usage|--month') REPLY='' ;;
    'usage|--page') REPLY='' ;;
    'usage|--per-page') REPLY='' ;;
    'serve|--host') REPLY='' ;;
    'serve|--port') REPLY='' ;;
    'serve|--db') REPLY='@file' ;;
    'serve|--database') REPLY='' ;;
    'serve|--plans') REPLY='@file' ;;
    'serve|--public-url') REPLY='' ;;
    'serve|--rate-limit') REPLY='' ;;
    'serve|--review-delay') REPLY='' ;;
    'serve|--graph-url') REPLY='' ;;
    'serve|--throughput') REPLY='' ;;
    'serve|--webhook-retry-base') REPLY='' ;;
    'serve|--smtp-url') REPLY='' ;;
    'serve|--trust-proxy') REPLY='' ;;
    'serve|--log-level') REPLY='fatal error warn info debug silent' ;;
    'serve|--log-format') REPLY='json pretty' ;;
    'serve exec|--host') REPLY='' ;;
    'serve exec|--port') REPLY='' ;;
    'serve exec|--db') REPLY='@file' ;;
    'serve exec|--database') REPLY='' ;;
    'serve exec|--plans') REPLY='@file' ;;
    'serve exec|--public-url') REPLY='' ;;
    'serve exec|--rate-limit') REPLY='' ;;
    'serve exec|--review-delay') REPLY='' ;;
    'serve exec|--graph-url') REPLY='' ;;
    'serve exec|--throughput') REPLY='' ;;
    'serve exec|--webhook-retry-base') REPLY='' ;;
    'serve exec|--smtp-url') REPLY='' ;;
    'serve exec|--trust-proxy') REPLY='' ;;
    'serve exec|--log-level') REPLY='fatal error warn info debug silent' ;;
    'serve exec|--log-format') REPLY='json pretty' ;;
    'admin resellers create|--db') REPLY='@file' ;;
    'admin resellers create|--database') REPLY='' ;;
    'admin resellers create|--name') REPLY='' ;;
    'admin migrate|--db') REPLY='@file' ;;
    'admin migrate|--database') REPLY='' ;;
    'admin copy|--from') REPLY='@file' ;;
    'admin copy|--to') REPLY='' ;;
    'admin copy|--database') REPLY='' ;;
    'api|--data') REPLY='' ;;
    *'|--base-url') REPLY='' ;;
    *'|--token') REPLY='' ;;
    *'|--profile') REPLY='' ;;
    *'|--idempotency-key') REPLY='' ;;
    *) return 1 ;;
  esac
}

# How argument number $2 (from 0) of command path $1 completes; status 1 when nothing helps.
_reseller_argument() {
  case "$1|$2" in
    'contacts import|0') REPLY='@file' ;;
    'templates lint|0') REPLY='@file' ;;
    'serve exec|'*) REPLY='@command' ;;
    'api|0') REPLY='GET POST PUT PATCH DELETE' ;;
    'completion|0') REPLY='bash zsh fish' ;;
    *) return 1 ;;
  esac
}

# Status 0 when the command path runs a command line of its own (after its options).
_reseller_runs_command() {
  case $1 in
    'serve exec') return 0 ;;
  esac
  return 1
}

# Fills COMPREPLY with what $1 (words, @file or @command) offers for the word $2; each
# candidate gets $3 in front (an --option= being completed) and loses $4, the part of the
# word that bash does not replace (up to its last = or :).
_reseller_offer() {
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
  for candidate in "${found[@]}"; do
    candidate=$3$candidate
    COMPREPLY+=("${candidate#"$4"}")
  done
}

_reseller() {
  local REPLY word cur path='' i n skip=0 pos=0 dashdash=0 glue=0
  local -a words=()
  # bash splits words at = and : (COMP_WORDBREAKS); put them back together.
  for ((i = 0; i <= COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if ((i > 1)) && [[ $word == [=:] || $glue == 1 ]]; then
      words[${#words[@]}-1]+=$word
      if [[ $word == [=:] ]]; then glue=1; else glue=0; fi
    else
      words+=("$word")
      glue=0
    fi
  done
  n=$((${#words[@]} - 1))
  cur=${words[n]}
  # Readline replaces only what follows the last word-break character (= or :) of the word.
  local breaks='' keep=''
  [[ $COMP_WORDBREAKS == *=* ]] && breaks+='='
  [[ $COMP_WORDBREAKS == *:* ]] && breaks+=':'
  [[ -n $breaks ]] && keep=${cur%"${cur##*[$breaks]}"}

  for ((i = 1; i < n; i++)); do
    word=${words[i]}
    if ((skip)); then
      skip=0
      continue
    fi
    if ((dashdash)) || { _reseller_runs_command "$path" && ((pos > 0)); }; then
      ((pos++))
      continue
    fi
    case $word in
      --) dashdash=1; pos=0; continue ;;
      --*=*) continue ;;
      -*) _reseller_option_value "$path" "$word" && skip=1; continue ;;
    esac
    _reseller_subcommands "$path"
    if ((pos == 0)) && [[ " $REPLY " == *" $word "* ]]; then
      path=${path:+$path }$word
    else
      ((pos++))
    fi
  done

  # The command line that a command such as `serve exec` runs: a command, then files.
  if ((dashdash)) || { _reseller_runs_command "$path" && ((pos > 0)); }; then
    if ((dashdash && pos == 0)); then
      _reseller_offer @command "$cur" '' "$keep"
    else
      _reseller_offer @file "$cur" '' "$keep"
    fi
    return 0
  fi
  # The value of an option: --opt value or --opt=value.
  if ((skip)); then
    _reseller_option_value "$path" "${words[n - 1]}"
    _reseller_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  if [[ $cur == --*=* ]]; then
    COMPREPLY=()
    if _reseller_option_value "$path" "${cur%%=*}"; then
      _reseller_offer "$REPLY" "${cur#*=}" "${cur%%=*}=" "$keep"
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    _reseller_options "$path"
    _reseller_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  _reseller_subcommands "$path"
  if [[ -n $REPLY ]] && ((pos == 0)); then
    _reseller_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  if _reseller_argument "$path" "$pos"; then
    _reseller_offer "$REPLY" "$cur" '' "$keep"
    return 0
  fi
  _reseller_options "$path"
  _reseller_offer "$REPLY" "$cur" '' "$keep"
}

complete -F _reseller reseller
