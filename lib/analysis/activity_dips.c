#include "analysis/activity_dips.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/ledger.h"
#include "analysis/stats.h"
#include "analysis/thresholds.h"

unsigned char *gw_activity_dip_flags(const struct gw_gpu_series *g) {
  size_t first, last;
  if (g->n == 0 || !gw_working_span(g, &first, &last))
    return NULL;
  double *a = gw_xcalloc(g->n, sizeof *a);
  int from_util = 0;
  for (size_t i = 0; i < g->n; i++)
    a[i] = gw_tick_activity_pct(g, i, &from_util);
  double p90 = gw_stats_quantile(a + first, last - first + 1, 0.9);
  unsigned char *on = gw_xcalloc(g->n, 1);
  for (size_t i = first; i <= last; i++)
    on[i] = !isnan(a[i]) && !isnan(p90) && a[i] < gw_thr.dip_frac_of_typical * p90;
  free(a);
  return on;
}

double gw_activity_dip_frac_of_typical(void) {
  return gw_thr.dip_frac_of_typical;
}
