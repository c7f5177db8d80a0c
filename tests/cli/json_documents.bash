# Sourced by json_integers.sh and json_schema.sh: every JSON document gpuwhy
# writes, on every fixture, into $SCRATCH/docs (one file each, named after
# the command and the input). Needs lib.bash sourced first.
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
json_documents() {
  local docs=$SCRATCH/docs f name rc
  mkdir -p "$docs"
  # report: every recording, and the other tools' traces report reads as they are
  while IFS= read -r f; do
    name=report_$(echo "${f#"$GW_FIXTURES"/}" | tr '/' '_')
    rc=0
    "$GW_BIN" report --format json "$f" >"$docs/$name.json" 2>/dev/null || rc=$?
    # exit 3 (input error) writes no document: nothing to check
    [ "$rc" -eq 0 ] || { [ -s "$docs/$name.json" ] && fail "report $f exited $rc and wrote JSON"; rm -f "$docs/$name.json"; }
  done < <(find "$GW_FIXTURES" -name '*.db' | sort; ls "$GW_FIXTURES"/import/*.json.gz "$GW_FIXTURES"/import/*.csv)
  local sc=$GW_FIXTURES/scenarios hs=$GW_FIXTURES/hook_suite
  "$GW_BIN" report --format json "$GW_FIXTURES"/hook/ddp_tiny.db >"$docs/report_ddp_tiny_again.json" 2>/dev/null || true
  "$GW_BIN" compare --format json "$sc"/worked_case_s0.db "$sc"/worked_case_s1.db "$sc"/worked_case_s2.db \
    "$sc"/worked_case_s3.db >"$docs/compare_worked_case.json" || fail "compare exited $?"
  "$GW_BIN" compare --format json "$hs"/healthy.db "$hs"/small_batch.db >"$docs/compare_hook_suite.json" ||
    fail "compare exited $?"
  # options before --from: it takes every argument after it as a recording
  "$GW_BIN" sweep --param bs --format json --from "$hs"/sweep_bs32.db "$hs"/sweep_bs128.db "$hs"/sweep_bs256.db \
    "$hs"/sweep_bs1024.db "$hs"/sweep_bs2048.db >"$docs/sweep_hook_suite.json" || fail "sweep exited $?"
  export GPUWHY_HOME=$SCRATCH/home
  "$GW_BIN" baseline save stage1 "$sc"/worked_case_s1.db >/dev/null || fail "baseline save exited $?"
  cp "$GPUWHY_HOME/baselines/stage1.json" "$docs/baseline_file_stage1.json"
  rc=0
  "$GW_BIN" baseline check stage1 "$sc"/worked_case_s0.db --format json >"$docs/baseline_check_regression.json" || rc=$?
  [ "$rc" -eq 1 ] || fail "baseline check of a slower run exited $rc, expected 1"
  "$GW_BIN" baseline check stage1 "$sc"/worked_case_s2.db --format json >"$docs/baseline_check_holds.json" ||
    fail "baseline check exited $?"
  "$GW_BIN" baseline list --format json >"$docs/baseline_list.json" || fail "baseline list exited $?"
  # check: the fixture trees with two scripted fake GPUs, and a machine without a driver
  local tree
  for tree in healthy troubled no_kmsg xid_all malformed; do
    [ -d "$GW_FIXTURES/check/$tree" ] || continue
    (cd / && PATH="$GW_FIXTURES/check/bin:$PATH" GPUWHY_PYTHON=python3-fake FAKE_NVML_GPUS=2 \
      "$GW_BIN" check --json --root "$GW_FIXTURES/check/$tree" --nvml-lib "$GW_FAKE_NVML") >"$docs/check_$tree.json" || true
  done
  (cd / && "$GW_BIN" check --json --root "$GW_FIXTURES/check/healthy" --nvml-lib /nonexistent/libnvidia-ml.so.1) \
    >"$docs/check_no_driver.json" || true
  local n
  n=$(find "$docs" -name '*.json' -size +0 | wc -l)
  [ "$n" -ge 100 ] || fail "only $n JSON documents written"
}
