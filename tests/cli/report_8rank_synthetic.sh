#!/usr/bin/env bash
# The multi-node report at 8 ranks, on recordings built from the real 2-GPU
# straggler run (scripts/make_8rank.py: 4 nodes, the straggler on node 1, the
# other seven GPUs copies of the rank that waits): the straggler is named
# among 8, every rank gets its NCCL share, and windows are matched by node as
# well as pid (the copies repeat the pids, as hosts of one job can).
. "$(dirname "$0")/lib.bash"
python3 "$GW_SOURCE_DIR/scripts/make_8rank.py" "$GW_FIXTURES/scenarios/ddp_straggler.db" . > /dev/null ||
  fail "make_8rank.py failed"
"$GW_BIN" report --format json node1.db node2.db node3.db node4.db > r.json || fail "report exited $?"
py() { python3 -c "import json, sys; d = json.load(open('r.json')); m = d['multi_gpu']; print($1)"; }
assert_eq "GPUs in the multi-GPU table" "$(py 'len(m["gpus"])')" 8
assert_eq "nodes" "$(py 'm["nodes"]')" 4
assert_eq "straggler" "$(py 'm["straggler_label"]')" "node1 GPU 1"
assert_eq "straggler cause" "$(py 'm["straggler_cause"]')" more_work
assert_eq "verdict" "$(py 'd["verdict"]')" multi_gpu_sync
# The seven waiting ranks spend the same share in NCCL (one real rank's), the straggler far less.
assert_eq "distinct NCCL shares of the waiting ranks" \
  "$(py 'len({round(g["nccl_share"], 3) for g in m["gpus"] if g["label"] != "node1 GPU 1"})')" 1
assert_eq "straggler's share under half the others'" \
  "$(py 'm["gpus"][1]["nccl_share"] < 0.5 * m["gpus"][0]["nccl_share"]')" True
echo "report_8rank_synthetic: passed"
