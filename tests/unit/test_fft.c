#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/fft.h"
#include "support_test_main.h"

/* Deterministic noise in [-1, 1]. */
static double noise(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((double)((*s >> 8) & 0xffff) / 32767.5) - 1;
}

static void matches_the_direct_transform(void **state) {
  (void)state;
  enum { M = 256 };
  double re[M], im[M], x_re[M], x_im[M];
  unsigned seed = 11;
  for (int j = 0; j < M; j++) {
    x_re[j] = re[j] = noise(&seed);
    x_im[j] = im[j] = noise(&seed);
  }
  assert_int_equal(gw_fft_radix2(re, im, M), 0);
  for (int k = 0; k < M; k++) {
    double sr = 0, si = 0;
    for (int j = 0; j < M; j++) {
      double a = -2 * M_PI * (double)((j * k) % M) / M;
      sr += x_re[j] * cos(a) - x_im[j] * sin(a);
      si += x_re[j] * sin(a) + x_im[j] * cos(a);
    }
    assert_float_equal(re[k], sr, 1e-11);
    assert_float_equal(im[k], si, 1e-11);
  }
}

static void a_pure_tone_lands_in_one_bin(void **state) {
  (void)state;
  enum { M = 64 };
  double re[M], im[M];
  for (int j = 0; j < M; j++) {
    re[j] = cos(2 * M_PI * 5 * j / M);
    im[j] = 0;
  }
  assert_int_equal(gw_fft_radix2(re, im, M), 0);
  for (int k = 0; k < M; k++) {
    double expected = (k == 5 || k == M - 5) ? M / 2.0 : 0;
    assert_float_equal(re[k], expected, 1e-12);
    assert_float_equal(im[k], 0, 1e-12);
  }
}

static void sizes_that_are_not_powers_of_two_are_refused(void **state) {
  (void)state;
  double re[12] = {1}, im[12] = {0};
  assert_int_equal(gw_fft_radix2(re, im, 12), -1);
  assert_int_equal(gw_fft_radix2(re, im, 0), -1);
  assert_float_equal(re[0], 1, 0); /* untouched */
  assert_int_equal(gw_fft_radix2(re, im, 1), 0);
  assert_int_equal(gw_fft_size_at_least(1), 1);
  assert_int_equal(gw_fft_size_at_least(1025), 2048);
  assert_int_equal(gw_fft_size_at_least(1024), 1024);
  assert_int_equal(gw_fft_size_at_least(SIZE_MAX), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(matches_the_direct_transform),
    cmocka_unit_test(a_pure_tone_lands_in_one_bin),
    cmocka_unit_test(sizes_that_are_not_powers_of_two_are_refused),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
