#include "stats.h"

#include <math.h>
#include <stddef.h>
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

/* Copy of the valid values; caller frees. */
static double *valid_copy(const double *v, size_t n, size_t *k_out) {
  size_t k = 0;
  double *c = gw_xcalloc(n ? n : 1, sizeof *c);
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i]))
      c[k++] = v[i];
  *k_out = k;
  return c;
}

/* Moves the r-th smallest of c[0..k) to c[r], nothing larger before it and
 * nothing smaller after it: quickselect, O(k) on average where a sort is
 * O(k log k) (quantiles of a day of 10 Hz ticks are taken many times). An
 * unlucky run of pivots falls back to sorting the range left. */
static void select_rank(double *c, size_t k, size_t r) {
  ptrdiff_t lo = 0, hi = (ptrdiff_t)k - 1, want = (ptrdiff_t)r;
  for (int round = 0; lo < hi; round++) {
    if (round > 64) {
      qsort(c + lo, (size_t)(hi - lo + 1), sizeof *c, cmp_double);
      return;
    }
    double a = c[lo], b = c[lo + (hi - lo) / 2], d = c[hi];
    double pivot = a < b ? (b < d ? b : (a < d ? d : a)) : (a < d ? a : (b < d ? d : b));
    ptrdiff_t i = lo, j = hi;
    while (i <= j) {
      while (c[i] < pivot)
        i++;
      while (c[j] > pivot)
        j--;
      if (i <= j) {
        double t = c[i];
        c[i++] = c[j];
        c[j--] = t;
      }
    }
    /* c[lo..j] <= pivot, c[i..hi] >= pivot, anything between equals it */
    if (want <= j)
      hi = j;
    else if (want >= i)
      lo = i;
    else
      return;
  }
}

/* The q-quantile of the k values in c (reordered), interpolated between the
 * order statistics around q x (k - 1), as a sorted copy would give it. */
static double quantile_of(double *c, size_t k, double q) {
  if (k == 0)
    return NAN;
  double pos = q <= 0 ? 0 : q >= 1 ? (double)(k - 1) : q * (double)(k - 1);
  size_t lo = (size_t)pos;
  double frac = pos - (double)lo;
  select_rank(c, k, lo);
  if (q <= 0 || q >= 1 || lo + 1 >= k)
    return c[lo];
  double next = c[lo + 1]; /* the next order statistic: the smallest after lo */
  for (size_t i = lo + 2; i < k; i++)
    if (c[i] < next)
      next = c[i];
  return c[lo] + frac * (next - c[lo]);
}

double gw_stats_quantile(const double *v, size_t n, double q) {
  size_t k;
  double *c = valid_copy(v, n, &k);
  double r = quantile_of(c, k, q);
  free(c);
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
  double *c = valid_copy(v, n, &k);
  double p50 = quantile_of(c, k, 0.5), p90 = quantile_of(c, k, 0.9);
  free(c);
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
