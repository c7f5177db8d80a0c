/* MSER-5 over a loop's step times (see steady_steps.h). */
#include "analysis/steady_steps.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"

void gw_steady_find(const double *step_s, size_t n, struct gw_steady *out) {
  *out = (struct gw_steady){.state = GW_STEADY_TOO_FEW};
  if (n < GW_STEADY_MIN_STEPS)
    return;
  size_t k = n / GW_STEADY_BATCH_STEPS; /* whole batches; the tail's few steps are steady or not with the last */
  double *mean = gw_xcalloc(k, sizeof *mean);
  for (size_t b = 0; b < k; b++) {
    double sum = 0;
    for (size_t i = 0; i < GW_STEADY_BATCH_STEPS; i++)
      sum += step_s[b * GW_STEADY_BATCH_STEPS + i];
    mean[b] = sum / GW_STEADY_BATCH_STEPS;
  }
  /* MSER statistic of truncating j batches: the spread of the batch means
   * kept over their count squared, the squared standard error of their mean
   * (up to a constant). Sums from the end make each j O(1). The last batch
   * alone has no spread: j stops one before it. */
  double *z = gw_xcalloc(k, sizeof *z), *tail_mean = gw_xcalloc(k, sizeof *tail_mean);
  double sum = 0, sum_sq = 0, best = INFINITY;
  for (size_t j = k; j-- > 0;) {
    sum += mean[j];
    sum_sq += mean[j] * mean[j];
    double kept = (double)(k - j);
    tail_mean[j] = sum / kept;
    double spread = sum_sq - sum * sum / kept;
    z[j] = k - j < 2 ? INFINITY : (spread > 0 ? spread : 0) / (kept * kept);
    if (z[j] < best)
      best = z[j];
  }
  /* The earliest truncation whose standard error is within the tolerance of
   * the best: cutting more steps for less is chasing noise (short runs of a
   * steady loop otherwise get cut at random places). */
  size_t best_j = 0;
  while (best_j + 2 < k && sqrt(z[best_j]) > sqrt(best) + GW_STEADY_SE_TOLERANCE * tail_mean[best_j])
    best_j++;
  free(z);
  free(tail_mean);
  free(mean);
  /* Past half of the batches the rule is not to be trusted: what it cuts
   * away is most of the run, so the loop has not settled yet. */
  if (2 * best_j > k) {
    out->state = GW_STEADY_NOT_YET;
    return;
  }
  out->state = GW_STEADY_FOUND;
  out->first = best_j * GW_STEADY_BATCH_STEPS;
  out->nsteady = n - out->first;
  for (size_t i = 0; i < n; i++) {
    if (i < out->first)
      out->warmup_s += step_s[i];
    else
      out->steady_s += step_s[i];
  }
}
