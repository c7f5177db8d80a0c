/* Robust statistics over arrays of doubles. NAN entries mean "not available"
 * and are skipped, never counted as 0. */
#ifndef GW_STATS_H
#define GW_STATS_H

#include <stddef.h>

/* Number of non-NAN values. */
size_t gw_stats_count(const double *v, size_t n);
/* Mean of the non-NAN values; NAN when there are none. */
double gw_stats_mean(const double *v, size_t n);
/* Quantile q in [0,1] with linear interpolation between order statistics;
 * NAN when there are no values. Does not modify v. */
double gw_stats_quantile(const double *v, size_t n, double q);
double gw_stats_median(const double *v, size_t n);
/* Median absolute deviation (unscaled). */
double gw_stats_mad(const double *v, size_t n);
/* Coefficient of variation: standard deviation / mean (NAN if mean is 0). */
double gw_stats_cv(const double *v, size_t n);
/* Dispersion p90 / p50 (NAN if p50 is 0). */
double gw_stats_p90_over_p50(const double *v, size_t n);
/* Share of non-NAN values at or above limit (0..1); NAN when none. */
double gw_stats_frac_at_least(const double *v, size_t n, double limit);

#endif
