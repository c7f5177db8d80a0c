/* The training loop that drives a GPU, as the Python hook measured it from
 * inside the program (the step table): when its steady state began and
 * ended, and the time it spent blocked in the DataLoader as intervals on the
 * recording's clock, so the ledger counts the GPU's idle time during those
 * waits as input without inferring it from CPU load. */
#ifndef GW_ANALYSIS_GPU_LOOP_H
#define GW_ANALYSIS_GPU_LOOP_H

#include <stddef.h>

#include "core/interval.h"
#include "store/store_model.h" /* the recording, not the loader: series.c uses this module */

struct gw_data_waits {
  struct gw_interval *iv; /* merged and sorted */
  size_t n;
  int measured;  /* every step of the loop got its data from a DataLoader, so the waits are all the input time */
  size_t cursor; /* for gw_data_wait_share_in: queries in increasing time */
  /* the loop's occasional long steps (thresholds.c outlier_step_*): eval,
   * checkpoint, logging, recompiles; merged and sorted, after the warm-up */
  struct gw_interval *outliers;
  size_t noutliers;
  size_t outlier_cursor;
};

/* The waits of the process that drives GPU gi (its traced process, else
 * the only process with steps, else the rank whose number is the GPU's index
 * on its host). Empty (n == 0) when the steps carry no wait or none of them
 * belongs to the GPU. Free with gw_data_waits_free. */
void gw_data_waits_for_gpu(const struct gw_recording *rec, int gi, struct gw_data_waits *out);
void gw_data_waits_free(struct gw_data_waits *w);

/* Narrow GPU gi's working span [first, last] (tick indices) to the loop's
 * steady state, from the end of its first step to the end of its last, when
 * its process has steps enough (gw_thr.loop_min_steps) and the narrowed span
 * still holds a tick; leaves it as it is otherwise. Returns 1 when narrowed. */
int gw_loop_clip_span(const struct gw_recording *rec, int gi, size_t *first, size_t *last);

/* The ticks [first, last] inside GPU gi's loop from the end of its first
 * step to the end of its last (same step count rule); 0 when it has too few
 * steps or no tick falls inside. */
int gw_loop_span_ticks(const struct gw_recording *rec, int gi, size_t *first, size_t *last);

/* The same on times: [*t0, *t1) narrowed in place. */
int gw_loop_clip_times(const struct gw_recording *rec, int gi, int64_t *t0, int64_t *t1);

/* Share of [t0, t1) covered by waits, 0..1. Successive calls must not go
 * back in time (the cursor walks forward; reset it to 0 to start over). */
double gw_data_wait_share_in(struct gw_data_waits *w, int64_t t0, int64_t t1);

/* Share of [t0, t1) inside the loop's occasional long steps; the same
 * forward-only rule as gw_data_wait_share_in. */
double gw_outlier_share_in(struct gw_data_waits *w, int64_t t0, int64_t t1);

#endif
