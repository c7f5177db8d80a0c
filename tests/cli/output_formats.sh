#!/bin/bash
# Each command renders the formats in its renderer table and refuses any
# other with exit 2 and the list of those it has: compare renders a
# self-contained HTML page; baseline, sweep and check have no HTML.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
S="$GW_FIXTURES/scenarios"
export GPUWHY_HOME="$SCRATCH/home" NO_COLOR=1
unset LANGUAGE LC_ALL LC_MESSAGES
export LANG=C

# refused EXPECTED_LIST CMD...: exit 2, nothing on stdout, the formats named
refused() {
  local list=$1 rc=0
  shift
  "$GW_BIN" "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" = 2 ] || fail "gpuwhy $* exited $rc, expected 2"
  [ ! -s out.txt ] || fail "gpuwhy $* wrote to stdout: $(head -3 out.txt)"
  grep -qF "has $list)" err.txt || fail "gpuwhy $* does not list '$list': $(head -2 err.txt)"
}

# compare: an HTML page with the runs, the verdict and the changes.
"$GW_BIN" compare "$S/sweep_bs32.db" "$S/sweep_bs64.db" "$S/sweep_bs128.db" --format html >cmp.html
python3 - cmp.html <<'PY'
import sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
assert page.startswith("<!DOCTYPE html>"), "no doctype"
assert '<html lang="en">' in page, "no lang"
assert "http://" not in page and "https://" not in page, "an external URL"
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.heads, self.cells, self.tag = [], [], [], None
    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "br"):
            self.stack.append(tag)
        self.tag = tag
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
    def handle_data(self, d):
        if self.tag in ("h1", "h2", "h3"):
            self.heads.append(d)
        if self.tag in ("td", "th"):
            self.cells.append(d)
p = P()
p.feed(page)
assert not p.stack, f"unclosed {p.stack}"
heads = " | ".join(p.heads)
for want in ("gpuwhy compare", "Differences", "B vs A (sweep_bs64 vs sweep_bs32)", "C vs B", "C vs A"):
    assert want in heads, f"heading {want!r} missing from {heads!r}"
for want in ("samples/s", "step time, median", "ledger: idle_input"):
    assert want in p.cells, f"row {want!r} missing"
assert "better" in page and "bootstrap resamples" in page
PY
# the same comparison as Markdown and as HTML: the same verdicts
md_verdicts=$("$GW_BIN" compare "$S/sweep_bs32.db" "$S/sweep_bs64.db" "$S/sweep_bs128.db" --format md |
  sed -n 's/^### .*: \*\*\(.*\)\*\*$/\1/p' | tr '\n' ,)
html_verdicts=$(sed -n 's/.*<p class="verdict[^"]*">\([^<]*\)<\/p>.*/\1/p' cmp.html | tr '\n' ,)
assert_eq "HTML verdicts" "$html_verdicts" "$md_verdicts"
# `html` is a compare format; what is no format anywhere is refused
refused "text, json, md, html" compare "$S/sweep_bs32.db" "$S/sweep_bs64.db" --format pdf
refused "text, json, md, html" report --format pdf "$S/healthy.db"

# baseline, sweep and check have no HTML: exit 2 before any work
"$GW_BIN" baseline save b32 "$S/sweep_bs32.db" >/dev/null
refused "text, json, md" baseline check b32 "$S/sweep_bs64.db" --format html
refused "text, json, md" baseline list --format html
refused "text, json, md" sweep --format html --from "$S/sweep_bs32.db" "$S/sweep_bs64.db"
refused "text, json, md" sweep --format html --param bs=1,2 -o "$SCRATCH/sw" -- touch "$SCRATCH/ran_{bs}"
[ ! -e "$SCRATCH/ran_1" ] || fail "sweep ran the command before refusing the format"
refused "text, json" check --format html --root "$GW_FIXTURES/check/healthy"
refused "text, json" check --format md --root "$GW_FIXTURES/check/healthy"
# check --format json is check --json
rc=0
"$GW_BIN" check --json --root "$GW_FIXTURES/check/healthy" --nvml-lib "$GW_FAKE_NVML" >a.json 2>/dev/null || rc=$?
rc2=0
"$GW_BIN" check --format json --root "$GW_FIXTURES/check/healthy" --nvml-lib "$GW_FAKE_NVML" >b.json 2>/dev/null || rc2=$?
assert_eq "check --format json exit" "$rc2" "$rc"
python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); assert [i["id"] for i in a["items"]]==[i["id"] for i in b["items"]]' a.json b.json ||
  fail "check --format json differs from check --json"
echo "ok: renderer tables refuse what they lack, compare renders HTML"
