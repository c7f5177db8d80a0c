/* A builder of one synthetic GPU tick at work, for the workload shapes the
 * analysis tests write with report_synth.h. Header-only. */
#ifndef GW_SUPPORT_GPU_TICK_H
#define GW_SUPPORT_GPU_TICK_H

#include "report_synth.h"

/* The levels of a GPU at work: GPU-Util and SM activity (%), board power,
 * SM clock, and the clock-event reasons (NVML's bit mask; 0: none). The
 * other fields keep what the caller set. */
static inline void support_gpu_working(struct synth_gpu *o, double util_pct, double sm_pct, double power_w,
                                       double clock_mhz, double reasons) {
  o->util = util_pct;
  o->sm = sm_pct;
  o->power_w = power_w;
  o->clock_mhz = clock_mhz;
  o->reasons = reasons;
}

#endif
