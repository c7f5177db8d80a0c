#!/usr/bin/env bash
# Issue 21, after the fixtures of i21new.sh (tests/fixtures/scenarios_i21): record again what that plan did not
# get, and check the re-grounded rules on programs they were not built on (8 min, one H200).
# Never changes a GPU setting: each workload draws what it draws.
#  compile_dynamic        schedule_shape  torch.compile(dynamic=False); the steps revisit the lengths already
#                                         compiled and a new length joins after every 6 s of revisits, so the
#                                         window holds hundreds of steady steps and a few recompile stalls (the
#                                         first plan's window held 3 steps, all compiles)
#  healthy_midpower_fp32  none            fp32 MLP, TF32 off, batch 8192: FP32 CUDA-core GEMMs, always busy;
#                                         expected 70-80% of the power limit (the fp32 sweep drew 75-77%)
#  healthy_midpower_sfu   none            one jiterator kernel of sin/cos chains: compute-bound on the FP32
#                                         pipes, DRAM and tensor cores idle; expected lower still
#  offload_accum_k8       schedule_shape  8 micro-batches of a 4-layer MLP, then AdamW on the CPU: another period
#                                         and model than the fixture
#  bursty_serving_slow    none            1 burst a second to a 6-layer server: demand-limited, longer idle gaps
# Each: `gpuwhy record --trace -o NAME.db --interval 100 -- python3 -u scenarios/SCRIPT --out NAME.truth.json
# --duration D --scenario-name NAME ...`, then `gpuwhy report --format json` and the text report. A deadline
# (I21NEW2_LIMIT_S, 470 s from the start) bounds the whole plan: each run's timeout is cut to what is left, a run
# that cannot fit is skipped and said so.
# Output under OUT: summary.txt (scenario, exit status, truth steps against the recording's step table, verdict,
# findings, expected, the truth's measured figures: power.median_frac_of_limit for the healthy runs,
# compile.first_visit_steps and revisit_steps for compile_dynamic), reports.txt, i21new2_run.log and
# i21new2_recordings.tar.gz (NAME.db, NAME.truth.json, NAME.report.json, NAME.report.txt, NAME.log), rewritten
# after every scenario so that a call cut short still brings back what was recorded.
# usage: scripts/h200/run.sh i21new2 OUT   (or bash scripts/h200/plans/i21new2.sh OUT from the repo root; no set -e)
# The recording, reports, deadline and summary are i21new.sh's, given this list and tag.
I21NEW_TAG=i21new2 I21NEW_LIMIT_S=${I21NEW2_LIMIT_S:-470} I21NEW_SCENARIOS="\
compile_dynamic|schedule_shape|30|170|compile_dynamic.py
healthy_midpower_fp32|none|12|70|healthy_midpower.py --workload fp32_mlp
healthy_midpower_sfu|none|12|70|healthy_midpower.py --workload sfu
offload_accum_k8|schedule_shape|12|90|offload_accum.py --accum 8 --depth 4
bursty_serving_slow|none|12|70|bursty_serving.py --burst-rate 1.0 --layers 6" \
  bash "$(dirname "$0")/i21new.sh" "$@"
