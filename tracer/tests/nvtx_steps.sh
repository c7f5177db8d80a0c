#!/usr/bin/env bash
# NVTX without CUPTI: a program built with the NVTX v3 headers (no GPU, no
# CUDA) under `gpuwhy record --trace --step-range train_step`. The tracer is
# its NVTX injection: every range lands in the marker table with its name,
# domain, thread and times, and the 50 "train_step" ranges become the step
# table. Then the fail-open cases: the injection cannot create its file, or is
# not asked to trace; the program's output and exit status stay its own.
. "$(dirname "$0")/../../tests/cli/lib.bash"
: "${GW_FAKE_NVML:?}" "${GW_TRACER:?}" "${GW_NVTX_PROG:?}"
export GPUWHY_NVML_LIB=$GW_FAKE_NVML GPUWHY_TRACER_LIB=$GW_TRACER
# A sanitizer-built tracer cannot be preloaded ahead of the sanitizer runtime;
# NVTX loads it with dlopen, which the preload is not needed for.
export GPUWHY_TRACE_PRELOAD=0
unset NVTX_INJECTION64_PATH

rc=0
"$GW_BIN" record -q --trace=full --step-range train_step -o a.db -- "$GW_NVTX_PROG" 50 10 3 > a.out 2> a.err || rc=$?
assert_eq "exit status passed through" "$rc" 3
assert_eq "program output" "$(cat a.out)" "ran 50 steps"
grep -q "gpuwhy-tracer" a.err && fail "tracer complained: $(cat a.err)"
pid=$(q a.db "select pid from trace_process where mode = 'nvtx'")
# every record is in the recording: the tracer's spool folder is gone
[ ! -e a.db.trace ] || fail "record --trace left its spool folder: $(ls a.db.trace)"
[ -n "$pid" ] || fail "no NVTX trace file was read (trace_process has no mode nvtx row)"

named() { # named NAME [WHERE]: marker rows of that name
  q a.db "select count(*) from marker m join trace_name n on n.pid = m.pid and n.id = m.name_id
          where n.name = '$1' ${2:+and $2}"
}
assert_eq "train_step ranges" "$(named train_step)" 50
assert_eq "forward (event attributes, ASCII)" "$(named forward)" 50
assert_eq "backward (Unicode, UTF-8 in the recording)" "$(named 'backward →')" 50
assert_eq "read_batch in domain io (registered string)" \
  "$(named read_batch "m.domain_name_id = (select id from trace_name where name = 'io')")" 50
assert_eq "start/end range ended on another thread, around every step" \
  "$(named epoch "m.start_ns <= (select min(t_start_ns) from step) and m.end_ns >= (select max(t_end_ns) from step)")" 1
assert_eq "mark" "$(named 'loop done' 'm.instant = 1')" 1
main_tid=$(q a.db "select distinct m.tid from marker m join trace_name n on n.pid = m.pid and n.id = m.name_id
                   where n.name = 'train_step'")
assert_eq "train_step on the main thread (its tid is the pid)" "$main_tid" "$pid"
assert_eq "prefetch on the worker thread" "$(named prefetch "m.tid != $pid")" 5
assert_eq "forward nested in its step" \
  "$(q a.db "select count(*) from marker f join trace_name nf on nf.pid = f.pid and nf.id = f.name_id
             join marker s on s.pid = f.pid join trace_name ns on ns.pid = s.pid and ns.id = s.name_id
             where nf.name = 'forward' and ns.name = 'train_step'
               and f.start_ns >= s.start_ns and f.end_ns <= s.end_ns")" 50

# The step table: one step per train_step range, numbered in order, each about
# the 10 ms the program slept (nanosleep never returns early; 500 ms allows for
# a loaded machine and the sanitizer).
assert_eq "steps" "$(q a.db "select count(*) from step where source = 'nvtx_range' and pid = $pid")" 50
assert_eq "steps numbered 1..50" "$(q a.db 'select min(step) || "-" || max(step) from step')" "1-50"
assert_eq "steps shorter than 10 ms" "$(q a.db 'select count(*) from step where t_end_ns - t_start_ns < 10000000')" 0
assert_eq "steps longer than 500 ms" "$(q a.db 'select count(*) from step where t_end_ns - t_start_ns > 500000000')" 0
assert_eq "steps in order, not overlapping" \
  "$(q a.db 'select count(*) from (select t_start_ns - lag(t_end_ns) over (order by step) as gap from step) where gap < 0')" 0
assert_eq "meta" "$(q a.db "select value from meta where key = 'step_range_steps'")" 50
"$GW_BIN" report --format json a.db > a.json || fail "report exited $?"
python3 - a.json <<'PY' || fail "the report does not take the NVTX steps"
import json, sys
p = json.load(open(sys.argv[1]))["steps_by_process"]
# the first step is warm-up (thresholds.c, loop_min_steps): its length is shown apart
assert len(p) == 1 and p[0]["steps"] == 49 and p[0]["warmup_step_s"] > 0, p
PY

# A name no range has: no steps, one line saying so.
"$GW_BIN" record --trace=full --step-range no_such_range -o b.db -- "$GW_NVTX_PROG" 3 1 0 > /dev/null 2> b.err ||
  fail "record exited $?"
assert_eq "no steps for an unknown name" "$(q b.db 'select count(*) from step')" 0
grep -q "no NVTX range of that name" b.err || fail "no message for an unknown range name: $(cat b.err)"
# --step-range without --trace is refused: the ranges come through the tracer.
"$GW_BIN" record --step-range train_step -o c.db -- true 2> c.err && fail "--step-range without --trace accepted"
grep -q "needs --trace" c.err || fail "unclear refusal: $(cat c.err)"

# Recorded without --step-range: report --step-range makes the steps in a
# private copy; the recording itself keeps none.
"$GW_BIN" record -q --trace=full -o later.db -- "$GW_NVTX_PROG" 20 2 0 > /dev/null || fail "record exited $?"
assert_eq "no steps recorded without --step-range" "$(q later.db 'select count(*) from step')" 0
"$GW_BIN" report --step-range train_step --format json later.db > later.json 2> later.err ||
  fail "report --step-range exited $?: $(cat later.err)"
python3 - later.json <<'PY' || fail "report --step-range: no steps in the report"
import json, sys
p = json.load(open(sys.argv[1]))["steps_by_process"]
assert len(p) == 1 and p[0]["steps"] == 19, p  # and the first, warm-up
PY
grep -q "20 steps from the NVTX ranges named train_step" later.err || fail "report did not say where the steps came from"
assert_eq "the recording is not changed" "$(q later.db 'select count(*) from step')" 0
# A recording without ranges (no --trace): the report goes on and says so.
"$GW_BIN" record -q -o plain.db -- true
"$GW_BIN" report --step-range train_step plain.db > /dev/null 2> plain.err || fail "report exited $?"
grep -q "plain.db: no NVTX range named train_step" plain.err || fail "unclear message: $(cat plain.err)"

# Fail open. The injection cannot create its file (no such folder): the
# program runs as without it, with one line on stderr.
rc=0
NVTX_INJECTION64_PATH=$GW_TRACER GPUWHY_TRACE_DIR=$PWD/missing "$GW_NVTX_PROG" 20 1 5 > f.out 2> f.err || rc=$?
assert_eq "exit status, file not creatable" "$rc" 5
assert_eq "output, file not creatable" "$(cat f.out)" "ran 20 steps"
assert_eq "one line on stderr" "$(grep -c 'gpuwhy-tracer: NVTX ranges are not recorded' f.err)" 1
# The folder is a file.
touch notadir
rc=0
NVTX_INJECTION64_PATH=$GW_TRACER GPUWHY_TRACE_DIR=$PWD/notadir "$GW_NVTX_PROG" 20 1 0 > g.out 2> /dev/null || rc=$?
assert_eq "exit status, folder is a file" "$rc" 0
assert_eq "output, folder is a file" "$(cat g.out)" "ran 20 steps"
# Loaded as the injection but not asked to trace: silent, nothing written.
mkdir quiet
rc=0
(cd quiet && NVTX_INJECTION64_PATH=$GW_TRACER "$GW_NVTX_PROG" 20 1 4 > ../h.out 2> ../h.err) || rc=$?
assert_eq "exit status, not tracing" "$rc" 4
assert_eq "no tracer line on stderr, not tracing" "$(grep -c gpuwhy h.err || true)" 0
assert_eq "nothing written, not tracing" "$(ls quiet | wc -l)" 0
# Traced by hand into a folder: the file appears and reads back.
mkdir by_hand
NVTX_INJECTION64_PATH=$GW_TRACER GPUWHY_TRACE_DIR=$PWD/by_hand "$GW_NVTX_PROG" 20 1 0 > /dev/null ||
  fail "program failed when traced by hand"
assert_eq "one NVTX file" "$(ls by_hand | grep -c -- '-nvtx\.gwt$')" 1
echo "nvtx_steps: ok"
