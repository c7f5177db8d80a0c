/* Periodicity of a regularly sampled series (SM activity or a dip
 * indicator): the lag with the strongest autocorrelation. */
#ifndef GW_PERIODICITY_H
#define GW_PERIODICITY_H

#include <stddef.h>

struct gw_period {
  int found;           /* 1 when a peak at least min_strength exists */
  size_t lag;          /* in samples */
  double period_s;     /* lag x sample interval */
  double strength;     /* autocorrelation at the lag, -1..1 */
  double period_steps; /* period / median step time; NAN without step times */
};

/* Autocorrelation of x (NAN entries replaced by the mean) for lags 0..maxlag
 * into acf[0..maxlag]. Returns 0, or -1 when x is constant or too short. */
int gw_autocorr(const double *x, size_t n, size_t maxlag, double *acf);

/* Find the period: after the ACF first falls to zero, the shortest local
 * peak (lag >= min_lag, up to n/2) within 85% of the highest one, so a
 * multiple of the true period does not win. found is set when that peak
 * reaches min_strength. dt_s: sample interval in seconds. */
void gw_find_period(const double *x, size_t n, double dt_s, size_t min_lag, double min_strength, struct gw_period *out);

#endif
