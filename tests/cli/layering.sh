#!/usr/bin/env bash
# The layers keep to their interfaces (scripts/check-layering.sh): the CLI
# includes include/gpuwhy only, only lib/store talks to SQLite (outside the
# folders that script still lists as not yet clean), and no modules of lib/
# include each other in a cycle.
. "$(dirname "$0")/lib.bash"
: "${GW_SOURCE_DIR:?}"
bash "$GW_SOURCE_DIR/scripts/check-layering.sh" "$GW_SOURCE_DIR" > out.txt 2>&1 || fail "layering broken:
$(cat out.txt)"
# The check itself must catch a breach: a copy of src/ with a lib/ include,
# and a copy of lib/compare with an SQLite call.
mkdir -p tree/scripts tree/src tree/lib/compare tree/lib/store
cp "$GW_SOURCE_DIR/scripts/check-layering.sh" "$GW_SOURCE_DIR/scripts/check-include-cycles.py" tree/scripts/
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
rm tree/lib/compare/x.c
bash tree/scripts/check-layering.sh tree > clean.txt 2>&1 || fail "a clean tree fails: $(cat clean.txt)"
# a cycle of three modules, one edge through a header beside its user
mkdir -p tree/lib/analysis
printf '#include "analysis/b.h"\n' > tree/lib/analysis/a.c
printf 'struct a;\n' > tree/lib/analysis/a.h
printf '#include "c.h"\n' > tree/lib/analysis/b.h
printf '#include "../analysis/a.h"\n' > tree/lib/analysis/c.c
printf 'struct c;\n' > tree/lib/analysis/c.h
printf '#include "analysis/a.h"\n#include <stdio.h>\n' > tree/lib/analysis/d.c
if bash tree/scripts/check-layering.sh tree > breach.txt 2>&1; then fail "an include cycle went unnoticed"; fi
grep -q 'include cycle between modules of lib/: analysis/a -> analysis/b -> analysis/c -> analysis/a' breach.txt ||
  fail "cycle not named: $(cat breach.txt)"
grep -q 'lib/analysis/c.c:1: #include "../analysis/a.h"' breach.txt || fail "include not named: $(cat breach.txt)"
grep -q 'analysis/d' breach.txt && fail "d is outside the cycle: $(cat breach.txt)"
rm tree/lib/analysis/c.c
bash tree/scripts/check-layering.sh tree > clean.txt 2>&1 || fail "no cycle left, yet: $(cat clean.txt)"
echo "1 passed, 0 failed"
