#!/bin/sh
# One man page from the same text as --help, by help2man:
#   make_man_page.sh GPUWHY VERSION OUT [COMMAND]
# Without COMMAND, gpuwhy.1 from `gpuwhy --help`; with it, gpuwhy-COMMAND.1
# from `gpuwhy COMMAND --help`, named after the line `gpuwhy --help` gives
# the command. help2man runs a program: a two-line wrapper stands for
# "gpuwhy COMMAND".
set -eu
gpuwhy=$1 version=$2 out=$3 cmd=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$cmd" ]; then
  name="say why a GPU is under-used in a training job"
  # a command name as long as its column ("experiment") is followed by one
  # space only: help2man needs two to tell the name from its description
  printf '#!/bin/sh\n"%s" "$@" | sed "/^commands:/,/^\\$/ s/^  \\([a-z][a-z]*\\) \\([^ ]\\)/  \\1  \\2/"\n' "$gpuwhy" \
    >"$tmp/gpuwhy"
  prog=$tmp/gpuwhy
else
  name=$("$gpuwhy" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
  [ -n "$name" ] || name="gpuwhy $cmd"
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$gpuwhy" "$cmd" >"$tmp/gpuwhy-$cmd"
  prog=$tmp/gpuwhy-$cmd
fi
chmod +x "$prog"
# --version-string: the commands answer --help only; the version is the build's
help2man --no-info --no-discard-stderr --version-string="$version" --name="$name" \
  --section=1 --source="gpuwhy $version" --manual="gpuwhy manual" --output="$out.part" "$prog"
mv "$out.part" "$out"
