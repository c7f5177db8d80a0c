#!/usr/bin/env bash
# A distributed job recorded without a kernel trace whose SMs are resident
# but whose math pipes are all but idle (scenarios/ddp_comm_heavy: the
# gradient all-reduce is the step; 63% SM activity, the busiest math pipe 1.6%
# of it) holds kernels that move data, not a batch too small to fill the GPU:
# the report must not say small_batch, and says it cannot decide (unexplained,
# with the trace as the way to see the collectives). A distributed job whose
# kernels do compute (ddp_grad_accum, math pipe at 8.9%) keeps its small_batch
# verdict without the trace.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
verdict() { # DB -> the verdict of the recording as record --no-trace gives it
  cp "$GW_FIXTURES/scenarios/$1.db" "$1.db"
  drop_trace "$1.db"
  "$GW_BIN" report --format json "$1.db" > "$1.json" || fail "$1: report failed"
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1.json"
}
assert_eq "ddp_comm_heavy without its trace" "$(verdict ddp_comm_heavy)" unexplained
assert_eq "ddp_grad_accum without its trace" "$(verdict ddp_grad_accum)" small_batch
# with its trace, the collectives are seen
"$GW_BIN" report --format json "$GW_FIXTURES/scenarios/ddp_comm_heavy.db" > traced.json
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["verdict"] == "multi_gpu_sync"' traced.json ||
  fail "ddp_comm_heavy with its trace is not multi_gpu_sync"
echo "untraced collectives are not read as small batches"
