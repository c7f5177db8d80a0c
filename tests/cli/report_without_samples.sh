#!/usr/bin/env bash
# Two H100 recordings of loaders the Python hook does not see as a DataLoader,
# reported as a recording without the samplers' tables gives them (older
# recordings, record --thread-hz 0 --py-sample-hz 0): the steps alone must
# still name the input pipeline.
# - ws_inline_numpy makes every batch with numpy in the training loop: even
#   steps, the GPU busy 2 ms of each 108 ms one, the host the rest; its main
#   thread used 73x the CPU of the autograd thread that launches the
#   backward, so its busy core is not launching (main_not_launching).
# - ws_loader_latency_threads fetches through a thread pool of its own: every
#   4th step waits 0.31 s, longer than the 4 steps between (a loader's round,
#   not an evaluation schedule).
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
# drop_samples DB: the thread and stack samples gone, as without the samplers.
drop_samples() {
  local t
  for t in thread_sample thread_info py_sample py_frame; do
    q "$1" "DELETE FROM $t"
  done
  q "$1" "DELETE FROM meta WHERE key IN ('thread_sampling_hz', 'py_sampling_hz')"
}
check() { # NAME EVIDENCE_ID
  [ -s "$GW_FIXTURES/weak_spots_h100/$1.db" ] || {
    echo "SKIP: $1.db not unpacked"
    exit 77
  }
  cp "$GW_FIXTURES/weak_spots_h100/$1.db" "$1.db"
  drop_samples "$1.db"
  "$GW_BIN" report --format json "$1.db" > "$1.json" || fail "$1: report failed"
  python3 - "$1.json" "$2" <<'PY' || fail "$1 without samples"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "input_pipeline", d["verdict"]
ids = [e["id"] for f in d["findings"] if f["class"] == "input_pipeline" for e in f["evidence"]]
assert sys.argv[2] in ids, ids
assert not any(f["class"] == "schedule_shape" for f in d["findings"]), [f["class"] for f in d["findings"]]
PY
}
check ws_inline_numpy main_not_launching
check ws_loader_latency_threads steps_fetch_rhythm
echo "both read input_pipeline without samples"
