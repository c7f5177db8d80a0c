/* Bootstrap confidence intervals for the ratio of two runs' step-time
 * statistics, drawn from a seeded generator so that every output of compare,
 * baseline and sweep is reproducible. Method: docs/compare.md. */
#ifndef GW_COMPARE_BOOTSTRAP_H
#define GW_COMPARE_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#define GW_BOOT_RESAMPLES 2000
#define GW_BOOT_LEVEL 0.95
#define GW_BOOT_SEED 0x6770757768790001ULL /* fixed: same inputs, same interval */

/* splitmix64: small, fast and good enough to pick resample indices. */
struct gw_rng {
  uint64_t state;
};
void gw_rng_seed(struct gw_rng *r, uint64_t seed);
uint64_t gw_rng_next(struct gw_rng *r);
/* Uniform index in [0, n); n > 0. */
size_t gw_rng_below(struct gw_rng *r, size_t n);

enum gw_boot_stat { GW_BOOT_MEAN, GW_BOOT_MEDIAN };

/* A ratio with its percentile interval; NAN when it cannot be computed. */
struct gw_ratio_ci {
  double point; /* the statistic of b over the statistic of a, on the full samples */
  double lo, hi;
};

/* Median of v[0..n) (mean of the two middle values when n is even), computed
 * in scratch (n entries, overwritten); NAN when n is 0. */
double gw_boot_median_scratch(const double *v, size_t n, double *scratch);

/* stat(b) / stat(a) with a two-sided percentile interval at level (0.95):
 * each of resamples rounds draws na values from a and nb values from b with
 * replacement and records the ratio of their statistics. Returns 0, or -1
 * (out all NAN) when a sample is empty or a statistic of a is 0. */
int gw_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, enum gw_boot_stat stat, int resamples,
                       double level, uint64_t seed, struct gw_ratio_ci *out);

#endif
