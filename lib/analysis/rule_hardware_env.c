/* The GPU or host environment, not the program, limits speed.
 * A GPU at its power limit (SW power cap) is at its physical limit: that is
 * not reported here. */
#include <math.h>
#include <string.h>

#include "analysis/rules.h"
#include "analysis/rule_signals.h"
#include "analysis/thresholds.h"

int gw_rule_hardware_env(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  const struct gw_host_profile *h = &dx->host;
  double conf = 0;
  int hard = 0;  /* symptoms that matter whatever their time share */
  int fault = 0; /* Xid / ECC: fix before touching anything else */
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *p = &dx->profiles[i];
    int64_t t0 = p->active_start_ns, t1 = p->active_end_ns;
    if (p->xid_count > 0) {
      gw_evidence(f, "xid_errors", p->gpu, p->first_xid_ns, t1, GW_NUM("xid_errors", GW_UNIT_COUNT, p->xid_count));
      conf = fmax(conf, 0.9);
      hard = fault = 1;
    }
    if (p->ecc_dbe > 0 || p->remap_pending > 0 || p->remap_failure > 0) {
      gw_evidence(f, "ecc_errors", p->gpu, 0, 0, GW_NUM("uncorrected_errors", GW_UNIT_COUNT, p->ecc_dbe),
                  GW_NUM("remap_pending", GW_UNIT_COUNT, p->remap_pending),
                  GW_NUM("remap_failed", GW_UNIT_COUNT, p->remap_failure));
      conf = fmax(conf, 0.9);
      hard = fault = 1;
    }
    if (p->loaded_ticks < 1)
      continue;
    if (!isnan(p->not_p0_frac) && p->not_p0_frac >= gw_thr.hw_bad_tick_frac) {
      gw_evidence(f, "pstate_under_load", p->gpu, t0, t1, GW_NUM("pstate", GW_UNIT_PSTATE, p->pstate_max),
                  GW_NUM("share", GW_UNIT_FRACTION, p->not_p0_frac));
      conf = fmax(conf, 0.7);
    }
    if (!isnan(p->bad_throttle_frac) && p->bad_throttle_frac >= gw_thr.hw_bad_tick_frac) {
      gw_evidence(f, "clock_throttled", p->gpu, t0, t1, GW_NUM("share", GW_UNIT_FRACTION, p->bad_throttle_frac),
                  GW_NUM("sm_clock_median", GW_UNIT_MHZ, p->sm_clock_med_mhz),
                  GW_NUM("sm_clock_max", GW_UNIT_MHZ, p->sm_clock_max_mhz));
      conf = fmax(conf, 0.8);
    }
    if (!isnan(p->power_limit_w) && !isnan(p->power_default_w) &&
        p->power_limit_w < gw_thr.power_limit_low_frac * p->power_default_w) {
      gw_evidence(f, "power_limit_lowered", p->gpu, 0, 0, GW_NUM("power_limit", GW_UNIT_W, p->power_limit_w),
                  GW_NUM("power_default", GW_UNIT_W, p->power_default_w));
      conf = fmax(conf, 0.7);
    }
    if (!isnan(p->pcie_degraded_frac) && p->pcie_degraded_frac >= 0.5) {
      gw_evidence(f, "pcie_degraded", p->gpu, t0, t1, GW_NUM("link_gen", GW_UNIT_PCIE_GEN, p->pcie_gen_min),
                  GW_NUM("link_width", GW_UNIT_LANES, p->pcie_width_min));
      conf = fmax(conf, 0.6);
    }
  }
  if (h->on_battery == 1) {
    gw_finding_add_evidence(f, "on_battery", -1, 0, 0, 0, NULL);
    conf = fmax(conf, 0.8);
    hard = 1;
  }
  /* A slow CPU clock only matters when the host is on the critical path. */
  int host_bound = (h->has_main && h->main_busy_frac >= 0.5) || (h->has_workers && h->workers_saturated_frac >= 0.5);
  if (strcmp(h->governor, "powersave") == 0 && host_bound) {
    gw_finding_add_evidence(f, "governor_powersave", -1, 0, 0, 0, NULL);
    conf = fmax(conf, 0.6);
    hard = 1;
  }
  /* A process outside the job on the same GPU: without MPS the driver
   * time-slices the two contexts, so the share of time its kernels ran (the
   * driver's per-process SM count) is time the job's kernels could not. */
  double neighbour_share = 0;
  const struct gw_gpu_series *nb = NULL;
  for (int i = 0; in->rec && i < in->rec->ngpus && i < dx->ngpus; i++) {
    const struct gw_gpu_series *g = &in->rec->gpus[i];
    if (!g->other_pid || isnan(g->other_sm_pct) || isnan(g->other_share_of_samples))
      continue;
    double s = g->other_sm_pct / 100 * g->other_share_of_samples / dx->ngpus;
    if (s > neighbour_share) {
      neighbour_share = s;
      nb = g;
    }
  }
  if (nb && neighbour_share >= gw_thr.finding_min_share) {
    gw_evidence(
        f, nb->other_comm[0] ? "gpu_shared_with_process" : "gpu_shared_with_process_unnamed", nb->gpu, 0, 0,
        GW_NUM("pid", GW_UNIT_COUNT, (double)nb->other_pid), GW_TEXT_VALUE("name", nb->other_comm),
        GW_NUM("memory", GW_UNIT_GIB, isnan(nb->other_mem_bytes) ? 0.0 : nb->other_mem_bytes / (1024.0 * 1024 * 1024)),
        GW_NUM("sm_share", GW_UNIT_PCT, nb->other_sm_pct),
        GW_NUM("sample_share", GW_UNIT_FRACTION, nb->other_share_of_samples));
    conf = fmax(conf, 0.7);
  } else {
    neighbour_share = 0;
  }
  if (f->nevidence == 0)
    return 0;
  double ns = dx->total.row_ns[GW_ROW_THROTTLED] - dx->total.throttled_power_cap_ns;
  double share = fmax(gw_rule_share(dx, ns), neighbour_share);
  if (share < gw_thr.finding_min_share && !hard)
    return 0;
  if (fault) /* every second of a faulting GPU is suspect: its whole lost time */
    share = fmax(share, gw_rule_share(dx, dx->lost_ns));
  f->share_of_active = share;
  f->confidence = conf;
  f->fix_first = fault;
  if (neighbour_share > 0)
    gw_finding_fix(f, "hardware_env.move_other_process");
  gw_fixes(f, "hardware_env.name_the_reason", "hardware_env.restore_cooling_power", "hardware_env.driver_and_card",
           "hardware_env.cpu_governor");
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it;
 * its title and explain texts are worded in lib/render/class_text.c). */
const struct gw_rule gw_class_hardware_env = {"hardware_env",   GW_ROW_THROTTLED,    gw_rule_hardware_env,
                                              GW_SIGNAL_CLOCKS, "sees_hardware_env", 0};
