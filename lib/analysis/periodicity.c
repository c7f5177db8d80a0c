#include "periodicity.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"
#include "fft.h"
#include "stats.h"

int gw_autocorr(const double *x, size_t n, size_t maxlag, double *acf) {
  if (n < 4)
    return -1;
  if (gw_stats_count(x, n) < 4)
    return -1;
  double mean = gw_stats_mean(x, n); /* NAN samples are gaps, left out */
  double *d = gw_xcalloc(n, sizeof *d);
  double var = 0;
  for (size_t i = 0; i < n; i++) {
    d[i] = isnan(x[i]) ? 0 : x[i] - mean;
    var += d[i] * d[i];
  }
  if (var <= 1e-12 * (double)n) {
    free(d);
    return -1;
  }
  if (maxlag >= n)
    maxlag = n - 1;
  /* Wiener-Khinchin: the autocorrelation is the inverse transform of the
   * power spectrum, O(n log n) where the sum over every lag is O(n x maxlag)
   * (a day at 10 Hz: 864000 x 432000). Zero padding to m >= n + maxlag keeps
   * the circular correlation from wrapping into the lags asked for. */
  size_t m = gw_fft_size_at_least(n + maxlag);
  if (m == 0) {
    free(d);
    return -1;
  }
  double *re = gw_xcalloc(m, sizeof *re);
  double *im = gw_xcalloc(m, sizeof *im);
  for (size_t i = 0; i < n; i++)
    re[i] = d[i];
  free(d); /* not held through the transforms, the run's peak on a long recording */
  d = NULL;
  gw_fft_radix2(re, im, m);
  for (size_t f = 0; f < m; f++) {
    re[f] = re[f] * re[f] + im[f] * im[f];
    im[f] = 0;
  }
  /* The power spectrum is real, so the real part of its forward transform,
   * divided by m, is its inverse transform. */
  gw_fft_radix2(re, im, m);
  acf[0] = 1;
  for (size_t lag = 1; lag <= maxlag; lag++)
    /* Normalise by the full variance (the biased estimator) so long lags,
     * with fewer pairs, are not inflated. */
    acf[lag] = re[lag] / (double)m / var;
  free(re);
  free(im);
  free(d);
  return 0;
}

void gw_find_period(const double *x, size_t n, double dt_s, size_t min_lag, double min_strength,
                    struct gw_period *out) {
  out->found = 0;
  out->lag = 0;
  out->period_s = NAN;
  out->strength = NAN;
  out->period_steps = NAN;
  if (n < 8)
    return;
  size_t maxlag = n / 2;
  double *acf = gw_xcalloc(maxlag + 1, sizeof *acf);
  if (gw_autocorr(x, n, maxlag, acf) != 0) {
    free(acf);
    return;
  }
  /* Skip the central lobe: a smooth series correlates with itself at small
   * lags without being periodic. */
  size_t first = 1;
  while (first <= maxlag && acf[first] > 0)
    first++;
  if (first < min_lag)
    first = min_lag;
  double best = 0;
  for (size_t lag = first; lag <= maxlag; lag++)
    if (acf[lag] > best)
      best = acf[lag];
  /* Multiples of the true period correlate almost as well; take the
   * shortest local peak that comes close to the best one. */
  size_t best_lag = 0;
  for (size_t lag = first; lag <= maxlag && best > 0; lag++) {
    int peak = acf[lag] >= acf[lag - 1] && (lag == maxlag || acf[lag] >= acf[lag + 1]);
    if (peak && acf[lag] >= 0.85 * best) {
      best_lag = lag;
      best = acf[lag];
      break;
    }
  }
  free(acf);
  if (best_lag == 0)
    return;
  out->lag = best_lag;
  out->period_s = (double)best_lag * dt_s;
  out->strength = best;
  out->found = best >= min_strength;
}
