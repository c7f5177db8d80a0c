# Sourced by the coexistence plans (i23.sh, i23b.sh): prints what a recording says about a run of
# bench/tracer/profiler_mid_run.py. Needs q (scripts/dbq.py) defined by the caller.
# usage: coexist_describe DB LABEL LINE   (LINE: the program's last output line; DB "none" for a run alone)
coexist_describe() {
  local db=$1 t0 t1
  t0=$(echo "$3" | awk '{for (i = 1; i < NF; i++) if ($i == "profiler_start_ns") print $(i + 1)}')
  t1=$(echo "$3" | awk '{for (i = 1; i < NF; i++) if ($i == "profiler_end_ns") print $(i + 1)}')
  echo "$2: $3"
  [ -f "$db" ] || return
  echo "  recording: kernels $(q "$db" 'select count(*) from kernel'), windows $(q "$db" 'select count(*) from trace_window')"
  if [ -n "$t0" ]; then
    echo "  windows open at the profiler's start: $(q "$db" "select count(*) from trace_window where start_ns <= $t0 and end_ns >= $t0")," \
      "our kernels during the profiler's 10 steps: $(q "$db" "select count(*) from kernel where start_ns between $t0 and $t1")"
  fi
  q "$db" "select '  note ' || t_ns || ' ' || level || ': ' || text from trace_note where text like 'stood aside%' or text like 'came back%' or text like 'still standing%' or level != 'info'"
}
