#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/correlate.h"
#include "analysis/stats.h"
#include "support_test_main.h"

static void quantiles_interpolate_and_skip_nan(void **state) {
  (void)state;
  double v[] = {5, NAN, 1, 3, 2, 4};
  assert_int_equal(gw_stats_count(v, 6), 5);
  assert_float_equal(gw_stats_median(v, 6), 3, 1e-12);
  assert_float_equal(gw_stats_quantile(v, 6, 0), 1, 1e-12);
  assert_float_equal(gw_stats_quantile(v, 6, 1), 5, 1e-12);
  assert_float_equal(gw_stats_quantile(v, 6, 0.9), 4.6, 1e-12);
  assert_float_equal(gw_stats_mean(v, 6), 3, 1e-12);
  /* the input is not reordered */
  assert_float_equal(v[0], 5, 0);
}

static void empty_and_all_nan_give_nan(void **state) {
  (void)state;
  double v[] = {NAN, NAN};
  assert_true(isnan(gw_stats_median(v, 2)));
  assert_true(isnan(gw_stats_mean(v, 0)));
  assert_true(isnan(gw_stats_cv(v, 2)));
  assert_true(isnan(gw_stats_frac_at_least(v, 2, 1)));
}

static void mad_is_robust_to_an_outlier(void **state) {
  (void)state;
  double v[] = {10, 11, 9, 10, 1000};
  assert_float_equal(gw_stats_median(v, 5), 10, 1e-12);
  assert_float_equal(gw_stats_mad(v, 5), 1, 1e-12);
}

static void dispersion_of_steps(void **state) {
  (void)state;
  double even[] = {1, 1, 1, 1};
  assert_float_equal(gw_stats_cv(even, 4), 0, 1e-12);
  assert_float_equal(gw_stats_p90_over_p50(even, 4), 1, 1e-12);
  double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
  /* sample standard deviation 2.138, mean 5 */
  assert_float_equal(gw_stats_cv(v, 8), 2.13809 / 5, 1e-4);
  double jitter[] = {1, 1, 1, 1, 1, 1, 1, 1, 3, 3};
  assert_true(gw_stats_p90_over_p50(jitter, 10) >= 1.5);
  assert_float_equal(gw_stats_frac_at_least(jitter, 10, 2), 0.2, 1e-12);
}

static void pearson_sign_and_missing_pairs(void **state) {
  (void)state;
  double x[] = {1, 2, 3, 4, 5, NAN};
  double y[] = {10, 8, 6, 4, 2, 100};
  size_t pairs;
  assert_float_equal(gw_pearson(x, y, 6, &pairs), -1, 1e-12);
  assert_int_equal(pairs, 5);
  double c[] = {3, 3, 3, 3, 3, 3};
  assert_true(isnan(gw_pearson(x, c, 6, NULL)));
  unsigned char mask[] = {1, 0, 1, 0, 1, 0};
  assert_float_equal(gw_mean_where(y, mask, 6, 1), 6, 1e-12);
  assert_float_equal(gw_mean_where(y, mask, 6, 0), (8 + 4 + 100) / 3.0, 1e-12);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Quantiles come from a selection, not a sort: they must equal what a
 * sorted copy gives, with ties (a tick interval repeats), gaps and runs of
 * every length. */
static void quantiles_equal_a_sorted_copy(void **state) {
  (void)state;
  enum { N = 2001 };
  static double v[N], sorted[N];
  unsigned seed = 9;
  for (size_t n = 1; n <= N; n = n * 3 + 1) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      unsigned r = (seed >> 8) & 0xffff;
      v[i] = r % 13 == 0 ? NAN : (r % 3 == 0 ? 100 : (double)(r % 97)); /* many ties */
      if (!isnan(v[i]))
        sorted[k++] = v[i];
    }
    qsort(sorted, k, sizeof *sorted, cmp_double);
    const double qs[] = {0, 0.01, 0.1, 0.25, 0.5, 0.77, 0.9, 0.99, 1};
    for (size_t j = 0; j < sizeof qs / sizeof *qs; j++) {
      double expected = NAN;
      if (k > 0) {
        double pos = qs[j] * (double)(k - 1);
        size_t lo = (size_t)pos;
        expected = lo + 1 < k ? sorted[lo] + (pos - (double)lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
      }
      double got = gw_stats_quantile(v, n, qs[j]);
      if (isnan(expected))
        assert_true(isnan(got));
      else
        assert_true(got == expected);
    }
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(quantiles_interpolate_and_skip_nan), cmocka_unit_test(empty_and_all_nan_give_nan),
    cmocka_unit_test(mad_is_robust_to_an_outlier),        cmocka_unit_test(dispersion_of_steps),
    cmocka_unit_test(pearson_sign_and_missing_pairs),     cmocka_unit_test(quantiles_equal_a_sorted_copy),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
