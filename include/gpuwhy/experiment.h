/* gpuwhy experiment fixed-batch: the direct test of an input-bound job. The
 * command runs twice under the recorder with the Python hook: as it is, then
 * with every DataLoader iterator replaying its first K batches from memory;
 * if the steps get faster when the input pipeline is taken out, the job waits
 * for its input. */
#ifndef GPUWHY_EXPERIMENT_H
#define GPUWHY_EXPERIMENT_H

#include <stdio.h>

struct gw_fixed_batch_opts {
  char *const *argv; /* the command, NULL-terminated */
  int batches;       /* K: batches cached per iterator */
  double seconds;    /* each run is stopped after this long; 0: runs to its end */
  const char *nvml_lib;
  int quiet;
};

/* Runs both, prints both throughputs, the ratio with its interval and one
 * sentence to out. Returns the exit status: 0 done, 2 no DataLoader in the
 * command (nothing to replay) or no steps, 3 a run could not be recorded. */
int gw_fixed_batch_run(const struct gw_fixed_batch_opts *o, FILE *out);

#endif
