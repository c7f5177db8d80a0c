#!/usr/bin/env bash
# The layers keep to their interfaces (scripts/check-layering.sh): the CLI
# includes include/gpuwhy only, and only lib/store talks to SQLite (outside the
# folders that script still lists as not yet clean).
. "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?}"
bash "$GW_SOURCE_DIR/scripts/check-layering.sh" "$GW_SOURCE_DIR" > out.txt 2>&1 || fail "layering broken:
$(cat out.txt)"
# The check itself must catch a breach: a copy of src/ with a lib/ include,
# and a copy of lib/compare with an SQLite call.
mkdir -p tree/scripts tree/src tree/lib/compare tree/lib/store
cp "$GW_SOURCE_DIR/scripts/check-layering.sh" tree/scripts/
printf '#include "cli.h"\n#include "core/sample.h"\n' > tree/src/cmd_x.c
touch tree/src/cli.h
if bash tree/scripts/check-layering.sh tree > breach.txt 2>&1; then fail "a lib/ include in src/ went unnoticed"; fi
grep -q 'cmd_x.c: #include "core/sample.h"' breach.txt || fail "breach not named: $(cat breach.txt)"
rm tree/src/cmd_x.c
printf 'int f(void *db) { return sqlite3_changes(db); }\n' > tree/lib/compare/x.c
printf '#include <sqlite3.h>\n' > tree/lib/store/ok.c
if bash tree/scripts/check-layering.sh tree > breach.txt 2>&1; then fail "SQLite in lib/compare went unnoticed"; fi
grep -q 'lib/compare/x.c: SQLite used at line(s) 1' breach.txt || fail "breach not named: $(cat breach.txt)"
grep -q '^lib/store' breach.txt && fail "lib/store may use SQLite: $(cat breach.txt)"
echo "1 passed, 0 failed"
