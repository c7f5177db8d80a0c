#!/bin/bash
# gpuwhy compare speaks Simplified Chinese under LANG=zh_CN.UTF-8 (row
# labels, verdicts, the method line, usage errors), keeps ledger row ids,
# class ids and units English, and writes the same JSON in every language.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
bindir=$(dirname "$GW_BIN")
unset GPUWHY_LOCALEDIR
if [ ! -f "$bindir/locale/zh_CN/LC_MESSAGES/gpuwhy.mo" ]; then
  [ ! -d "$bindir/po" ] || fail "the build has po/ but no $bindir/locale/zh_CN/LC_MESSAGES/gpuwhy.mo"
  command -v msgfmt >/dev/null || { echo "msgfmt missing: skipped"; exit 77; }
  mkdir -p built/zh_CN/LC_MESSAGES
  msgfmt --check -o built/zh_CN/LC_MESSAGES/gpuwhy.mo "$GW_SOURCE_DIR/po/zh_CN.po"
  export GPUWHY_LOCALEDIR="$SCRATCH/built"
fi
dir="$GW_FIXTURES/scenarios"
in_env() {
  local vars=()
  while [ $# -gt 0 ] && [[ $1 == *=* ]]; do
    vars+=("$1")
    shift
  done
  (cd "$dir" && env -u LANGUAGE -u LC_ALL -u LC_MESSAGES -u LANG -u NO_COLOR "${vars[@]}" "$GW_BIN" compare "$@")
}
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"; }
lacks() { ! grep -qF -- "$2" "$1" || fail "$1 has '$2'"; }
runs=(worked_case_s0.db worked_case_s1.db worked_case_s2.db worked_case_s3.db)

in_env LANG=C "${runs[@]}" >"$SCRATCH/en.txt"
diff -u "$GW_SOURCE_DIR/tests/expected/compare_worked_case.txt" en.txt || fail "LANG=C text differs from the golden"
in_env LANG=zh_CN.UTF-8 "${runs[@]}" >"$SCRATCH/zh.txt"
has zh.txt "gpuwhy compare：4 次运行，每次与前一次比较"
has zh.txt "  步骤时间，中位数"
has zh.txt "  首要诊断"
has zh.txt "B 对比 A（worked_case_s1 对比 worked_case_s0）：更好"
has zh.txt "  吞吐量         "
has zh.txt "无显著变化"
has zh.txt "第一次对比最后一次"
has zh.txt "方法：对每步时间做 2000 次 bootstrap 重采样"
# ids and units stay as they are
has zh.txt "    idle_input"
has zh.txt "input_pipeline 62%"
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
in_env LANG=zh_CN.UTF-8 --format md "${runs[@]}" >zh.md
has zh.md "## 差异"
has zh.md "- 诊断结果："
in_env LANG=C --format json "${runs[@]}" >en.json
in_env LANG=zh_CN.UTF-8 --format json "${runs[@]}" >zh.json
cmp -s en.json zh.json || fail "compare --format json differs under LANG=zh_CN.UTF-8"

# Usage errors follow the language too.
if in_env LANG=zh_CN.UTF-8 only_one.db >/dev/null 2>err.txt; then
  fail "one run was accepted"
fi
has err.txt "至少给出两次运行来比较"
has err.txt "用法：gpuwhy compare"
echo "i18n compare ok"
