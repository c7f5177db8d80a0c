#!/usr/bin/env bash
# `gpuwhy record` takes the hook's stack samples into py_sample and py_frame:
# a loop that waits on a DataLoader with workers is data_wait at the user's
# line that calls next(); one that spins in its own function outside any
# library, with no DataLoader, makes its data inline in that function; the
# rate reaches meta; --py-sample-hz 0 records none.
. "$(dirname "$0")/lib.bash"
use_fake_torch
PROG=$GW_SOURCE_DIR/tests/python/pysample_prog.py

# 30 steps of 40 ms at 100 Hz: about 120 samples
"$GW_BIN" record -q --py-sample-hz 100 -o w.db -- python3 "$PROG" data_wait 30 40 > w.out || fail "record exited $?"
n=$(q w.db "select count(*) from py_sample")
assert_ge "stack samples" "$n" 60
[ "$n" -le 200 ] || fail "$n samples: more than 100 Hz gives"
assert_eq "samples in meta" "$(q w.db "select value from meta where key = 'python_hook_stack_samples'")" "$n"
assert_eq "rate in meta" "$(q w.db "select value from meta where key = 'py_sampling_hz'")" 100
assert_eq "one process, one thread" "$(q w.db "select count(distinct pid) || ' ' || count(distinct tid) from py_sample")" "1 1"
assert_eq "the pid is the step's" "$(q w.db "select count(*) from py_sample where pid not in (select pid from step)")" 0
wait_pct=$(q w.db "select cast(100.0 * sum(activity = 1) / count(*) as int) from py_sample")
assert_ge "data_wait share %" "$wait_pct" 80
line=$(grep -n "batch, _ = next(it)" "$PROG" | cut -d: -f1)
assert_eq "innermost user frame of the data waits" \
  "$(q w.db "select f.file || ':' || f.line || ':' || f.func from py_sample s join py_frame f on f.id = s.frame
             where s.activity = 1 group by s.frame order by count(*) desc limit 1")" "$PROG:$line:<module>"
assert_eq "every frame id resolves" "$(q w.db "select count(*) from py_sample where frame is not null and frame not in (select id from py_frame)")" 0
assert_eq "sampler cost event" "$(q w.db "select count(*) from event where kind = 'py_sampler' and code > 0 and message = 'samples=$n'")" 1
assert_eq "no bad lines" "$(q w.db "select count(*) from meta where key = 'python_hook_bad_lines'")" 0

"$GW_BIN" record -q -o i.db -- python3 "$PROG" spin_inline 20 40 > /dev/null || fail "record exited $?"
assert_eq "default rate" "$(q i.db "select value from meta where key = 'py_sampling_hz'")" 25
inline_pct=$(q i.db "select cast(100.0 * sum(activity = 2) / count(*) as int) from py_sample")
# The sampler needs the interpreter lock: a sample lands where the training thread next lets it go, and on a
# loaded host a share of them lands in the hook's own step write (4-11% idle, 40% seen on two busy cores).
assert_ge "data_inline share %" "$inline_pct" 50
assert_eq "the inline work's function" \
  "$(q i.db "select f.func from py_sample s join py_frame f on f.id = s.frame where s.activity = 2
             group by f.func order by count(*) desc limit 1")" "spin"

"$GW_BIN" record -q --py-sample-hz 0 -o off.db -- python3 "$PROG" idle 10 10 > /dev/null || fail "record exited $?"
assert_eq "no samples when off" "$(q off.db "select count(*) from py_sample")" 0
assert_eq "steps still" "$(q off.db "select count(*) from step")" 10
assert_eq "rate 0 in meta" "$(q off.db "select value from meta where key = 'py_sampling_hz'")" 0
"$GW_BIN" record -q --py-sample-hz 2000 -o bad.db -- true 2> bad.err && fail "--py-sample-hz 2000 accepted"
grep -q "py-sample-hz" bad.err || fail "no word on --py-sample-hz: $(cat bad.err)"
exit 0
