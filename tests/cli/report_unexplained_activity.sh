#!/usr/bin/env bash
# An unexplained verdict on a recording with stack samples says what the
# training thread was doing while the GPU sat idle, with the user's line,
# in every format for people. oos_fetch_store (an H100 recording) sleeps in
# its store's own get(), a helper that makes no batch, so no class holds; a
# loop that read input_pipeline says nothing of the kind.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
ws="$GW_FIXTURES/weak_spots_h100"
[ -s "$ws/oos_fetch_store.db" ] && [ -s "$ws/ws_inline_numpy.db" ] || {
  echo "SKIP: weak_spots_h100 recordings not unpacked"
  exit 77
}
line="the training thread was sleeping or waiting on its own threads (fetch_store.py:38 in RemoteStore.get)"
for fmt in text md html; do
  "$GW_BIN" report --format "$fmt" "$ws/oos_fetch_store.db" > "fetch.$fmt" || fail "report --format $fmt failed"
  has "fetch.$fmt" "$line"
done
has fetch.text "Verdict: unexplained"
"$GW_BIN" report "$ws/ws_inline_numpy.db" > numpy.text || fail "report of ws_inline_numpy failed"
lacks numpy.text "While the GPU sat idle, the training thread was"
use_zh_catalog
LANG=zh_CN.UTF-8 LC_ALL=zh_CN.UTF-8 "$GW_BIN" report "$ws/oos_fetch_store.db" > fetch.zh || fail "zh report failed"
has fetch.zh "GPU 空闲时，训练线程在休眠或等待自己的其他线程（fetch_store.py:38 in RemoteStore.get）"
echo "the unexplained verdict names what the training thread did"
