#include "render/kernel_facts.h"

#include <stdio.h>

#include "core/i18n.h"

int gw_kernel_facts_present(const struct gw_kernel_stats *ks, int n, int *sampled) {
  int any = 0;
  *sampled = 0;
  for (int i = 0; ks && i < n; i++)
    if (ks[i].nkernels > 0) {
      any = 1;
      *sampled |= ks[i].sampled;
    }
  return any;
}

const char *gw_kernel_fact_label(enum gw_kernel_fact_id id) {
  static const char *const labels[GW_KFACT_COUNT] = {
      [GW_KFACT_KERNELS] = N_("kernels"),
      [GW_KFACT_LAUNCH_RATE] = N_("launches per second"),
      [GW_KFACT_DURATION] = N_("kernel time: mean / median / p90"),
      [GW_KFACT_STEPS] = N_("steps"),
      [GW_KFACT_KERNELS_PER_STEP] = N_("kernels per step: mean (median)"),
      [GW_KFACT_STEP_TIME] = N_("step time, median"),
      [GW_KFACT_GRIDS_VARYING] = N_("grid sizes that change between steps"),
      [GW_KFACT_WINDOW_GAPS] = N_("inside the windows: busy / idle: launch, sync, input, communication, other"),
  };
  return id < GW_KFACT_COUNT ? _(labels[id]) : "";
}

void gw_kernel_fact_value(const struct gw_kernel_stats *k, enum gw_kernel_fact_id id, char *buf, size_t cap) {
  int steps = k->step_source != GW_KSTEPS_NONE;
  snprintf(buf, cap, "-");
  switch (id) {
  case GW_KFACT_KERNELS:
    if (k->sampled)
      snprintf(buf, cap, _("%lld in %.2f s of %lld trace windows"), (long long)k->nkernels, k->traced_s,
               (long long)k->nwindows);
    else
      snprintf(buf, cap, _("%lld in %.2f s"), (long long)k->nkernels, k->traced_s);
    break;
  case GW_KFACT_LAUNCH_RATE:
    snprintf(buf, cap, "%.0f", k->launches_per_s);
    break;
  case GW_KFACT_DURATION:
    snprintf(buf, cap, "%.1f / %.1f / %.1f us", k->dur_mean_us, k->dur_median_us, k->dur_p90_us);
    break;
  case GW_KFACT_STEPS:
    if (k->step_source == GW_KSTEPS_TABLE)
      snprintf(buf, cap, _("%lld, marked by the program"), (long long)k->nsteps);
    else if (k->step_source == GW_KSTEPS_SEQUENCE)
      snprintf(buf, cap, _("%lld, from the repeating kernel sequence (every %lld kernels)"), (long long)k->nsteps,
               (long long)k->period_kernels);
    break;
  case GW_KFACT_KERNELS_PER_STEP:
    if (steps)
      snprintf(buf, cap, "%.1f (%.0f)", k->kernels_per_step_mean, k->kernels_per_step_median);
    break;
  case GW_KFACT_STEP_TIME:
    if (steps)
      snprintf(buf, cap, "%.1f ms", k->step_median_s * 1e3);
    break;
  case GW_KFACT_GRIDS_VARYING:
    if (k->shape_pairs > 0)
      snprintf(buf, cap, _("%.1f%% of %lld"), 100.0 * (double)k->shape_varying / (double)k->shape_pairs,
               (long long)k->shape_pairs);
    break;
  case GW_KFACT_WINDOW_GAPS:
    if (k->window_span_s > 0) {
      char sync[16] = "-";
      if (k->window_sync_seen)
        snprintf(sync, sizeof sync, "%.0f%%", k->window_sync_share * 100);
      snprintf(buf, cap, "%.0f%% / %.0f%%, %s, %.0f%%, %.0f%%, %.0f%%", k->window_busy_share * 100,
               k->window_launch_share * 100, sync, k->window_input_share * 100, k->window_comm_share * 100,
               k->window_other_share * 100);
    }
    break;
  case GW_KFACT_COUNT:
    break;
  }
}
