#include "correlate.h"

#include <math.h>

double gw_pearson(const double *x, const double *y, size_t n, size_t *pairs) {
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i]) || isnan(y[i]))
      continue;
    sx += x[i];
    sy += y[i];
    k++;
  }
  if (pairs)
    *pairs = k;
  if (k < 3)
    return NAN;
  double mx = sx / (double)k, my = sy / (double)k;
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i]) || isnan(y[i]))
      continue;
    double dx = x[i] - mx, dy = y[i] - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  if (sxx <= 0 || syy <= 0)
    return NAN;
  return sxy / sqrt(sxx * syy);
}

double gw_mean_where(const double *y, const unsigned char *mask, size_t n, int want) {
  double s = 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(y[i]) && (mask[i] != 0) == (want != 0)) {
      s += y[i];
      k++;
    }
  return k ? s / (double)k : NAN;
}
