#include "compare/steady_run.h"

#include <gpuwhy/record.h>
#include <string.h>

#include "compare/steady_watch.h"
#include "core/util.h"

void gw_steady_run_record(const struct gw_steady_run_opts *o, const char *path, struct gw_steady_run *res) {
  memset(res, 0, sizeof *res);
  struct gw_steady_watch *watch = gw_steady_watch_new(o->seconds);
  struct gw_record_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.out_path = path;
  ro.interval_ms = 100;
  ro.gpm_interval_ms = 1000;
  ro.argv = o->argv;
  ro.nvml_lib = o->nvml_lib;
  ro.quiet = 1;
  ro.duration_s = o->max_seconds;
  ro.stop_command = 1;
  ro.on_python_step = gw_steady_watch_step;
  ro.python_step_ctx = watch;
  ro.on_tick = gw_steady_watch_tick;
  ro.tick_ctx = watch;
  int64_t t0 = gw_now_monotonic_ns();
  res->status = gw_record_run(&ro, res->msg, sizeof res->msg);
  double elapsed_s = (double)(gw_now_monotonic_ns() - t0) / 1e9;
  res->reached = gw_steady_watch_reached(watch);
  /* the recorder stops at max_seconds on its own clock; a second of slack for its last tick */
  res->capped = !res->reached && elapsed_s >= ro.duration_s - 1.0;
  gw_steady_watch_free(watch);
}

void gw_steady_run_keep_steady(struct gw_run_summary *s, struct gw_steady_run *res) {
  gw_steady_find(s->step_s, s->nsteps, &res->steady);
  if (res->steady.state != GW_STEADY_FOUND)
    return;
  memmove(s->step_s, s->step_s + res->steady.first, res->steady.nsteady * sizeof *s->step_s);
  s->nsteps = res->steady.nsteady;
  gw_run_summary_step_stats(s);
}

int gw_steady_run_stopped(const struct gw_steady_run *res) {
  return res->reached || res->capped;
}
