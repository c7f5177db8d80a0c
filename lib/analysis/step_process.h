/* Steps of one process: a recording from the Python hook holds the steps of
 * every rank (and of any helper process that ran a loop); throughput is the
 * steps of one of them, the lowest rank (rank 0 paces a synchronous job). */
#ifndef GW_ANALYSIS_STEP_PROCESS_H
#define GW_ANALYSIS_STEP_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store_model.h" /* the recording, not the loader: gpu_loop.c uses this module */

/* The pid whose steps stand for the run: the lowest rank, else the process
 * with most steps; -1 when the steps carry no pid (every step counts). */
int64_t gw_step_process_pick(const struct gw_recording *rec);

#define GW_MAX_STEP_PROCS 16 /* ranks shown in a report; more are summed up by the first of them */

struct gw_step_process {
  int64_t pid, rank; /* rank -1 unknown */
  size_t nsteps;
  double steps_per_s, samples_per_s; /* NAN unknown */
  double step_p50_s, step_p90_s;
  double data_wait_share;  /* time in DataLoader __next__ over step time; NAN unknown */
  double batch_size;       /* median leading dimension; NAN unknown */
  double samples_per_step; /* median; NAN unknown */
  double warmup_s;         /* the first step, left out of the figures above (one-time costs); NAN when kept */
};

/* The index in rec->steps of pid's first step when the loop has steps
 * enough to leave it out as warm-up (thresholds.c, loop_min_steps), else
 * SIZE_MAX. Rates, step times and the data-wait share leave it out. */
size_t gw_step_warmup_index(const struct gw_recording *rec, int64_t pid);

/* One entry per process with steps, ordered by rank then pid; returns the count (at most cap). */
size_t gw_step_processes(const struct gw_recording *rec, struct gw_step_process *out, size_t cap);

#endif
