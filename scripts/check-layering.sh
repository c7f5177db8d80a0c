#!/usr/bin/env bash
# Fails when a layer reaches past its interface (docs/ARCHITECTURE.md):
#  1. src/ (the CLI) includes only its own headers and include/gpuwhy: no
#     header of lib/, which is private to the library (CMake does not put lib/
#     on the CLI's include path; this also catches "../lib/..." paths).
#  2. Only lib/store talks to SQLite: no file elsewhere in lib/ includes
#     sqlite3.h, names the SQLite API or takes the store's connection
#     (gw_store_db); they use the store's functions instead.
#  3. No include cycle between modules of lib/ (a .c/.h pair):
#     scripts/check-include-cycles.py names each cycle and its includes.
# tests/, fuzz/ and bench/ are not checked: they read recordings with SQLite
# directly on purpose, as checks of what the store wrote that do not go
# through the store.
# usage: scripts/check-layering.sh [REPO_ROOT]
set -euo pipefail
scripts_dir=$(cd "$(dirname "$0")" && pwd)
cd "${1:-$scripts_dir/..}"

# Folders of lib/ allowed to query recordings themselves: none since the
# store's loader and iterators serve analysis, render and serve too.
NOT_YET_CLEAN=""

bad=0
lib_folders=$(find lib -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | paste -sd'|')
for f in src/*.c src/*.h; do
  [ -e "$f" ] || continue
  while IFS= read -r line; do
    inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]*)[">].*/\1/' <<<"$line")
    if [[ $line == *'"'* ]]; then
      # a quoted include must be a header of src/ itself
      if [[ $inc == */* || ! -e src/$inc ]]; then
        echo "$f: #include \"$inc\": the CLI uses include/gpuwhy only, not lib/"
        bad=1
      fi
    elif [[ $inc =~ ^($lib_folders)/ || $inc == lib/* ]]; then
      echo "$f: #include <$inc>: a private header of lib/"
      bad=1
    fi
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f" || true)
done

while IFS= read -r f; do
  skip=0
  for d in $NOT_YET_CLEAN; do
    [[ $f == "$d"/* ]] && skip=1
  done
  [ "$skip" = 1 ] && continue
  # every use of SQLite names it: sqlite3.h, the type sqlite3, sqlite3_*
  # calls, or gw_store_db (which hands out the store's connection)
  uses=$(grep -nE '\b(sqlite3(\.h|_[a-z0-9_]+)?|gw_store_db)\b' "$f" | cut -d: -f1 | paste -sd, || true)
  if [ -n "$uses" ]; then
    echo "$f: SQLite used at line(s) $uses: only lib/store talks to SQLite"
    bad=1
  fi
done < <(find lib -name '*.[ch]' -not -path 'lib/store/*' | sort)

python3 "$scripts_dir/check-include-cycles.py" . || bad=1
exit $bad
