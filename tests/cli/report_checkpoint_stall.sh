#!/usr/bin/env bash
# A checkpoint the report cannot see as periodic (one save in the run) and
# without the hook's steps: the GPU idles while the training process is busy
# and the disk takes the state's volume. That host time is the checkpoint's
# (schedule_shape), not data preparation (input_pipeline). Writes made before
# the training state is in GPU memory (a program writing its data set at
# start-up) are not a checkpoint.
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"

# hook_suite/schedule_checkpoint as a program run without the Python hook
cp "$GW_FIXTURES/hook_suite/schedule_checkpoint.db" ck.db
q ck.db "DELETE FROM step; DELETE FROM meta WHERE key = 'python_hook_steps'"
"$GW_BIN" report --format json ck.db >ck.json || fail "report exited $?"
python3 - ck.json <<'PY' || fail "the checkpoint stall is not the verdict"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "schedule_shape", r["verdict"]
f = [f for f in r["findings"] if f["class"] == "schedule_shape"][0]
ev = [e for e in f["evidence"] if e["id"] == "checkpoint_stall"]
assert ev, [e["id"] for e in f["evidence"]]
assert not [f for f in r["findings"] if f["class"] == "input_pipeline"], "input_pipeline still claims the host time"
PY

# scenarios/input_slow_read without GPM: its data set is written at start-up
# while the GPU idles, before the model's training memory is allocated
cp "$GW_FIXTURES/scenarios/input_slow_read.db" isr.db
q isr.db "UPDATE gpu_sample SET gr_active_pct = NULL, sm_active_pct = NULL, sm_occupancy_pct = NULL,
  tensor_active_pct = NULL, dram_bw_pct = NULL, fp32_active_pct = NULL, fp16_active_pct = NULL;
  UPDATE gpu SET gpm_supported = 0"
"$GW_BIN" report --format json isr.db >isr.json || fail "report exited $?"
python3 - isr.json <<'PY' || fail "start-up writes read as a checkpoint"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "input_pipeline", r["verdict"]
ids = [e["id"] for f in r["findings"] for e in f["evidence"]]
assert "checkpoint_stall" not in ids, ids
PY
