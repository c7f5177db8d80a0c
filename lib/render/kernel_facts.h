/* The kernel timeline of each GPU (lib/analysis/kernel_stats.c) as a fixed
 * list of labelled values, so that the Markdown and HTML reports show the
 * same figures in the same order as the text report. */
#ifndef GW_KERNEL_FACTS_H
#define GW_KERNEL_FACTS_H

#include "analysis/kernel_stats.h"

enum gw_kernel_fact_id {
  GW_KFACT_KERNELS,
  GW_KFACT_LAUNCH_RATE,
  GW_KFACT_DURATION,
  GW_KFACT_STEPS,
  GW_KFACT_KERNELS_PER_STEP,
  GW_KFACT_STEP_TIME,
  GW_KFACT_GRIDS_VARYING,
  GW_KFACT_WINDOW_GAPS,
  GW_KFACT_COUNT
};

/* Whether any of the n GPUs' statistics (ks may be NULL) holds traced
 * kernels; *sampled is set when one of them comes from a sampled trace. */
int gw_kernel_facts_present(const struct gw_kernel_stats *ks, int n, int *sampled);

/* The row's label, translated. */
const char *gw_kernel_fact_label(enum gw_kernel_fact_id id);

/* The value of one row for one GPU's statistics, "-" when it does not apply
 * (no steps, a full trace's window row). */
void gw_kernel_fact_value(const struct gw_kernel_stats *k, enum gw_kernel_fact_id id, char *buf, size_t cap);

#endif
