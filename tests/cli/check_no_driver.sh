#!/usr/bin/env bash
# gpuwhy check on a machine without an NVIDIA driver (CI, this build machine):
# one clear failed item for the driver, the kernel log and host items after it,
# exit status 1 (a failed item is a finding); usage errors alone exit 2 and an
# unreadable --root exits 3.
. "$(dirname "$0")/lib.bash"
help_text=$("$GW_BIN" check --help 2>&1 || true)
if [[ $help_text == *"unknown command"* ]]; then
  echo "SKIP: gpuwhy has no check command in its table yet"
  exit 77
fi
export GPUWHY_NVML_LIB=/nonexistent/libnvidia-ml.so.1

set +e
"$GW_BIN" check > out.txt 2> err.txt
rc=$?
"$GW_BIN" check --json > out.json 2>> err.txt
rj=$?
set -e
assert_eq "exit status without a driver" "$rc" 1
assert_eq "exit status without a driver (--json)" "$rj" 1
[ ! -s err.txt ] || fail "stderr not empty: $(cat err.txt)"
assert_eq "driver items" "$(grep -c '^  [A-Z]\{4\}  NVIDIA driver ' out.txt)" 1
grep -q '^  FAIL  NVIDIA driver  *no NVIDIA driver: ' out.txt || fail "no clear no-driver item: $(cat out.txt)"
grep -q '^GPU ' out.txt && fail "GPU section without a driver"
grep -q '^Host$' out.txt || fail "no host section"
for title in memory "CPU cores" disk; do
  grep -q "^  [A-Z]\{4\}  $title " out.txt || fail "host item '$title' missing: $(cat out.txt)"
done
grep -q '^Kernel log$' out.txt || fail "no kernel log section"
tail -1 out.txt | grep -q '^1 fail, [0-9]* warn, [0-9]* note, [0-9]* pass: exit status 1$' || fail "summary: $(tail -1 out.txt)"
grep -q '"exit_status": 1' out.json || fail "JSON exit status"
assert_eq "JSON driver items" "$(grep -c '"group": "driver"' out.json)" 1
grep -q '"id": "driver.nvml", "group": "driver", "gpu": null, "status": "fail"' out.json || fail "JSON driver item"
grep -q '"driver": null' out.json || fail "JSON driver facts should be null"
if command -v python3 > /dev/null; then
  python3 -m json.tool out.json > /dev/null || fail "output is not JSON"
fi
# No colour when not on a terminal.
grep -q $'\033' out.txt && fail "colour codes in piped output"

# Usage and input errors.
set +e
"$GW_BIN" check --bogus 2> usage.txt
ru=$?
"$GW_BIN" check extra 2> /dev/null
re=$?
"$GW_BIN" check --root 2> /dev/null
rm=$?
"$GW_BIN" check --root /nonexistent/tree 2> input.txt
ri=$?
"$GW_BIN" check --help > help.txt
rh=$?
set -e
assert_eq "unknown option" "$ru" 2
grep -q "unknown option '--bogus'" usage.txt || fail "usage message: $(cat usage.txt)"
assert_eq "extra argument" "$re" 2
assert_eq "--root without a value" "$rm" 2
assert_eq "missing --root" "$ri" 3
grep -q "/nonexistent/tree" input.txt || fail "input error does not name the root: $(cat input.txt)"
assert_eq "--help" "$rh" 0
grep -q "Exit status: 0 every item passes" help.txt || fail "--help does not document the exit status"
grep -q "3 input error" help.txt || fail "--help does not document input errors"
echo "1 passed, 0 failed"
