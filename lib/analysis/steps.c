#include "steps.h"

#include <math.h>

#include "analysis/stats.h"

size_t gw_steps_from_activity(const int64_t *t_ns, const double *a, size_t n, double min_swing, double *dur_s,
                              size_t cap) {
  double p10 = gw_stats_quantile(a, n, 0.1), p90 = gw_stats_quantile(a, n, 0.9);
  if (isnan(p10) || isnan(p90) || p90 - p10 < min_swing)
    return 0;
  double mid = (p10 + p90) / 2;
  /* Hysteresis of a quarter of the swing keeps noise from making steps. */
  double hi = mid + (p90 - p10) / 8, lo = mid - (p90 - p10) / 8;
  int above = 0, have_prev = 0;
  int64_t prev_rise = 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (isnan(a[i]))
      continue;
    if (!above && a[i] >= hi) {
      above = 1;
      if (have_prev && k < cap)
        dur_s[k++] = (double)(t_ns[i] - prev_rise) / 1e9;
      prev_rise = t_ns[i];
      have_prev = 1;
    } else if (above && a[i] <= lo) {
      above = 0;
    }
  }
  return k >= 2 ? k : 0;
}
