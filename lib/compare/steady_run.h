/* One experiment run: the command recorded until it has run the seconds
 * asked of steady steps after its warm-up (or for max_seconds in all), and
 * its summary cut to those steady steps. Shared by experiment fixed-batch and
 * experiment try, so both measure a run the same way. */
#ifndef GW_COMPARE_STEADY_RUN_H
#define GW_COMPARE_STEADY_RUN_H

#include "analysis/steady_steps.h"
#include "compare/run_summary.h"

struct gw_steady_run_opts {
  char *const *argv;  /* the command, NULL-terminated */
  double seconds;     /* steady seconds to measure, after the warm-up; the run is stopped then */
  double max_seconds; /* the run is stopped after this long in all, steady or not */
  const char *nvml_lib;
};

/* How a run ended and what of it was steady. */
struct gw_steady_run {
  int status;  /* gw_record_run's: the command's exit status, or the recorder's error */
  int reached; /* stopped for having the steady seconds asked */
  int capped;  /* stopped at max_seconds */
  struct gw_steady steady;
  char msg[1024]; /* the recorder's message, "" none */
};

/* Records the command into path (the caller sets the child's environment). */
void gw_steady_run_record(const struct gw_steady_run_opts *o, const char *path, struct gw_steady_run *res);

/* Keeps the summary's steady steps only: its warm-up's steps are left out of
 * every figure (the loop's first step is already out, run_summary.c).
 * res->steady says whether steady steps were found. */
void gw_steady_run_keep_steady(struct gw_run_summary *s, struct gw_steady_run *res);

/* The run was ended by the experiment (steady seconds reached or
 * max_seconds): its exit status is the stop's, not the program's. */
int gw_steady_run_stopped(const struct gw_steady_run *res);

#endif
