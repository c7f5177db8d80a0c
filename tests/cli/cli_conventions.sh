#!/usr/bin/env bash
# The command line behaves like the tools its users know (issue 35, item 4):
# options anywhere and -- before a file named like one; help CMD, -V and
# CMD --version; a usage error is one line and a hint, never the whole help;
# exit statuses keep gpuwhy's failures apart from the recorded command's;
# --color, NO_COLOR and TERM=dumb; text wrapped at COLUMNS with table rows
# kept whole; -o names the format by its extension and .gz is compressed;
# sweep orders its runs and says when --param is in no command; watch --plain
# says "no GPU data" once.
. "$(dirname "$0")/lib.bash"
FX=$GW_FIXTURES/hook_suite
cp "$FX/small_batch.db" run.db
cp "$FX/healthy.db" other.db
export GPUWHY_NVML_LIB=/nonexistent/libnvidia-ml.so.1
unset COLUMNS NO_COLOR

# --- 1. options anywhere; -- ends them
"$GW_BIN" report run.db --format json > after.json || fail "report FILE --format json exited $?"
python3 -m json.tool after.json > /dev/null || fail "report FILE --format json did not write JSON"
"$GW_BIN" report --format json run.db > before.json
cmp -s after.json before.json || fail "--format after the file gives another report than before it"
"$GW_BIN" sweep --from run.db other.db --format json > sweep.json 2> sweep.err ||
  fail "sweep --from A B --format json exited $?"
python3 -m json.tool sweep.json > /dev/null || fail "sweep --from A B --format json did not write JSON"
cp run.db ./--format.db
"$GW_BIN" report --format json -- --format.db > dashed.json || fail "report -- FILE exited $?"
grep -q '"recording": "--format.db"' dashed.json || fail "report -- FILE did not report the file named like an option"
"$GW_BIN" compare run.db --format json other.db > cmp.json || fail "compare A --format json B exited $?"
python3 -m json.tool cmp.json > /dev/null || fail "compare with --format between the runs did not write JSON"

# --- 2. help CMD, -V, --version
"$GW_BIN" help report > help1.txt || fail "gpuwhy help report exited $?"
"$GW_BIN" report --help > help2.txt
cmp -s help1.txt help2.txt || fail "gpuwhy help report differs from gpuwhy report --help"
head -1 help1.txt | grep -q '^usage: gpuwhy report' || fail "help report: no usage line: $(head -1 help1.txt)"
rc=0
"$GW_BIN" help nosuch 2> nosuch.err || rc=$?
assert_eq "gpuwhy help nosuch" "$rc" 2
want="gpuwhy $("$GW_BIN" --version | awk '{print $2}')"
for args in "-V" "--version" "report --version" "report run.db --version" "compare -V" "sweep --version" \
  "record --version" "check -V" "explain --version" "import --version" "export -V" "baseline --version" \
  "experiment --version" "watch --version" "serve --version"; do
  # shellcheck disable=SC2086
  out=$("$GW_BIN" $args) || fail "gpuwhy $args exited $?"
  assert_eq "gpuwhy $args" "$out" "$want"
done

# --- 3. a usage error: one line saying what is wrong, one hint, exit 2
usage_error() { # CMD ARGS...: exactly two lines on stderr, nothing on stdout
  local cmd=$1 rc=0
  "$GW_BIN" "$@" > ue.out 2> ue.err || rc=$?
  assert_eq "exit of gpuwhy $*" "$rc" 2
  [ ! -s ue.out ] || fail "gpuwhy $*: wrote to stdout: $(cat ue.out)"
  assert_eq "lines on stderr of gpuwhy $*" "$(wc -l < ue.err)" 2
  head -1 ue.err | grep -q "^gpuwhy $cmd: ." || fail "gpuwhy $*: first line: $(head -1 ue.err)"
  assert_eq "hint of gpuwhy $*" "$(tail -1 ue.err)" "Try 'gpuwhy $cmd --help' for more."
}
usage_error record --bogus -- true
usage_error record --interval 1 -- true
usage_error record
usage_error report --bogus run.db
usage_error report
usage_error report run.db --format
usage_error report --color=sometimes run.db
usage_error sweep --from
usage_error sweep --param bs -- true
usage_error compare run.db
usage_error compare --nope run.db other.db
usage_error export run.db
usage_error import
usage_error check --bogus
usage_error check extra
usage_error baseline
usage_error explain nosuchclass
usage_error serve --interval 1
usage_error watch --count 0
"$GW_BIN" record --bogus -- true 2> bogus.err || true
grep -q "unknown option '--bogus'" bogus.err || fail "the unknown option is not named: $(cat bogus.err)"

# --- 4. exit statuses: gpuwhy's own failures apart from the command's
rc=0
"$GW_BIN" record -q -o r1.db -- sh -c 'exit 3' || rc=$?
assert_eq "record of a command exiting 3" "$rc" 3
rc=0
"$GW_BIN" record -q -o r2.db -- ./no-such-command 2> /dev/null || rc=$?
assert_eq "record of a command not found" "$rc" 127
printf 'not a program\n' > notexec
chmod -x notexec
rc=0
"$GW_BIN" record -q -o r3.db -- ./notexec 2> /dev/null || rc=$?
assert_eq "record of a command that cannot be run" "$rc" 126
rc=0
"$GW_BIN" record -q -o no/such/dir/r.db -- true 2> /dev/null || rc=$?
assert_eq "record that cannot write its recording" "$rc" 125
mkdir sw
rc=0
"$GW_BIN" sweep -q --param v=1 -o sw -- ./no-such-command {v} 2> /dev/null || rc=$?
assert_eq "sweep of a command not found" "$rc" 127
rc=0
"$GW_BIN" check > /dev/null 2>&1 || rc=$?
assert_eq "check with a failed item (no driver)" "$rc" 1
"$GW_BIN" --help > main-help.txt
grep -q "125 when gpuwhy itself failed" main-help.txt || fail "gpuwhy --help does not document 125"
"$GW_BIN" record --help > record-help.txt
grep -q "127 when CMD was not found" record-help.txt || fail "record --help does not document 127"

# --- 5. colour: --color, NO_COLOR, TERM=dumb, a terminal (script(1) gives one)
"$GW_BIN" report run.db > plain.txt
grep -q $'\033' plain.txt && fail "colour in piped output"
"$GW_BIN" report --color=always run.db > always.txt
grep -q $'\033\\[' always.txt || fail "--color=always gave no colour"
"$GW_BIN" report --color=never run.db > never.txt
grep -q $'\033' never.txt && fail "--color=never gave colour"
if command -v script > /dev/null; then
  tty_report() { # ENV...: the report written to a terminal
    script -qec "env $* $GW_BIN report run.db" /dev/null < /dev/null > tty.txt
  }
  tty_report TERM=xterm
  grep -q $'\033\\[1m' tty.txt || fail "no colour on a terminal"
  tty_report TERM=dumb
  grep -q $'\033' tty.txt && fail "colour with TERM=dumb"
  tty_report TERM=xterm NO_COLOR=1
  grep -q $'\033' tty.txt && fail "colour with NO_COLOR=1"
  tty_report TERM=xterm NO_COLOR=
  grep -q $'\033\\[1m' tty.txt || fail "an empty NO_COLOR turned colour off"
fi

# --- 6. wrapped at COLUMNS: no line wider, but table rows and single words
too_wide() { # WIDTH: lines wider than WIDTH that are neither a table row nor one long word
  awk -v w="$1" '{ line = $0; sub(/^ +/, "", line) }
    length($0) > w && line !~ /[^ ]  +[^ ]/ && line ~ / / { print; n++ } END { exit n > 0 }'
}
awk 'length($0) > 100 { n++ } END { exit !(n > 0) }' plain.txt || fail "the fixture has no long line: the test proves nothing"
COLUMNS=80 "$GW_BIN" report run.db > wrapped.txt
too_wide 80 < wrapped.txt || fail "report lines over 80 columns with COLUMNS=80: $(too_wide 80 < wrapped.txt)"
words() { tr -s ' \n' '\n\n' < "$1" | grep -v '^$'; }
cmp -s <(words wrapped.txt) <(words plain.txt) || fail "wrapping lost or changed words"
COLUMNS=80 "$GW_BIN" explain > explain.txt
too_wide 80 < explain.txt || fail "explain lines over 80 columns: $(too_wide 80 < explain.txt)"
COLUMNS=80 "$GW_BIN" report run.db -o file.txt
cmp -s file.txt plain.txt || fail "-o FILE was wrapped: only standard output is"

# --- 7. -o names the format; --format wins; .gz is compressed
"$GW_BIN" report run.db -o r.json
python3 -m json.tool r.json > /dev/null || fail "-o r.json did not write JSON"
"$GW_BIN" report run.db -o r.html
grep -qi '<html' r.html || fail "-o r.html did not write HTML"
"$GW_BIN" report run.db -o r.md
grep -q '^# ' r.md || fail "-o r.md did not write Markdown"
"$GW_BIN" report run.db --format text -o t.json
cmp -s t.json plain.txt || fail "--format text -o t.json is not the text report"
"$GW_BIN" report run.db -o r.json.gz
gzip -t r.json.gz || fail "-o r.json.gz is not gzip"
zcat r.json.gz > r2.json
python3 -m json.tool r2.json > /dev/null || fail "-o r.json.gz does not hold JSON"
"$GW_BIN" export run.db --perfetto x.json.gz 2> /dev/null || fail "export --perfetto x.json.gz exited $?"
gzip -t x.json.gz || fail "export --perfetto x.json.gz is not gzip"
zcat x.json.gz > x.json
python3 -m json.tool x.json > /dev/null || fail "the exported x.json.gz does not hold JSON"
"$GW_BIN" compare run.db other.db -o c.json
python3 -m json.tool c.json > /dev/null || fail "compare -o c.json is not JSON"

# --- 8. sweep: ordered by the parameter's value; a parameter in no command said once
for bs in 64 8 16; do
  cp "$FX/healthy.db" "a_$bs.db"
  q "a_$bs.db" "UPDATE run SET command = '[\"python3\",\"train.py\",\"--batch-size\",\"$bs\"]'"
done
"$GW_BIN" sweep --from a_*.db --param batch-size --format json > sw.json 2> sw.err
rows() { python3 -c 'import json, sys; print(" ".join(r["value"] for r in json.load(open(sys.argv[1]))["rows"]))' "$1"; }
assert_eq "sweep order by value" "$(rows sw.json)" "8 16 64"
[ ! -s sw.err ] || fail "a warning although every command has --batch-size: $(cat sw.err)"
cp run.db b16.db
cp other.db b8.db
"$GW_BIN" sweep --from b16.db b8.db --param bs --format json > sw2.json 2> sw2.err
assert_eq "warnings for a parameter in no command" "$(grep -c 'no such option' sw2.err)" 1
assert_eq "sweep order by name" "$(rows sw2.json)" "b8 b16"

# --- 9. watch --plain: "no GPU data" once, not every frame
"$GW_BIN" watch --plain --interval 200 --count 3 > watch.txt 2>&1 || fail "watch exited $?"
assert_eq "frames" "$(grep -c '^gpuwhy watch' watch.txt)" 3
assert_eq "no-driver lines in 3 frames" "$(grep -c 'no GPU data' watch.txt)" 1
echo "1 passed, 0 failed"
