#!/bin/bash
# gpuwhy check speaks Simplified Chinese under LANG=zh_CN.UTF-8 (headings,
# item titles, reasons, fixes, the summary line), keeps item ids English,
# and writes the same --json document in every language. Runs on the
# troubled fixture tree with two fake GPUs, and without any driver.
source "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
use_zh_catalog
FX=$GW_FIXTURES/check
use_troubled_check_host
troubled=(--root "$FX/troubled" --nvml-lib "$GW_FAKE_NVML")

set +e
in_env -C / LANG=C check "${troubled[@]}" >en.txt
rc_en=$?
in_env -C / LANG=zh_CN.UTF-8 check "${troubled[@]}" >zh.txt
rc_zh=$?
in_env -C / LANG=C check "${troubled[@]}" --json >en.json
in_env -C / LANG=zh_CN.UTF-8 check "${troubled[@]}" --json >zh.json
in_env -C / LC_ALL=C.UTF-8 LANGUAGE=zh_CN check "${troubled[@]}" --json >zh2.json
set -e
assert_eq "exit status in English" "$rc_en" 1
assert_eq "exit status in Chinese" "$rc_zh" 1

# English stays as the golden table.
cmp -s en.txt "$FX/expected/troubled.txt" || fail "LANG=C table differs from the golden file"
# Chinese: the first line, section headings, item titles, statuses, reasons,
# fixes and the summary line.
head -1 zh.txt | grep -qF "gpuwhy check：驱动、GPU（空闲；--load 会在工作状态下测试）、内核日志和主机" ||
  fail "first line: $(head -1 zh.txt)"
grep -qx "驱动与 CUDA" zh.txt || fail "no driver heading"
grep -qx "内核日志" zh.txt || fail "no kernel log heading"
grep -qx "主机" zh.txt || fail "no host heading"
has zh.txt "  通过  NVIDIA 驱动"
has zh.txt "P-state 与时钟"
has zh.txt "功率上限"
has zh.txt "ECC 错误"
has zh.txt "空闲：P8，SM 时钟 345 / 1980 MHz（17%）"
has zh.txt "修复："
has zh.txt "失败"
has zh.txt "警告"
lacks zh.txt "Driver and CUDA"
lacks zh.txt "Kernel log"
lacks zh.txt "fix: "
# Xid meanings and advice come from the Xid table (lib/sources/xid.c), in
# Chinese too; the text wraps, so compare it without spaces and line ends.
tr -d ' \n' <zh.txt >zh_flat.txt
has zh_flat.txt "含义：不可纠正的（双比特）ECC显存错误；使用这块显存的应用程序读到了错误数据。"
has zh_flat.txt "修复：重置GPU或重启节点；查看nvidia-smi-q-dECC，如果错误重复出现，计划更换。"
lacks zh_flat.txt "Itmeans"
lacks zh_flat.txt "theapplicationusingthatmemorygotwrongdata"
lacks zh_flat.txt "ResettheGPUorrebootthenode"
tail -1 zh.txt | grep -q '^[0-9]* 项失败，[0-9]* 项警告，[0-9]* 项提示，[0-9]* 项通过：退出状态 1$' ||
  fail "summary: $(tail -1 zh.txt)"
# Same verdicts in both languages: the status column, item for item.
diff <(grep -o '^  [A-Z]\{4\}  ' en.txt | wc -l) <(grep -cE '^  (通过|提示|警告|失败)  ' zh.txt) >/dev/null ||
  fail "the Chinese table has a different number of items"
# The titles column lines up although the titles are double-width: every
# item whose title fits starts its reason at the same column in both tables.
python3 - zh.txt <<'PY' || fail "the Chinese table is misaligned"
import sys, unicodedata
# Every item row: status, title padded by display width, the reason from
# column 32 on (titles wider than the column put the reason on the next line).
rows = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines()
        if l[:2] == "  " and l[2:4] in ("通过", "提示", "警告", "失败")]
bad = []
for l in rows:
    col, at = 0, None
    for i, c in enumerate(l):
        if col == 32:
            at = i
            break
        col += 2 if unicodedata.east_asian_width(c) in "WF" else 1
    if at is None or l[at] == " " or l[at - 1] != " ":
        bad.append(l)
print("items", len(rows), "misaligned", bad)
sys.exit(0 if rows and not bad else 1)
PY

# JSON is for machines: byte for byte the same in every language.
cmp -s en.json zh.json || fail "--json differs under LANG=zh_CN.UTF-8"
cmp -s en.json zh2.json || fail "--json differs under LANGUAGE=zh_CN"
cmp -s en.json "$FX/expected/troubled.json" || fail "LANG=C --json differs from the golden file"

# Without a driver: the failed driver item in Chinese, JSON unchanged.
set +e
# The fixture root, not the live host: free memory and the like change between two runs.
nodrv=(--root "$FX/troubled" --nvml-lib /nonexistent/libnvidia-ml.so.1)
in_env -C / LANG=zh_CN.UTF-8 check "${nodrv[@]}" >nodrv.txt
rc=$?
in_env -C / LANG=zh_CN.UTF-8 check "${nodrv[@]}" --json >nodrv_zh.json
in_env -C / LANG=C check "${nodrv[@]}" --json >nodrv_en.json
set -e
assert_eq "exit status without a driver" "$rc" 1
grep -q '^  失败  NVIDIA 驱动  *没有 NVIDIA 驱动' nodrv.txt || fail "no-driver item: $(cat nodrv.txt)"
cmp -s nodrv_en.json nodrv_zh.json || fail "--json without a driver differs between languages"
grep -q '"reason": "no NVIDIA driver: ' nodrv_zh.json || fail "JSON reason is not English"

# Usage errors follow the language too.
if in_env -C / LANG=zh_CN.UTF-8 check --bogus >/dev/null 2>err.txt; then
  fail "an unknown option was accepted"
fi
has err.txt "未知选项 '--bogus'"
has err.txt "运行 'gpuwhy check --help' 了解更多" # a hint, not the whole usage
echo "i18n check ok"
