#!/bin/bash
# gpuwhy report and explain speak Simplified Chinese when the environment asks
# for it, English otherwise, and keep machine-read ids English either way.
# No zh_CN locale needs to be installed: LANG=zh_CN.UTF-8 falls back to
# C.UTF-8 with LANGUAGE=zh_CN inside gpuwhy, and LC_ALL=C.UTF-8 LANGUAGE=zh_CN
# is the plain glibc way.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
: "${GW_SOURCE_DIR:?GW_SOURCE_DIR must point at the source tree}"
db="$GW_FIXTURES/scenarios/launch_tiny_ops.db"
# in_env (lib.bash) passes GPUWHY_LOCALEDIR through, when use_zh_catalog exports it.
use_zh_catalog
non_ascii() { LC_ALL=C grep -q $'[\x80-\xff]' "$1"; }

# English: the C locale, and also LANGUAGE alone (glibc ignores it in C).
in_env LANG=C report "$db" >en.txt
has en.txt "Verdict: Kernel launches, not the GPU, set the pace [launch_overhead]"
has en.txt "idle: launch (host cannot issue kernels fast enough)"
has en.txt "Try, cheapest first:"
! non_ascii en.txt || fail "LANG=C report holds non-ASCII text"
in_env LANG=C LANGUAGE=zh_CN report "$db" >en2.txt
cmp -s en.txt en2.txt || fail "LANGUAGE=zh_CN under the C locale changed the report"

# Chinese through LANG, the way a Chinese desktop or container sets it.
in_env LANG=zh_CN.UTF-8 report "$db" >zh.txt
has zh.txt "结论："
has zh.txt "速度受限于内核启动，而不是 GPU 本身 [launch_overhead]"
has zh.txt "GPU 时间账本"
has zh.txt "空闲：启动（主机发射内核的速度跟不上）"
has zh.txt "可尝试的修复（成本最低的在前）："
has zh.txt "如何解读这些数字"
has zh.txt "从训练循环中去掉 .item()、打印张量和 torch.cuda.synchronize()"
lacks zh.txt "Verdict:"
lacks zh.txt "Reading the numbers"
# Same numbers in both languages: every percentage of the English report.
diff <(grep -o '[0-9.]*%' en.txt | sort) <(grep -o '[0-9.]*%' zh.txt | sort) >/dev/null ||
  fail "the Chinese report's percentages differ from the English ones"

# The plain glibc combination and LC_ALL give the same Chinese report.
in_env LC_ALL=C.UTF-8 LANGUAGE=zh_CN report "$db" >zh2.txt
cmp -s zh.txt zh2.txt || fail "LC_ALL=C.UTF-8 LANGUAGE=zh_CN differs from LANG=zh_CN.UTF-8"
in_env LANG=C LC_ALL=zh_CN.UTF-8 report "$db" >zh3.txt
cmp -s zh.txt zh3.txt || fail "LC_ALL=zh_CN.UTF-8 does not override LANG=C"

# The ledger columns line up although the row titles are double-width.
python3 - zh.txt <<'PY' || fail "ledger columns are misaligned in Chinese"
import sys, unicodedata
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
rows = [l for l in lines if l.startswith("  ") and l[2] not in " -" and (l.endswith("%") or l.endswith(" -"))]
ends = {width(l) for l in rows}
print("ledger rows", len(rows), "end columns", sorted(ends))
sys.exit(0 if len(rows) == 10 and len(ends) == 1 else 1)
PY

# Markdown and JSON: human text translated, ids and numbers untouched.
in_env LANG=zh_CN.UTF-8 report --format md "$db" >zh.md
has zh.md "## 诊断结果"
has zh.md "### 1. 速度受限于内核启动，而不是 GPU 本身（\`launch_overhead\`）"
in_env LANG=zh_CN.UTF-8 report --format json "$db" >zh.json
in_env LANG=C report --format json "$db" >en.json
python3 - en.json zh.json <<'PY' || fail "JSON ids or numbers changed with the language"
import json, sys
en, zh = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
assert zh["verdict"] == en["verdict"] == "launch_overhead", zh["verdict"]
assert [f["class"] for f in zh["findings"]] == [f["class"] for f in en["findings"]]
assert [r["row"] for r in zh["gpus"][0]["ledger"]] == [r["row"] for r in en["gpus"][0]["ledger"]]
assert zh["gpus"][0]["ledger"] == en["gpus"][0]["ledger"]
assert zh["findings"][0]["share_of_lost"] == en["findings"][0]["share_of_lost"]
# JSON is for machines: English in every language (tests/cli/i18n_json.sh checks every byte)
assert zh["findings"][0]["title"] == en["findings"][0]["title"] == "Kernel launches, not the GPU, set the pace"
assert zh["findings"][0]["evidence"][0]["text"] == en["findings"][0]["evidence"][0]["text"]
print("json ok")
PY

# explain: the table of six classes and one class in full.
in_env LANG=zh_CN.UTF-8 explain >explain.txt
has explain.txt "各类瓶颈"
has explain.txt "数据输入流水线跟不上 GPU"
has explain.txt "  信号："
has explain.txt "input_pipeline"
in_env LANG=zh_CN.UTF-8 explain small_batch >small.txt
has small.txt "small_batch：batch 太小，填不满 GPU"
lacks small.txt "诊断指南"
has small.txt "如何确认："
in_env LANG=C explain small_batch >small_en.txt
has small_en.txt "How to confirm:"

# Errors follow the language too.
if in_env LANG=zh_CN.UTF-8 report --format xml "$db" >/dev/null 2>err.txt; then
  fail "an unknown format was accepted"
fi
has err.txt "没有格式 'xml'"

# GPUWHY_LOCALEDIR comes first: an empty folder leaves the report English.
mkdir -p empty
in_env GPUWHY_LOCALEDIR="$SCRATCH/empty" LANG=zh_CN.UTF-8 report "$db" >none.txt
cmp -s en.txt none.txt || fail "GPUWHY_LOCALEDIR pointing at an empty folder still found a catalog"
echo "i18n report ok"
