#include "fft.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"

size_t gw_fft_size_at_least(size_t n) {
  size_t m = 1;
  while (m < n) {
    if (m > SIZE_MAX / 2)
      return 0;
    m *= 2;
  }
  return m;
}

int gw_fft_radix2(double *re, double *im, size_t m) {
  if (m == 0 || (m & (m - 1)) != 0)
    return -1;
  if (m == 1)
    return 0;
  /* Bit-reversal permutation, so the butterflies below run in place. */
  for (size_t i = 1, j = 0; i < m; i++) {
    size_t bit = m >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j |= bit;
    if (i < j) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  /* Twiddles e^{-2 pi i k/m} for k < m/2, each from cos/sin directly: a
   * recurrence would accumulate rounding over a million terms. */
  size_t half = m / 2;
  double *wr = gw_xcalloc(half, sizeof *wr);
  double *wi = gw_xcalloc(half, sizeof *wi);
  const double two_pi = 6.283185307179586476925286766559;
  for (size_t k = 0; k < half; k++) {
    double a = -two_pi * (double)k / (double)m;
    wr[k] = cos(a);
    wi[k] = sin(a);
  }
  for (size_t len = 2; len <= m; len *= 2) {
    size_t h = len / 2, stride = m / len;
    for (size_t start = 0; start < m; start += len)
      for (size_t k = 0; k < h; k++) {
        double c = wr[k * stride], s = wi[k * stride];
        size_t a = start + k, b = a + h;
        double tr = re[b] * c - im[b] * s;
        double ti = re[b] * s + im[b] * c;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
  }
  free(wr);
  free(wi);
  return 0;
}
