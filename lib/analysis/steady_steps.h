/* Where a loop's warm-up ends: the steady part of its step times, found by
 * truncating the start of the series where that makes the mean's standard
 * error smallest (MSER-5, the marginal standard error rule over batch means
 * of 5 steps; White, Cobb & Spratt, 2000), or the earliest truncation within
 * GW_STEADY_SE_TOLERANCE of that. gpuwhy experiment fixed-batch
 * measures each run on these steps only, and runs each one until it has
 * enough of them. */
#ifndef GW_ANALYSIS_STEADY_STEPS_H
#define GW_ANALYSIS_STEADY_STEPS_H

#include <stddef.h>

enum gw_steady_state {
  GW_STEADY_FOUND,   /* steps from `first` on are steady */
  GW_STEADY_TOO_FEW, /* fewer than GW_STEADY_MIN_STEPS steps: nothing to tell by */
  GW_STEADY_NOT_YET, /* the best truncation falls in the second half: the step times still change */
};

/* MSER-5's batch: 5 steps average out a loop's burstiness (an input-bound
 * loop alternates steps whose batch was ready with steps that waited). */
#define GW_STEADY_BATCH_STEPS 5
/* 4 batches: the rule keeps at least half of them, so 2 batch means (10
 * steps) are left to estimate the steady rate from. */
#define GW_STEADY_MIN_STEPS (4 * GW_STEADY_BATCH_STEPS)

/* A truncation that lowers the standard error of the steady mean step time
 * by less than 2% of that mean is not taken: 2% is the change a comparison
 * calls no change (compare/comparison.h, GW_PRACTICAL_CHANGE), so what it
 * keeps cannot move a verdict, while plain MSER cuts short noisy runs at
 * random places (40 steps of 5 ms +-10%: 1 in 90 called not steady at 1%,
 * none in 2000 at 2%; 3 steps three times as slow are still cut). */
#define GW_STEADY_SE_TOLERANCE 0.02

struct gw_steady {
  enum gw_steady_state state;
  size_t first;    /* index of the first steady step (FOUND); else 0 */
  size_t nsteady;  /* steps from first on */
  double steady_s; /* their seconds */
  double warmup_s; /* seconds of the steps before first */
};

/* step_s: step times in seconds, in the order they ran (the loop's first
 * step already left out, as everywhere else). */
void gw_steady_find(const double *step_s, size_t n, struct gw_steady *out);

#endif
