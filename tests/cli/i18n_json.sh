#!/bin/bash
# JSON is for machines: the same bytes in every language. The diagnosis is
# data (evidence, notes, fixes, titles as ids and values) worded at render
# time, in English by the JSON renderers of report and sweep (and compare and
# baseline, tested in i18n_compare.sh), with no switch of the message locale.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
S="$GW_FIXTURES/scenarios"
bindir=$(dirname "$GW_BIN")
[ -f "$bindir/locale/zh_CN/LC_MESSAGES/gpuwhy.mo" ] || { echo "no zh_CN catalog beside $GW_BIN: skipped"; exit 77; }
# Fixtures with findings of every class, several GPUs, and none.
for f in launch_tiny_ops input_slow_read input_cpu_transforms ddp_straggler ddp_comm_heavy hardware_xid power_cap \
  schedule_eval small_batch healthy; do
  in_env LANG=C report --format json "$S/$f.db" >"$f.en.json"
  in_env LANG=zh_CN.UTF-8 report --format json "$S/$f.db" >"$f.zh.json"
  in_env LC_ALL=C.UTF-8 LANGUAGE=zh_CN report --format json "$S/$f.db" >"$f.zh2.json"
  cmp -s "$f.en.json" "$f.zh.json" || fail "$f: report --format json differs under LANG=zh_CN.UTF-8: $(diff "$f.en.json" "$f.zh.json" | head -4)"
  cmp -s "$f.en.json" "$f.zh2.json" || fail "$f: report --format json differs under LANGUAGE=zh_CN"
done
# The language does reach the text report, so the sameness above is not for want of a catalog.
in_env LANG=zh_CN.UTF-8 report "$S/launch_tiny_ops.db" >zh.txt
LC_ALL=C grep -q $'[\x80-\xff]' zh.txt || fail "the zh_CN text report has no Chinese"
grep -q '"evidence"' launch_tiny_ops.en.json || fail "no evidence in the JSON report"

# Two nodes reported together (the note about them is worded too).
in_env LANG=C report --same-job --format json "$S/ddp_balanced.db" "$S/ddp_straggler.db" >nodes.en.json
in_env LANG=zh_CN.UTF-8 report --same-job --format json "$S/ddp_balanced.db" "$S/ddp_straggler.db" >nodes.zh.json
cmp -s nodes.en.json nodes.zh.json || fail "a two-node report --format json differs under LANG=zh_CN.UTF-8"

# sweep
sw=("$S/sweep_bs32.db" "$S/sweep_bs64.db" "$S/sweep_bs128.db")
in_env LANG=C sweep --format json --batch --from "${sw[@]}" >sweep.en.json
in_env LANG=zh_CN.UTF-8 sweep --format json --batch --from "${sw[@]}" >sweep.zh.json
cmp -s sweep.en.json sweep.zh.json || fail "sweep --format json differs under LANG=zh_CN.UTF-8"
echo "ok: JSON is the same in English and Chinese"
