/* gpuwhy experiment fixed-batch: the direct test of an input-bound job. The
 * command runs twice under the recorder with the Python hook: as it is, then
 * with every DataLoader iterator replaying its first K batches from memory;
 * if the steps get faster when the input pipeline is taken out, the job waits
 * for its input. */
#ifndef GPUWHY_EXPERIMENT_H
#define GPUWHY_EXPERIMENT_H

#include <stdio.h>

/* Steady seconds measured per run unless asked otherwise: at least hundreds
 * of steps for loops of up to 100 ms a step, enough for the bootstrap
 * interval of the throughput ratio to resolve a few percent. */
#define GW_FIXED_BATCH_SECONDS 30.0
/* Room for the warm-up on top of the steady seconds, before a run is ended
 * unsettled: compiling a large model with torch.compile or starting many
 * DataLoader workers takes minutes; a loop not steady after ten is not one a
 * short experiment can measure. */
#define GW_FIXED_BATCH_WARMUP_ROOM_S 600.0

struct gw_fixed_batch_opts {
  char *const *argv;  /* the command, NULL-terminated */
  int batches;        /* K: batches cached per iterator */
  double seconds;     /* steady seconds to measure per run, after its warm-up; each run is stopped then */
  double max_seconds; /* a run is stopped after this long in all, steady or not; 0: seconds +
                         GW_FIXED_BATCH_WARMUP_ROOM_S */
  const char *nvml_lib;
  int quiet;
};

/* Runs both, each until it has run `seconds` of steady steps after its
 * warm-up (analysis/steady_steps.h) or for max_seconds in all, prints both
 * throughputs over their steady steps, the ratio with its interval and one
 * sentence to out. Returns the exit status: 0 done, 2 no DataLoader in the
 * command (nothing to replay), too few steps or a run that never became
 * steady, 3 a run could not be recorded. */
int gw_fixed_batch_run(const struct gw_fixed_batch_opts *o, FILE *out);

/* gpuwhy experiment try: the baseline and each fix the Python hook can apply
 * (lib/compare/fix_catalog.h) interleaved in rounds, each run measured on its
 * steady steps, then the fixes that helped together; predicted against
 * measured gain per fix. */
#define GW_TRY_SECONDS 20.0
#define GW_TRY_ROUNDS 2
#define GW_TRY_MAX_FIXES 8

struct gw_try_opts {
  char *const *argv;                   /* the command, NULL-terminated; NULL with from */
  const char *from;                    /* a recording: the diagnosis source, its recorded command the command */
  const char *fixes[GW_TRY_MAX_FIXES]; /* --fix NAME[=VALUE], checked with gw_try_check_fix */
  int nfixes;                          /* 0: the catalogue's fixes for the baseline's diagnosis */
  int rounds;
  double seconds;       /* steady seconds per run */
  double max_seconds;   /* per run in all; 0: seconds + GW_FIXED_BATCH_WARMUP_ROOM_S */
  const char *keep_dir; /* NULL: gpuwhy-experiment-YYYYmmdd-HHMMSS in the current folder */
  int json;             /* the table as JSON on out */
  int quiet;
  const char *nvml_lib;
};

/* 0 when arg is a fix the hook knows with a valid value; else -1 with the
 * reason in err (the language of the messages). */
int gw_try_check_fix(const char *arg, char *err, size_t cap);

/* Runs the experiment, prints the table to out. Returns the exit status: 0
 * done (fixes that broke the program included), 2 a recording without a
 * command, a keep folder that is not empty, 3 the baseline could not be
 * recorded or broke. */
int gw_try_run(const struct gw_try_opts *o, FILE *out);

#endif
