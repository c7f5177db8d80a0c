#!/usr/bin/env bash
# Fails when a layer reaches past its interface (docs/ARCHITECTURE.md):
#  1. src/ (the CLI) includes only its own headers and include/gpuwhy: no
#     header of lib/, which is private to the library (CMake does not put lib/
#     on the CLI's include path; this also catches "../lib/..." paths).
#  2. Only lib/store talks to SQLite: no file elsewhere in lib/ includes
#     sqlite3.h, names the SQLite API or takes the store's connection
#     (gw_store_db); they use the store's functions instead.
#     Nor does any file elsewhere in lib/ or src/ hold SQL text ("SELECT ...,
#     "INSERT ... in a string): a query is a function of the store.
#  3. Nothing outside lib/store includes SQLite's header even indirectly:
#     of lib/store's headers only store_sql.h includes sqlite3.h, and only
#     lib/store's .c files include store_sql.h (no header does).
#  4. No include cycle between modules of lib/ (a .c/.h pair):
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

# 2: SQL text stays in lib/store
while IFS= read -r hit; do
  echo "$hit: SQL text outside lib/store: make it a function of the store"
  bad=1
done < <(grep -rnE '"[[:space:]]*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|WITH|ATTACH)[[:space:]]' lib src \
  --include='*.[ch]' | grep -v '^lib/store/' | cut -d: -f1,2 || true)

# 3: the SQL side stays behind lib/store/store_sql.h
for f in lib/store/*.h; do
  [ "$f" = lib/store/store_sql.h ] && continue
  if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<sqlite3\.h>' "$f"; then
    echo "$f: includes sqlite3.h: only lib/store/store_sql.h may (every includer of $f would get SQLite)"
    bad=1
  fi
done
while IFS= read -r f; do
  if [[ $f != lib/store/*.c ]]; then
    echo "$f: includes store_sql.h, which is private to lib/store's .c files"
    bad=1
  fi
done < <(grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(store/|\.\./store/)?store_sql\.h"' lib src | sort)

python3 "$scripts_dir/check-include-cycles.py" . || bad=1
exit $bad
