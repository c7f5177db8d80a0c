#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"

size_t gw_stats_count(const double *v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += !isnan(v[i]);
  return k;
}

double gw_stats_mean(const double *v, size_t n) {
  double sum = 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i])) {
      sum += v[i];
      k++;
    }
  return k ? sum / (double)k : NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorted copy of the valid values; caller frees. */
static double *sorted_valid(const double *v, size_t n, size_t *k_out) {
  size_t k = 0;
  double *c = gw_xcalloc(n ? n : 1, sizeof *c);
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i]))
      c[k++] = v[i];
  qsort(c, k, sizeof *c, cmp_double);
  *k_out = k;
  return c;
}

static double quantile_sorted(const double *s, size_t k, double q) {
  if (k == 0)
    return NAN;
  if (q <= 0)
    return s[0];
  if (q >= 1)
    return s[k - 1];
  double pos = q * (double)(k - 1);
  size_t lo = (size_t)pos;
  double frac = pos - (double)lo;
  return lo + 1 < k ? s[lo] + frac * (s[lo + 1] - s[lo]) : s[lo];
}

double gw_stats_quantile(const double *v, size_t n, double q) {
  size_t k;
  double *s = sorted_valid(v, n, &k);
  double r = quantile_sorted(s, k, q);
  free(s);
  return r;
}

double gw_stats_median(const double *v, size_t n) {
  return gw_stats_quantile(v, n, 0.5);
}

double gw_stats_mad(const double *v, size_t n) {
  double med = gw_stats_median(v, n);
  if (isnan(med))
    return NAN;
  double *dev = gw_xcalloc(n ? n : 1, sizeof *dev);
  for (size_t i = 0; i < n; i++)
    dev[i] = isnan(v[i]) ? NAN : fabs(v[i] - med);
  double r = gw_stats_median(dev, n);
  free(dev);
  return r;
}

double gw_stats_cv(const double *v, size_t n) {
  double mean = gw_stats_mean(v, n);
  size_t k = gw_stats_count(v, n);
  if (isnan(mean) || mean == 0 || k < 2)
    return NAN;
  double ss = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i]))
      ss += (v[i] - mean) * (v[i] - mean);
  return sqrt(ss / (double)(k - 1)) / fabs(mean);
}

double gw_stats_p90_over_p50(const double *v, size_t n) {
  size_t k;
  double *s = sorted_valid(v, n, &k);
  double p50 = quantile_sorted(s, k, 0.5), p90 = quantile_sorted(s, k, 0.9);
  free(s);
  return (isnan(p50) || p50 == 0) ? NAN : p90 / p50;
}

double gw_stats_frac_at_least(const double *v, size_t n, double limit) {
  size_t k = 0, hit = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i])) {
      k++;
      hit += v[i] >= limit;
    }
  return k ? (double)hit / (double)k : NAN;
}
