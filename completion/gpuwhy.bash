# bash completion for gpuwhy. The commands come from `gpuwhy --help` and each
# command's options from `gpuwhy CMD --help`, read when completing: they always
# match the binary being completed, with no list here to fall out of date.
# File arguments complete recordings (*.db), the traces report and import read,
# and folders.

# The command names of `gpuwhy --help`: indented lines under "commands:".
_gpuwhy_commands() {
  "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

# Every option a command's help text names (--format, -o, ...), and --help.
_gpuwhy_options() {
  {
    echo --help
    "$1" "$2" --help 2>/dev/null | grep -oE -- '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[][ ,|]*//'
  } | sort -u
}

# The values a help text lists for an option: "--format text|json|md".
# Help texts that describe the values in prose ("text (default), json, md,
# or html") give them through the second form: the words after the option's
# metavar on its line (and the next) that name an output format.
_gpuwhy_values() {
  local help listed
  if [[ $3 == --color ]]; then # every command takes the same three (lib/core/term.c)
    echo auto always never
    return
  fi
  help=$("$1" "$2" --help 2>/dev/null)
  listed=$(grep -oE -- "$3[ =][a-z]+(\|[a-z]+)+" <<<"$help" | head -1 | sed 's/^[^ =]*[ =]//' | tr '|' ' ')
  if [[ -n $listed ]]; then
    echo "$listed"
    return
  fi
  grep -A1 -E -- "(^|[ ,])$3(\[?=|[ ])[A-Z]+\]? " <<<"$help" | head -2 | sed -E "s/.*$3(\[?=|[ ])[A-Z]+\]? +//" |
    grep -oE '\b[a-z]+\b' | grep -xE 'text|json|md|html|csv' | sort -u
}

_gpuwhy() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} prog=${COMP_WORDS[0]}
  local i cmd=
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
    -*) ;;
    *)
      cmd=${COMP_WORDS[i]}
      break
      ;;
    esac
  done
  COMPREPLY=()
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(_gpuwhy_commands "$prog")" -- "$cur")
    fi
    return 0
  fi
  # after "--" come the command to record and its own arguments
  local j
  for ((j = i + 1; j < COMP_CWORD; j++)); do
    if [[ ${COMP_WORDS[j]} == -- ]]; then
      if ((j + 1 == COMP_CWORD)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
      else
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      fi
      return 0
    fi
  done
  if [[ $cmd == help ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_gpuwhy_commands "$prog")" -- "$cur")
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_gpuwhy_options "$prog" "$cmd")" -- "$cur")
    return 0
  fi
  if [[ $prev == -* ]]; then
    local values
    values=$(_gpuwhy_values "$prog" "$cmd" "$prev")
    if [[ -n $values ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
      return 0
    fi
  fi
  compopt -o filenames 2>/dev/null
  local ext
  for ext in db json json.gz csv txt sql; do
    mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -X "!*.$ext" -- "$cur")
  done
  mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -d -- "$cur")
  return 0
}
complete -F _gpuwhy gpuwhy
