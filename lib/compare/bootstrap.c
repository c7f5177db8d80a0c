/* Seeded bootstrap of the ratio of two statistics (see bootstrap.h). */
#include "compare/bootstrap.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/stats.h"
#include "core/util.h"

void gw_rng_seed(struct gw_rng *r, uint64_t seed) {
  r->state = seed;
}

uint64_t gw_rng_next(struct gw_rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

size_t gw_rng_below(struct gw_rng *r, size_t n) {
  /* Rejection keeps the draw unbiased for any n. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % (uint64_t)n;
  uint64_t x;
  do
    x = gw_rng_next(r);
  while (x >= limit);
  return (size_t)(x % (uint64_t)n);
}

static void swap(double *a, double *b) {
  double t = *a;
  *a = *b;
  *b = t;
}

/* k-th smallest of v[0..n) by quickselect with a three-way partition (so
 * the many repeated values of a resample cost nothing extra); reorders v so
 * that everything before index k is at most v[k]. Linear on average. */
static double select_kth(double *v, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = v[lo + (hi - lo) / 2];
    size_t lt = lo, i = lo, gt = hi + 1;
    while (i < gt) {
      if (v[i] < pivot)
        swap(&v[lt++], &v[i++]);
      else if (v[i] > pivot)
        swap(&v[i], &v[--gt]);
      else
        i++;
    }
    /* [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi] > pivot */
    if (k < lt)
      hi = lt - 1;
    else if (k >= gt)
      lo = gt;
    else
      return pivot;
  }
  return v[k];
}

static double median_in_place(double *v, size_t n) {
  if (n == 0)
    return NAN;
  double upper = select_kth(v, n, n / 2);
  if (n % 2)
    return upper;
  /* after the selection everything left of n/2 is <= upper: its maximum is the lower middle */
  double lower = v[0];
  for (size_t i = 1; i < n / 2; i++)
    if (v[i] > lower)
      lower = v[i];
  return (lower + upper) / 2;
}

double gw_boot_median_scratch(const double *v, size_t n, double *scratch) {
  for (size_t i = 0; i < n; i++)
    scratch[i] = v[i];
  return median_in_place(scratch, n);
}

static double mean_of(const double *v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += v[i];
  return n ? s / (double)n : NAN;
}

/* One resample of src into dst, then its statistic. */
static double resample_stat(struct gw_rng *rng, const double *src, size_t n, double *dst, enum gw_boot_stat stat) {
  for (size_t i = 0; i < n; i++)
    dst[i] = src[gw_rng_below(rng, n)];
  return stat == GW_BOOT_MEAN ? mean_of(dst, n) : median_in_place(dst, n);
}

int gw_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, enum gw_boot_stat stat, int resamples,
                       double level, uint64_t seed, struct gw_ratio_ci *out) {
  out->point = out->lo = out->hi = NAN;
  if (na == 0 || nb == 0 || resamples < 1)
    return -1;
  double *scratch = gw_xcalloc(na > nb ? na : nb, sizeof *scratch);
  double sa = stat == GW_BOOT_MEAN ? mean_of(a, na) : gw_boot_median_scratch(a, na, scratch);
  double sb = stat == GW_BOOT_MEAN ? mean_of(b, nb) : gw_boot_median_scratch(b, nb, scratch);
  if (!(sa != 0) || isnan(sb)) {
    free(scratch);
    return -1;
  }
  out->point = sb / sa;
  double *ratios = gw_xcalloc((size_t)resamples, sizeof *ratios);
  struct gw_rng rng;
  gw_rng_seed(&rng, seed);
  int kept = 0;
  for (int r = 0; r < resamples; r++) {
    double ra = resample_stat(&rng, a, na, scratch, stat);
    double rb = resample_stat(&rng, b, nb, scratch, stat);
    if (ra != 0 && !isnan(ra) && !isnan(rb))
      ratios[kept++] = rb / ra;
  }
  if (kept > 0) {
    double tail = (1 - level) / 2;
    out->lo = gw_stats_quantile(ratios, (size_t)kept, tail);
    out->hi = gw_stats_quantile(ratios, (size_t)kept, 1 - tail);
  }
  free(ratios);
  free(scratch);
  return kept > 0 ? 0 : -1;
}
