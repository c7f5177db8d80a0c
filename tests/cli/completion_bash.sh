#!/bin/bash
# Bash completion (completion/gpuwhy.bash): it registers itself for gpuwhy,
# completes commands, each command's options and the values --format lists,
# from the --help texts of the binary being completed, and recordings for files.
source "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?}"
mkdir bin && ln -s "$GW_BIN" bin/gpuwhy
PATH=$SCRATCH/bin:$PATH
# shellcheck source=/dev/null
source "$GW_SOURCE_DIR/completion/gpuwhy.bash"
[[ $(complete -p gpuwhy) == "complete -F _gpuwhy gpuwhy" ]] || fail "not registered: $(complete -p gpuwhy 2>&1)"
# complete WORD... : COMPREPLY for the last word, as bash would fill it
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _gpuwhy gpuwhy "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
assert_eq "gpuwhy rep" "$(complete_words gpuwhy rep)" "report"
assert_eq "gpuwhy report --for" "$(complete_words gpuwhy report --for)" "--format"
assert_eq "gpuwhy report --format j" "$(complete_words gpuwhy report --format j)" "json"
assert_eq "gpuwhy check --js" "$(complete_words gpuwhy check --js)" "--json"
assert_eq "gpuwhy help rep" "$(complete_words gpuwhy help rep)" "report"
# every command of `gpuwhy --help`, and each one's options include --help
commands=$(complete_words gpuwhy "")
for c in record watch report import explain export serve check compare baseline sweep experiment; do
  [[ " $commands " == *" $c "* ]] || fail "command $c not completed (got: $commands)"
done
for c in $commands; do
  [[ " $(complete_words gpuwhy "$c" --) " == *" --help "* ]] || fail "gpuwhy $c --<TAB> lacks --help"
done
# file arguments: recordings, not other files
mkdir rec && touch rec/run1.db rec/run2.db rec/notes.md
assert_eq "gpuwhy report rec/r" "$(complete_words gpuwhy report rec/r)" "rec/run1.db rec/run2.db"
[[ " $(complete_words gpuwhy report rec/) " != *notes.md* ]] || fail "a .md file offered as a recording"
echo "ok: bash completion of commands, options, --format values and recordings"
