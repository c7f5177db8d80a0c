/* The sweep table: one run per value of a parameter (batch size, workers,
 * ...), and where throughput stops rising. */
#ifndef GW_COMPARE_SWEEP_H
#define GW_COMPARE_SWEEP_H

/* A doubling of the parameter that raises throughput by less than this has
 * reached the flat part of the curve (the scenario suite's label rule). */
#define GW_SWEEP_MIN_GAIN 0.20

struct gw_sweep_knee {
  int computed;                  /* values are positive numbers and two throughputs at least are known */
  int found;                     /* some step gained less than min_gain per doubling */
  int at, next;                  /* indices: the value where it stops rising and the one after it */
  double gain;                   /* throughput ratio next/at minus 1 */
  double gain_per_doubling;      /* the same per doubling of the value */
  double min_gain_before;        /* smallest gain per doubling before the knee; NAN when the knee is the first value */
  double last_gain_per_doubling; /* when not found: the gain per doubling of the last step */
};

/* x: the parameter's values in ascending order; thr: throughput at each (NAN
 * for rows without one, skipped). The knee is the first value whose step to
 * the next known value gains less than min_gain per doubling of x:
 * (thr[j] / thr[i]) ^ (1 / log2(x[j] / x[i])) - 1. */
void gw_sweep_find_knee(const double *x, const double *thr, int n, double min_gain, struct gw_sweep_knee *out);

#endif
