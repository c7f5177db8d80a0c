#!/bin/bash
# record, watch, import, export, serve and gpuwhy's own usage speak
# Simplified Chinese under LANG=zh_CN.UTF-8 (usage texts, usage errors,
# status lines, error messages, watch frames, plural counts) and English
# under LANG=C; what a recording keeps stays English in every language.
source "$(dirname "$0")/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_FIXTURES:?}" "${GW_SOURCE_DIR:?}"
unset GPUWHY_NVML_LIB
use_zh_catalog
# run NAME EXPECTED_STATUS LANG ARGS...: gpuwhy's stdout and stderr into NAME.out
run() {
  local name=$1 want=$2 lang=$3 rc=0
  shift 3
  in_env LANG="$lang" "$@" >"$name.out" 2>&1 || rc=$?
  assert_eq "exit status of $name" "$rc" "$want"
}

# gpuwhy's command list
run top_zh 2 zh_CN.UTF-8
has top_zh.out "用法：gpuwhy COMMAND"
has top_zh.out "运行一个命令，录制 GPU、CPU、磁盘和内核日志的活动"
run top_en 2 C
has top_en.out "usage: gpuwhy COMMAND"
lacks top_en.out "用法"

# record: usage, a usage error, the status lines (plural count of GPUs)
run rec_help_zh 0 zh_CN.UTF-8 record --help
has rec_help_zh.out "用法：gpuwhy record"
has rec_help_zh.out "要写入的录制文件"
run rec_help_en 0 C record --help
has rec_help_en.out "usage: gpuwhy record"
run rec_bad_zh 2 zh_CN.UTF-8 record --interval 5 -- true
has rec_bad_zh.out "--interval 需要 10 到 600000 之间的毫秒数，实际是 '5'"
run rec_bad_en 2 C record --interval 5 -- true
has rec_bad_en.out "--interval wants milliseconds between 10 and 600000, got '5'"
run rec_zh 0 zh_CN.UTF-8 record -o zh.db --nvml-lib "$GW_FAKE_NVML" -- sleep 0.3
has rec_zh.out "正在录制 1 个 GPU（每 100 毫秒）和主机（每秒），写入 zh.db"
has rec_zh.out "下一步：gpuwhy report zh.db"
lacks rec_zh.out "recording "
FAKE_NVML_GPUS=2 run rec_en 0 C record -o en.db --nvml-lib "$GW_FAKE_NVML" -- sleep 0.3
has rec_en.out "recording 2 GPUs every 100 ms"
run rec_en1 0 C record -o en1.db --nvml-lib "$GW_FAKE_NVML" -- sleep 0.3
has rec_en1.out "recording 1 GPU every 100 ms"
# Without a driver: the status line in Chinese, the recording's note in English.
run rec_nogpu_zh 0 zh_CN.UTF-8 record -o nogpu.db --nvml-lib /nonexistent/libnvidia-ml.so.1 -- true
has rec_nogpu_zh.out "没有 GPU 数据："
has rec_nogpu_zh.out "只录制主机"
q nogpu.db "select gpu_note from run" | grep -q '^no NVIDIA driver' ||
  fail "the recording's gpu_note is not English: $(q nogpu.db 'select gpu_note from run')"

# watch: usage error and a frame
run watch_bad_zh 2 zh_CN.UTF-8 watch --count 0
has watch_bad_zh.out "--count 需要一个正数，实际是 '0'"
run watch_zh 0 zh_CN.UTF-8 watch --plain --interval 200 --count 2 --nvml-lib "$GW_FAKE_NVML"
has watch_zh.out "SM 活跃度"
has watch_zh.out "功耗 "
has watch_zh.out "时钟原因："
lacks watch_zh.out "clock reasons"
run watch_en 0 C watch --plain --interval 200 --count 2 --nvml-lib "$GW_FAKE_NVML"
has watch_en.out "clock reasons: "

# import: an error in the reader, and the summary with its counts
echo '{"traceEvents": [1]}' >bad.json
run imp_bad_zh 3 zh_CN.UTF-8 import bad.json -o bad.db
has imp_bad_zh.out "bad.json：第 18 字节：trace 事件必须是 JSON 对象，这里是一个数字"
run imp_bad_en 3 C import bad.json -o bad.db
has imp_bad_en.out "bad.json: byte 18: a trace event must be a JSON object, found a number"
run imp_usage_zh 2 zh_CN.UTF-8 import bad.json
has imp_usage_zh.out "必须给出 -o FILE"
run imp_zh 0 zh_CN.UTF-8 import "$GW_FIXTURES/import/h200_launch_tiny_ops.json.gz" -o tiny_zh.db
has imp_zh.out "已导入 "
has imp_zh.out "个 kernel、"
run imp_en 0 C import "$GW_FIXTURES/import/h200_launch_tiny_ops.json.gz" -o tiny_en.db
has imp_en.out " kernels, "
has imp_en.out " on 1 GPU"
# the recording an import writes does not depend on the language (but for its run id: random in every recording)
for t in run meta gpu; do
  diff <(q tiny_zh.db "select * from $t" | grep -v -e tiny_zh.db -e '^run_id|') \
    <(q tiny_en.db "select * from $t" | grep -v -e tiny_en.db -e '^run_id|') >/dev/null ||
    fail "table $t of an import differs between languages"
done

# export: the closing line (a plural count) and an error
run exp_zh 0 zh_CN.UTF-8 export tiny_en.db --perfetto zh.json
has exp_zh.out "个事件已写入 zh.json"
run exp_en 0 C export tiny_en.db --perfetto en.json
has exp_en.out " events to en.json"
cmp -s zh.json en.json || fail "the Perfetto trace differs between languages"
run exp_bad_zh 2 zh_CN.UTF-8 export tiny_en.db
has exp_bad_zh.out "请指定要写入的文件"

# serve: usage and a listen error
run serve_bad_zh 2 zh_CN.UTF-8 serve --window 1
has serve_bad_zh.out "--window 需要 10 到 86400 之间的秒数，实际是 '1'"
has serve_bad_zh.out "运行 'gpuwhy serve --help' 了解更多" # a hint, not the whole usage
run serve_listen_zh 2 zh_CN.UTF-8 serve --listen nocolon --replay "$GW_FIXTURES/scenarios/launch_tiny_ops.db"
has serve_listen_zh.out "--listen 需要 HOST:PORT"
echo "i18n commands ok"
