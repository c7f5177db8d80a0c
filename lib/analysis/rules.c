#include "rules.h"

#include <math.h>
#include <string.h>

#include "analysis/thresholds.h"

/* The registry in its order; each row lives in its rule file. */
const struct gw_rule *const gw_rules[GW_NRULES] = {
#define GW_RULE(id) &gw_class_##id,
#include "analysis/rule_registry.h"
#undef GW_RULE
};
const int gw_nrules = GW_NRULES;
/* A rule adds at most one finding, so the findings array needs one slot per
 * row; GW_MAX_FINDINGS comes from the same list, this keeps them tied. */
_Static_assert(sizeof gw_rules / sizeof gw_rules[0] <= GW_MAX_FINDINGS, "findings array smaller than the registry");

const struct gw_rule *gw_rule_find(const char *id) {
  for (int i = 0; i < gw_nrules; i++)
    if (strcmp(gw_rules[i]->id, id) == 0)
      return gw_rules[i];
  return NULL;
}

void gw_rule_power_evidence(struct gw_finding *f, const struct gw_gpu_profile *p, const char *id) {
  if (isnan(p->power_frac))
    return;
  gw_evidence(f, id, p->gpu, p->active_start_ns, p->active_end_ns, GW_NUM("power_median", GW_UNIT_W, p->power_med_w),
              GW_NUM("power_limit", GW_UNIT_W, p->power_limit_w),
              GW_NUM("power_share", GW_UNIT_FRACTION, p->power_frac));
}

int gw_rule_distributed(const struct gw_rule_input *in) {
  return in->dx->ngpus > 1 || in->rec->world_size > 1;
}

double gw_rule_share(const struct gw_diagnosis *dx, double ns) {
  if (dx->active_ns <= 0)
    return 0;
  double s = ns / dx->active_ns;
  return s < 0 ? 0 : s > 1 ? 1 : s;
}

const struct gw_gpu_profile *gw_rule_mem_churn(const struct gw_diagnosis *dx) {
  const struct gw_gpu_profile *best = NULL;
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *p = &dx->profiles[i];
    if (p->mem_rises >= gw_thr.mem_churn_min_each && p->mem_falls >= gw_thr.mem_churn_min_each &&
        !isnan(p->mem_changes_per_min) && p->mem_changes_per_min >= gw_thr.mem_churn_per_min &&
        (!best || p->mem_changes_per_min > best->mem_changes_per_min))
      best = p;
  }
  return best;
}

const struct gw_gpu_profile *gw_rule_host_offload(const struct gw_diagnosis *dx) {
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->profiles[i].pcie_round_trip)
      return &dx->profiles[i];
  return NULL;
}

int gw_rule_main_prepares_data(const struct gw_diagnosis *dx) {
  const struct gw_host_profile *h = &dx->host;
  int workers = h->has_workers && !isnan(h->workers_med) && h->workers_med >= 1;
  /* several cores of CPU tensor work beside an optimizer kept in host
   * memory are that optimizer's update, not data preparation */
  return !workers && !gw_rule_host_offload(dx) && h->has_main && !isnan(h->main_multicore_frac) &&
         h->main_multicore_frac >= gw_thr.main_multicore_min_frac;
}

int gw_rule_main_launching(const struct gw_diagnosis *dx) {
  const struct gw_host_profile *h = &dx->host;
  return h->has_main && !isnan(h->main_busy_frac) && h->main_busy_frac >= 0.5 && !isnan(h->main_per_backward_cpu) &&
         h->main_per_backward_cpu <= gw_thr.main_per_backward_max;
}

int gw_rule_main_not_launching(const struct gw_diagnosis *dx) {
  const struct gw_host_profile *h = &dx->host;
  const struct gw_gpu_profile *p = &dx->profiles[0];
  /* beside a GPU resident half the time or more, a busy main thread spins
   * on it (CUDA's sync and a full launch queue wait on a busy core) */
  if (dx->ngpus < 1 || isnan(p->util_med_pct) || p->util_med_pct >= gw_thr.small_busy_util_pct)
    return 0;
  return h->has_main && !isnan(h->main_busy_frac) && h->main_busy_frac >= 0.5 && !isnan(h->main_per_backward_cpu) &&
         h->main_per_backward_cpu > gw_thr.main_per_backward_max;
}
