/* Seed 2.4: ranks wait for the slowest one at every collective. */
#include <math.h>

#include "analysis/rules.h"
#include "analysis/thresholds.h"
#include "core/i18n.h"

int gw_rule_multi_gpu_sync(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  if (dx->ngpus < 2)
    return 0;
  const struct gw_gpu_profile *hi = NULL, *lo = NULL;
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *q = &dx->profiles[i];
    if (isnan(q->sm_med_pct) || q->active_end_ns == 0)
      continue;
    if (!hi || q->sm_med_pct > hi->sm_med_pct)
      hi = q;
    if (!lo || q->sm_med_pct < lo->sm_med_pct)
      lo = q;
  }
  double share = gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_COMM]);
  double spread = (hi && lo) ? hi->sm_med_pct - lo->sm_med_pct : 0;
  if (share < gw_thr.finding_min_share && spread < gw_thr.multi_sm_spread_pct)
    return 0;
  double conf = 0.5;
  if (spread >= gw_thr.multi_sm_spread_pct)
    conf += 0.2;
  if (hi && lo && !isnan(hi->sm_clock_med_mhz) && !isnan(lo->sm_clock_med_mhz) &&
      lo->sm_clock_med_mhz > 1.1 * hi->sm_clock_med_mhz)
    conf += 0.1; /* the busy rank runs hotter, so at lower clocks under the power cap */
  if (dx->total.from_timeline)
    conf += 0.1;
  if (dx->total.sm_from_util)
    conf *= gw_thr.no_gpm_conf_factor;
  f->share_of_active = share;
  f->confidence = conf;
  if (hi && lo) {
    gw_finding_evidence(f, hi->active_start_ns, hi->active_end_ns,
                        _("SM activity median %.0f%% on GPU %d against %.0f%% on GPU %d: a spread of %.0f points "
                          "(GPU-Util %.0f%% vs %.0f%% does not show it)"),
                        hi->sm_med_pct, hi->gpu, lo->sm_med_pct, lo->gpu, spread, hi->util_med_pct, lo->util_med_pct);
    if (!isnan(hi->sm_clock_med_mhz) && !isnan(lo->sm_clock_med_mhz))
      gw_finding_evidence(f, hi->active_start_ns, hi->active_end_ns,
                          _("SM clock median %.0f MHz on GPU %d, %.0f MHz on GPU %d"), hi->sm_clock_med_mhz, hi->gpu,
                          lo->sm_clock_med_mhz, lo->gpu);
    gw_finding_evidence(f, 0, 0, _("GPU %d does the most work per step; the others wait for it in collectives"),
                        hi->gpu);
  }
  gw_finding_evidence(f, 0, 0, _("%.0f%% of all GPUs' active time spent waiting on peers"), share * 100);
  gw_finding_fix(f,
                 _("give every rank the same amount of work (DistributedSampler, equal per-rank batch, no other "
                   "jobs on one GPU)"),
                 _("every collective waits for the slowest rank"));
  gw_finding_fix(f, _("overlap gradient all-reduce with the backward pass (DDP bucket_cap_mb, no_sync)"),
                 _("communication hidden behind compute costs no time"));
  gw_finding_fix(f, _("NCCL_DEBUG=INFO: check the transport (NVLink/P2P, not sockets); set NCCL_SOCKET_IFNAME"),
                 _("a slow transport stretches every collective"));
  gw_finding_fix(f, _("gradient accumulation, or ZeRO / tensor parallelism"),
                 _("fewer or smaller collectives per sample"));
  return 1;
}
