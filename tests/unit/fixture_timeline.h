/* Timeline inputs for the unit tests of the gap split (analysis/timeline.h).
 * Header-only. */
#ifndef GW_FIXTURE_TIMELINE_H
#define GW_FIXTURE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/timeline.h"

/* Compute kernels up to t1, under the bounds the tests' expected figures were
 * worked out for: a gap up to 20 us is launch latency, and a host quiet for
 * more than 500 us is doing something else (the analysis defaults of
 * thresholds.c, written out so that tuning them does not move these figures).
 * The caller adds the other lists. */
static inline struct gw_timeline_input fixture_timeline(struct gw_interval *compute, size_t ncompute, int64_t t1) {
  struct gw_timeline_input in = {0};
  in.compute = compute;
  in.ncompute = ncompute;
  in.t1 = t1;
  in.launch_gap_max_ns = 20000;
  in.host_quiet_max_ns = 500000;
  return in;
}

#endif
