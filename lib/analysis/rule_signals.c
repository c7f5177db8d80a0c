#include "analysis/rule_signals.h"

#include <math.h>

#include "analysis/series.h"

static int any_metric(const struct gw_recording *rec, enum gw_gpu_metric m) {
  for (int i = 0; i < rec->ngpus; i++)
    if (gw_metric_count(&rec->gpus[i], m, 0, rec->gpus[i].n) > 0)
      return 1;
  return 0;
}

static int any_value(const double *v, size_t n) {
  for (size_t i = 0; v && i < n; i++)
    if (!isnan(v[i]))
      return 1;
  return 0;
}

unsigned gw_recording_signals(const struct gw_recording *rec) {
  unsigned s = 0;
  int sm = any_metric(rec, GW_M_sm_active_pct);
  if (sm || any_metric(rec, GW_M_util_gpu_pct))
    s |= GW_SIGNAL_GPU_ACTIVITY;
  if (sm)
    s |= GW_SIGNAL_SM_ACTIVITY;
  if (rec->has_timeline || rec->nwindows > 0)
    s |= GW_SIGNAL_KERNEL_TRACE;
  if (any_value(rec->host.main_cpu_pct, rec->host.n))
    s |= GW_SIGNAL_HOST_CPU;
  if (rec->nsteps > 0)
    s |= GW_SIGNAL_STEPS;
  if (rec->npy_ticks > 0 || rec->nthread_ticks > 0)
    s |= GW_SIGNAL_STACKS;
  if (any_metric(rec, GW_M_sm_clock_mhz) || any_metric(rec, GW_M_clock_reasons))
    s |= GW_SIGNAL_CLOCKS;
  return s;
}
