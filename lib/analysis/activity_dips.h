/* Dips in a GPU's activity, for the charts and the trace export: the ticks whose activity falls
 * under the diagnosis's dip fraction of the GPU's usual (p90) level inside
 * its working span, the test the ledger's periodic row starts from. Built
 * from the analysis's own helpers and thresholds table. */
#ifndef GW_ACTIVITY_DIPS_H
#define GW_ACTIVITY_DIPS_H

#include "analysis/series.h"

/* One flag per gpu_sample tick of g (1: in a dip), owned by the caller;
 * NULL when the GPU never worked. */
unsigned char *gw_activity_dip_flags(const struct gw_gpu_series *g);
/* The fraction of the usual level under which a tick is in a dip (for the legend). */
double gw_activity_dip_frac_of_typical(void);

#endif
