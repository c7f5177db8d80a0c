#!/bin/bash
# gpuwhy compare, baseline and sweep speak Simplified Chinese under
# LANG=zh_CN.UTF-8 (row labels, verdicts, what changed, the method line, the
# baseline result and the sweep table, usage errors), keep ledger row ids,
# class ids and units English, and write the same JSON in every language.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
use_zh_catalog
dir="$GW_FIXTURES/scenarios"
# in_cmd NAME=VALUE... COMMAND ARGS: gpuwhy COMMAND with only the locale
# variables given, in the fixtures' folder.
in_cmd() { in_env -C "$dir" "$@"; }
runs=(worked_case_s0.db worked_case_s1.db worked_case_s2.db worked_case_s3.db)

in_cmd LANG=C compare "${runs[@]}" >"$SCRATCH/en.txt"
diff -u "$GW_SOURCE_DIR/tests/expected/compare_worked_case.txt" en.txt || fail "LANG=C text differs from the golden"
in_cmd LANG=zh_CN.UTF-8 compare "${runs[@]}" >"$SCRATCH/zh.txt"
has zh.txt "gpuwhy compare：4 次运行，每次与前一次比较"
has zh.txt "  步骤时间，中位数"
has zh.txt "  首要诊断"
has zh.txt "B 对比 A（worked_case_s1 对比 worked_case_s0）：更好"
# what changed and what the comparison rests on
has zh.txt "--stage 从 0 变为 1"
has zh.txt "每步时间来自各程序的步骤日志"
lacks zh.txt "--stage 0 -> 1"
lacks zh.txt "per-step times from"
has zh.txt "  吞吐量         "
has zh.txt "无显著变化"
has zh.txt "第一次对比最后一次"
has zh.txt "方法：对每步时间做 2000 次 bootstrap 重采样"
# ids and units stay as they are
has zh.txt "    idle_input"
has zh.txt "input_pipeline 61%"
has zh.txt "samples/s"
lacks zh.txt "step time, median"
lacks zh.txt "Method:"
# Same numbers in both languages.
diff <(grep -o '[-+0-9.]*%' en.txt) <(grep -o '[-+0-9.]*%' zh.txt) >/dev/null ||
  fail "the Chinese comparison's percentages differ from the English ones"
# The per-run table lines up although its labels are double-width.
python3 - zh.txt <<'PY' || fail "the Chinese run table is misaligned"
import sys, unicodedata
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = lines.index(next(l for l in lines if l.strip().startswith("A ") and "B" in l))
table = []
for l in lines[start + 1:]:
    if not l.strip():
        break
    table.append(l)
bad = []
for l in table:
    if l.endswith("）") or "：" in l:  # the ledger heading
        continue
    label = l[:len(l) - len(l.lstrip())] + l.strip().split("  ")[0]
    rest = l[len(label):]
    if width(label) + (len(rest) - len(rest.lstrip())) != 30:
        bad.append(l)
print("rows", len(table), "misaligned", bad)
sys.exit(0 if len(table) > 10 and not bad else 1)
PY

# Markdown follows the language; JSON never does.
in_cmd LANG=zh_CN.UTF-8 compare --format md "${runs[@]}" >zh.md
has zh.md "## 差异"
has zh.md "- 诊断结果："
has zh.md "- 变化（命令行参数）：\`--stage 从 0 变为 1\`"
has zh.md "- 依据：每步时间来自"
in_cmd LANG=C compare --format json "${runs[@]}" >en.json
in_cmd LANG=zh_CN.UTF-8 compare --format json "${runs[@]}" >zh.json
cmp -s en.json zh.json || fail "compare --format json differs under LANG=zh_CN.UTF-8"

# gpuwhy baseline: save, check (a regression, exit 1) and list in Chinese;
# the check's JSON (reasons, summary, based_on) stays English.
export GPUWHY_HOME=$SCRATCH/home
in_cmd LANG=zh_CN.UTF-8 baseline save stage1 worked_case_s1.db >bsave.txt || fail "baseline save exited $?"
has bsave.txt "已保存基线 stage1：1875 samples/s，步骤中位数 34.0 ms（586 个步骤，来自程序的步骤日志"
lacks bsave.txt "saved baseline"
set +e
in_cmd LANG=C baseline check stage1 worked_case_s0.db >bcheck_en.txt
rc_en=$?
in_cmd LANG=zh_CN.UTF-8 baseline check stage1 worked_case_s0.db >bcheck.txt
rc_zh=$?
in_cmd LANG=zh_CN.UTF-8 baseline check --format md stage1 worked_case_s0.db >bcheck.md
in_cmd LANG=C baseline check --format json stage1 worked_case_s0.db >bcheck_en.json
in_cmd LANG=zh_CN.UTF-8 baseline check --format json stage1 worked_case_s0.db >bcheck_zh.json
in_cmd LC_ALL=C.UTF-8 LANGUAGE=zh_CN baseline check --format json stage1 worked_case_s0.db >bcheck_zh2.json
set -e
assert_eq "baseline check in English: exit status" "$rc_en" 1
assert_eq "baseline check in Chinese: exit status" "$rc_zh" 1
has bcheck_en.txt "Result: REGRESSION: throughput -95.3%"
has bcheck.txt "gpuwhy baseline check：worked_case_s0.db 对比基线 stage1（容差 5.0%）"
has bcheck.txt "结果：性能回退：吞吐量 -95.3% (x0.0474)（95% 区间 -95.8% .. -94.5%），超出 5.0% 的容差"
has bcheck.txt "      以及步骤时间中位数 +2052.3%"
has bcheck.txt "--stage 从 1 变为 0"
lacks bcheck.txt "Result:"
lacks bcheck.txt "REGRESSION"
lacks bcheck.txt "beyond the"
lacks bcheck.txt "median step time"
lacks bcheck.txt "against baseline"
has bcheck.md "**结果：性能回退：吞吐量 -95.3%"
has bcheck.md "基线 \`"
lacks bcheck.md "**Result:"
cmp -s bcheck_en.json bcheck_zh.json || fail "baseline check --format json differs under LANG=zh_CN.UTF-8"
cmp -s bcheck_en.json bcheck_zh2.json || fail "baseline check --format json differs under LANGUAGE=zh_CN"
grep -qF '"summary": "REGRESSION: throughput -95.3%' bcheck_zh.json || fail "baseline JSON summary is not English"
in_cmd LANG=zh_CN.UTF-8 baseline list >blist.txt
has blist.txt "中的基线"
has blist.txt "名称"
lacks blist.txt "median step"
in_cmd LANG=C baseline list --format json >blist_en.json
in_cmd LANG=zh_CN.UTF-8 baseline list --format json >blist_zh.json
cmp -s blist_en.json blist_zh.json || fail "baseline list --format json differs under LANG=zh_CN.UTF-8"

# gpuwhy sweep: the table's headings and the knee sentence in Chinese, the
# values and units as they are; JSON (knee text included) stays English.
sweeps=(sweep_bs32.db sweep_bs64.db sweep_bs128.db sweep_bs256.db sweep_bs512.db sweep_bs1024.db sweep_bs2048.db)
in_cmd LANG=zh_CN.UTF-8 sweep --from "${sweeps[@]}" >sweep.txt || fail "sweep --from exited $?"
in_cmd LANG=zh_CN.UTF-8 sweep --from --format md "${sweeps[@]}" >sweep.md || fail "sweep --format md exited $?"
has sweep.txt "gpuwhy sweep：batch-size，共 7 次运行"
has sweep.txt "相对上一行增益 [95%]"
has sweep.txt "步骤中位数"
has sweep.txt "显存峰值"
has sweep.txt "首要诊断"
has sweep.txt "吞吐量在 batch-size=1024 处停止上升：增大到 2048 只让 samples/s 提高了 10.4%（51821 -> 57199）"
has sweep.txt "  1024              51821  +21.3% [+20.8%, +21.7%]"
lacks sweep.txt "gain vs previous"
lacks sweep.txt "Throughput stops rising"
lacks sweep.txt "over 7 runs"
lacks sweep.txt "memory peak"
has sweep.md "相对上一行增益 [95% 区间]"
has sweep.md "**吞吐量在 batch-size=1024 处停止上升"
lacks sweep.md "top finding"
# The Chinese headings line up with the rows although they are double-width:
# each heading ends (right-aligned) or starts (left-aligned) where the
# English one does.
python3 - "$GW_SOURCE_DIR/tests/expected/compare_sweep.txt" sweep.txt <<'PY' || fail "the Chinese sweep table is misaligned"
import sys, unicodedata
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def heading(path):
    return next(l for l in open(path, encoding="utf-8").read().splitlines() if l.startswith("  batch-size "))
def span(line, word):  # display columns where word starts and ends
    at = line.index(word)
    return width(line[:at]), width(line[:at]) + width(word)
en, zh = heading(sys.argv[1]), heading(sys.argv[2])
# (English, Chinese, aligned on the left 0 or on the right 1)
cols = [("gain vs previous", "相对上一行增益", 0), ("step median", "步骤中位数", 1), ("SM act", "SM 活跃", 1),
        ("power", "功耗", 1), ("memory peak", "显存峰值", 0), ("top finding", "首要诊断", 0)]
bad = [(e, z) for e, z, right in cols if span(en, e)[right] != span(zh, z)[right]]
print("misaligned headings:", bad)
sys.exit(1 if bad else 0)
PY
in_cmd LANG=C sweep --from --format json "${sweeps[@]}" >sweep_en.json
in_cmd LANG=zh_CN.UTF-8 sweep --from --format json "${sweeps[@]}" >sweep_zh.json
cmp -s sweep_en.json sweep_zh.json || fail "sweep --format json differs under LANG=zh_CN.UTF-8"
grep -qF '"text": "Throughput stops rising at batch-size=1024' sweep_zh.json || fail "sweep JSON knee text is not English"

# Usage errors follow the language too.
if in_cmd LANG=zh_CN.UTF-8 compare only_one.db >/dev/null 2>err.txt; then
  fail "one run was accepted"
fi
has err.txt "至少给出两次运行来比较"
has err.txt "运行 'gpuwhy compare --help' 了解更多" # one line and a hint, not the whole usage
echo "i18n compare, baseline and sweep ok"
