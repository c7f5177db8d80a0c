#!/usr/bin/env bash
# gpuwhy report --format html on three real H200 recordings, opened in
# headless Chromium with networking off: the page renders (a screenshot that
# is not blank), its one inline script ran without errors (it marks the
# body), and the file references nothing outside itself.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
"$GW_BIN" report --help 2>&1 | grep html >/dev/null || { echo "SKIP: this gpuwhy has no HTML report yet"; exit 77; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "SKIP: chromium is not installed (Debian package chromium)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)

# run_browser RESULT STDOUT ARGS...: headless, offline, a fresh profile each
# time; retried once when RESULT is missing, since a headless start
# occasionally dies early.
run_browser() {
  local result=$1 out=$2
  shift 2
  for attempt in 1 2; do
    rm -rf profile "$result" && mkdir profile
    timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
      --user-data-dir="$SCRATCH/profile" --enable-logging=stderr --v=0 "$@" >"$out" 2>browser.log || true
    [ -s "$result" ] && return 0
    echo "chromium attempt $attempt failed:" >&2
    tail -5 browser.log >&2
  done
  return 1
}

for name in worked_case_s0 schedule_eval healthy; do
  db="$GW_FIXTURES/scenarios/$name.db"
  "$GW_BIN" report "$db" --format html -o "$name.html" || fail "$name: gpuwhy report --format html exited $?"
  # self-contained: no external reference of any kind
  if grep -Eqi '(src|href)=|url\(|@import|https?://' "$name.html"; then
    grep -Eoi '.{30}((src|href)=|url\(|@import|https?://).{30}' "$name.html" | head -3 >&2
    fail "$name: the page refers to something outside itself"
  fi
  grep -q '<svg' "$name.html" || fail "$name: no chart in the page"

  run_browser "$name.dom" "$name.dom" --dump-dom "file://$SCRATCH/$name.html" || fail "$name: chromium could not load the page"
  grep -q 'data-gw="ready"' "$name.dom" || fail "$name: the page's script did not run (body not marked ready)"
  if grep -Ei 'Uncaught|SyntaxError|ReferenceError|TypeError' browser.log; then
    fail "$name: script errors in the console"
  fi

  run_browser "$name.png" shot.log --screenshot="$SCRATCH/$name.png" --window-size=1200,2400 \
    "file://$SCRATCH/$name.html" || fail "$name: no screenshot"
  # A rendered report covers well over 5% of the window with ink in many colours.
  python3 "$here/png_check.py" "$name.png" 0.05 20 || fail "$name: the screenshot is blank"
done

# The verdicts the pages lead with.
grep -q 'class="verdict ok"' healthy.html || fail "healthy: no 'nothing to fix' verdict"
grep -q 'periodic dips (every' schedule_eval.html || fail "schedule_eval: periodic dips not marked"
grep -q 'input_pipeline' worked_case_s0.html || fail "worked_case_s0: input pipeline finding missing"
echo "3 pages rendered"
