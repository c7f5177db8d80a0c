#!/usr/bin/env bash
# gpuwhy report with one recording per node: two copies of a real H200
# recording as two hosts are reported together, GPUs labelled by host; one
# file alone keeps its single-GPU report (no multi-GPU section).
. "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?}"
src=$GW_FIXTURES/scenarios/healthy.db
[ -f "$src" ] || { echo "SKIP: no healthy.db fixture"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 command"; exit 77; }
cp "$src" a.db
cp "$src" b.db
q a.db "UPDATE run SET hostname = 'host-a'"
q b.db "UPDATE run SET hostname = 'host-b'"
# host b's rank logged NCCL falling back to host shared memory
q b.db "CREATE TABLE IF NOT EXISTS nccl_log (t_ns INTEGER, pid INTEGER, line TEXT);
INSERT INTO nccl_log VALUES (0, 41, 'host-b:41:42 [0] NCCL INFO comm 0x1 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0'),
 (0, 41, 'host-b:41:42 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0');"

# one file: the report of the renamed copy is the original's, without a multi-GPU part
"$GW_BIN" report "$src" > orig.txt
"$GW_BIN" report a.db | sed 's/a\.db/healthy.db/' > one.txt
diff -u orig.txt one.txt || fail "one recording's report changed"
grep -q "Multi-GPU" one.txt && fail "a single GPU got a multi-GPU section"
"$GW_BIN" report --format json a.db > one.json
python3 -c "import json,sys; d=json.load(open('one.json')); sys.exit('multi_gpu' in d)" || fail "single-GPU JSON has multi_gpu"

# two nodes together
"$GW_BIN" report a.db b.db > two.txt
grep -q "Multi-GPU (2 GPUs" two.txt || fail "no multi-GPU section: $(cat two.txt)"
grep -q "host-a GPU 0" two.txt || fail "host a's GPU is not labelled"
grep -q "host-b GPU 0" two.txt || fail "host b's GPU is not labelled"
grep -q "GPUDirect RDMA" two.txt || fail "IB without GDR gets no advice"
grep -q "2 recordings reported together" two.txt || fail "no note on the merge"
"$GW_BIN" report --format json a.db b.db > two.json
python3 - <<'PY' || fail "multi-node JSON"
import json
d = json.load(open("two.json"))
m = d["multi_gpu"]
assert m["nodes"] == 2, m["nodes"]
assert [g["label"] for g in m["gpus"]] == ["host-a GPU 0", "host-b GPU 0"], m["gpus"]
assert [g["gpu"] for g in d["gpus"]] == [0, 1]
assert m["gpus"][1]["rank"] == 1 and m["gpus"][1]["transport"] == "NET/IB"
assert any(a["id"] == "ib_without_gdr" for a in m["nccl"]["advice"])
# the same run on two nodes is balanced: no finding about waiting GPUs
assert all(f["class"] != "multi_gpu_sync" for f in d["findings"]), d["findings"]
PY
# each node's counted step stays its GPU's: the same pid on both hosts, ranks of the job (RANK)
for f in a b; do
  q $f.db "CREATE TABLE IF NOT EXISTS step_flops (step INTEGER, pid INTEGER, rank INTEGER, flops INTEGER NOT NULL,
    dtype_flops TEXT, batch_size INTEGER, counted_ns INTEGER, source TEXT)"
done
q a.db "INSERT INTO step_flops VALUES (11, 4242, 0, 1000000000000, NULL, 16, NULL, 'python_hook')"
q b.db "INSERT INTO step_flops VALUES (11, 4242, 1, 3000000000000, NULL, 16, NULL, 'python_hook')"
"$GW_BIN" report --format json a.db b.db > flops.json || fail "report of two nodes with FLOPs exited $?"
python3 - <<'PY' || fail "multi-node MFU not per GPU"
import json
d = json.load(open("flops.json"))
assert [(m["gpu"], m["measured"], m["flops_per_step"]) for m in d["mfu"]] == [(0, True, 1e12), (1, True, 3e12)], d["mfu"]
PY
"$GW_BIN" report --format md a.db b.db | grep "## Multi-GPU (2 GPUs)" >/dev/null || fail "Markdown has no multi-GPU section"
"$GW_BIN" report --format html a.db b.db -o two.html
grep -q 'id="multi-gpu"' two.html || fail "HTML has no multi-GPU card"

# a missing second file is an input error, not a partial report
set +e
"$GW_BIN" report a.db missing.db > /dev/null 2>err.txt
rc=$?
set -e
assert_eq "exit status with a missing file" "$rc" 3
echo "ok"
