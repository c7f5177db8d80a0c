/* Ranks wait for the slowest one at every collective, exposed
 * communication is a bubble, and a slow NCCL transport stretches both. The
 * evidence comes from the multi-GPU summary (analysis/multi_gpu.c). */
#include <math.h>
#include <stdio.h>

#include "analysis/multi_gpu.h"
#include "analysis/rules.h"
#include "analysis/thresholds.h"

static void cause_evidence(const struct gw_multi_gpu *m, const struct gw_diagnosis *dx, struct gw_finding *f) {
  const struct gw_mgpu_gpu *s = &m->gpus[m->straggler];
  const struct gw_gpu_profile *p = &dx->profiles[s->index];
  switch (m->cause) {
  case GW_STRAGGLER_MORE_WORK:
    gw_evidence(f, "straggler_more_work", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_TEXT_VALUE("label", s->label), GW_NUM("extra_work", GW_UNIT_FRACTION, m->cause_ratio - 1));
    break;
  case GW_STRAGGLER_CLOCKS:
    gw_evidence(f, "straggler_low_clock", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_TEXT_VALUE("label", s->label), GW_NUM("clock_ratio", GW_UNIT_FRACTION, m->cause_ratio),
                GW_NUM("sm_clock_median", GW_UNIT_MHZ, s->sm_clock_med_mhz));
    break;
  case GW_STRAGGLER_THROTTLE:
    gw_evidence(f, "straggler_throttled", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_TEXT_VALUE("label", s->label), GW_NUM("throttled_share", GW_UNIT_FRACTION, m->cause_ratio));
    break;
  case GW_STRAGGLER_INPUT:
    gw_evidence(f, "straggler_input", p->gpu, p->active_start_ns, p->active_end_ns, GW_TEXT_VALUE("label", s->label),
                GW_NUM("input_wait_excess", GW_UNIT_FRACTION, m->cause_ratio));
    break;
  case GW_STRAGGLER_OTHER_PROCESS:
    gw_evidence(f, "straggler_shared_gpu", p->gpu, 0, 0, GW_TEXT_VALUE("label", s->label),
                GW_NUM("processes", GW_UNIT_COUNT, m->cause_ratio));
    break;
  default:
    break;
  }
}

static void straggler_fix(const struct gw_multi_gpu *m, struct gw_finding *f) {
  /* the fix of each cause; more work, or a cause not known, is balanced */
  static const char *const fix_of_cause[] = {
      [GW_STRAGGLER_CLOCKS] = "multi_gpu_sync.equal_power_limits",
      [GW_STRAGGLER_THROTTLE] = "multi_gpu_sync.fix_throttled_gpu",
      [GW_STRAGGLER_INPUT] = "multi_gpu_sync.feed_slow_rank",
      [GW_STRAGGLER_OTHER_PROCESS] = "multi_gpu_sync.move_other_process",
  };
  size_t c = (size_t)m->cause;
  const char *fix = c < sizeof fix_of_cause / sizeof fix_of_cause[0] ? fix_of_cause[c] : NULL;
  gw_finding_fix(f, fix ? fix : "multi_gpu_sync.balance_work");
}

static void transport_fix(const struct gw_multi_gpu *m, struct gw_finding *f) {
  const unsigned char *a = m->nccl.advice;
  if (a[GW_NCCL_ADV_SOCKET_ONE_NODE] || a[GW_NCCL_ADV_SHM_BETWEEN_GPUS] || a[GW_NCCL_ADV_P2P_DISABLED])
    gw_finding_fix(f, "multi_gpu_sync.nccl_p2p");
  else if (a[GW_NCCL_ADV_IB_NO_GDR])
    gw_finding_fix(f, "multi_gpu_sync.gpudirect_rdma");
  else if (a[GW_NCCL_ADV_SOCKET_NODES])
    gw_finding_fix(f, "multi_gpu_sync.fast_interconnect");
}

int gw_rule_multi_gpu_sync(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  const struct gw_multi_gpu *m = dx->multi;
  if (!m)
    return 0;
  /* the ledger's communication row; a sampled trace's windows measure it better than the counters */
  double share = gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_COMM]);
  if (m->timeline == GW_MGPU_SAMPLED && !isnan(m->exposed_share) && m->exposed_share > share)
    share = m->exposed_share;
  int comm_heavy = share >= gw_thr.multi_exposed_min_share;
  if (!m->imbalanced && !comm_heavy)
    return 0;

  double conf = 0.5;
  if (m->imbalanced)
    conf += 0.2;
  const struct gw_mgpu_gpu *s = m->straggler >= 0 ? &m->gpus[m->straggler] : NULL;
  if (s && (m->cause == GW_STRAGGLER_MORE_WORK || m->cause == GW_STRAGGLER_CLOCKS))
    conf += 0.1; /* its own numbers say why it is slow */
  if (m->timeline != GW_MGPU_NO_TIMELINE)
    conf += 0.1;
  if (m->slow_transport && comm_heavy)
    conf += 0.1;
  if (dx->total.sm_from_util)
    conf *= gw_thr.no_gpm_conf_factor;
  f->share_of_active = share;
  f->confidence = conf;

  if (s) {
    const struct gw_gpu_profile *p = &dx->profiles[s->index];
    if (s->rank >= 0)
      gw_evidence(f, "straggler_rank", p->gpu, p->active_start_ns, p->active_end_ns, GW_TEXT_VALUE("label", s->label),
                  GW_NUM("rank", GW_UNIT_RANK, s->rank));
    else
      gw_evidence(f, "straggler", p->gpu, p->active_start_ns, p->active_end_ns, GW_TEXT_VALUE("label", s->label));
  }
  if (m->sm_hi >= 0 && !isnan(m->sm_spread_pts) && m->sm_spread_pts >= gw_thr.multi_sm_spread_pct) {
    const struct gw_mgpu_gpu *hi = &m->gpus[m->sm_hi], *lo = &m->gpus[m->sm_lo];
    const struct gw_gpu_profile *ph = &dx->profiles[hi->index];
    gw_evidence(f, "sm_spread", -1, ph->active_start_ns, ph->active_end_ns,
                GW_NUM("high_sm_active_median", GW_UNIT_PCT, hi->sm_med_pct), GW_TEXT_VALUE("high_label", hi->label),
                GW_NUM("low_sm_active_median", GW_UNIT_PCT, lo->sm_med_pct), GW_TEXT_VALUE("low_label", lo->label),
                GW_NUM("spread", GW_UNIT_POINTS, m->sm_spread_pts),
                GW_NUM("high_util_median", GW_UNIT_PCT, hi->util_med_pct),
                GW_NUM("low_util_median", GW_UNIT_PCT, lo->util_med_pct));
    if (!isnan(hi->tensor_med_pct) && !isnan(lo->tensor_med_pct))
      gw_evidence(f, "tensor_clock_spread", -1, ph->active_start_ns, ph->active_end_ns,
                  GW_NUM("high_tensor_median", GW_UNIT_PCT, hi->tensor_med_pct), GW_TEXT_VALUE("high_label", hi->label),
                  GW_NUM("low_tensor_median", GW_UNIT_PCT, lo->tensor_med_pct), GW_TEXT_VALUE("low_label", lo->label),
                  GW_NUM("high_sm_clock_median", GW_UNIT_MHZ, hi->sm_clock_med_mhz),
                  GW_NUM("low_sm_clock_median", GW_UNIT_MHZ, lo->sm_clock_med_mhz));
    else if (!isnan(hi->sm_clock_med_mhz) && !isnan(lo->sm_clock_med_mhz))
      gw_evidence(
          f, "clock_spread", -1, ph->active_start_ns, ph->active_end_ns,
          GW_NUM("high_sm_clock_median", GW_UNIT_MHZ, hi->sm_clock_med_mhz), GW_TEXT_VALUE("high_label", hi->label),
          GW_NUM("low_sm_clock_median", GW_UNIT_MHZ, lo->sm_clock_med_mhz), GW_TEXT_VALUE("low_label", lo->label));
  }
  if (s && !isnan(m->nccl_spread) && m->nccl_spread >= gw_thr.multi_wait_spread_frac) {
    const struct gw_mgpu_gpu *wait = s;
    for (int i = 0; i < m->ngpus; i++)
      if (!isnan(m->gpus[i].nccl_share) && m->gpus[i].nccl_share > wait->nccl_share)
        wait = &m->gpus[i];
    gw_evidence(f, "nccl_wait_spread", -1, 0, 0, GW_NUM("waiting_nccl_share", GW_UNIT_FRACTION, wait->nccl_share),
                GW_TEXT_VALUE("waiting_label", wait->label),
                GW_NUM("straggler_nccl_share", GW_UNIT_FRACTION, s->nccl_share),
                GW_TEXT_VALUE("straggler_label", s->label));
  }
  if (s)
    cause_evidence(m, dx, f);
  if (!isnan(m->exposed_share)) {
    double nccl = 0, overlap = 0;
    for (int i = 0; i < m->ngpus; i++)
      if (!isnan(m->gpus[i].nccl_s)) {
        nccl += m->gpus[i].nccl_s;
        overlap += m->gpus[i].overlap_s;
      }
    if (nccl > 0)
      gw_evidence(f, "comm_overlap", -1, 0, 0, GW_NUM("overlap_share", GW_UNIT_FRACTION, overlap / nccl),
                  GW_NUM("exposed_share", GW_UNIT_FRACTION, m->exposed_share));
  }
  if (!isnan(m->shared_dip_share) && m->shared_dip_share >= gw_thr.finding_min_share)
    gw_evidence(f, "shared_dips", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, m->shared_dip_share));
  if (m->slow_transport) {
    char names[96] = "";
    size_t len = 0;
    for (int t = 0; t < GW_NCCL_NTRANSPORTS && len + 1 < sizeof names; t++)
      if (m->nccl.connections[t] > 0 && gw_nccl_transport_is_slow((enum gw_nccl_transport)t)) {
        int n = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                         gw_nccl_transport_name((enum gw_nccl_transport)t));
        len = n > 0 && (size_t)n < sizeof names - len ? len + (size_t)n : sizeof names - 1;
      }
    if (names[0])
      gw_evidence(f, "nccl_slow_path", -1, 0, 0, GW_TEXT_VALUE("transports", names));
    else
      /* no slow transport named: a phrase id, worded by render/label_text.c */
      gw_evidence(f, "nccl_slow_path", -1, 0, 0, GW_PHRASE("transports", "p2p_unavailable"));
  }
  gw_evidence(f, "peer_wait_share", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, share));

  /* the right fix first: a transport setting is the cheapest, then the
   * straggler's own cause, then hiding the communication */
  if (m->slow_transport)
    transport_fix(m, f);
  if (s)
    straggler_fix(m, f);
  gw_finding_fix(f, "multi_gpu_sync.overlap_allreduce");
  if (!m->slow_transport && !m->nccl.has_log)
    gw_finding_fix(f, "multi_gpu_sync.nccl_debug");
  gw_finding_fix(f, "multi_gpu_sync.fewer_collectives");
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it;
 * its title and explain texts are worded in lib/render/class_text.c). */
/* No signal declared: the class needs peers, and a job of one GPU and one
 * process has none (it cannot have the class), where several GPUs or ranks
 * always bring the per-GPU counters the rule reads. */
const struct gw_rule gw_class_multi_gpu_sync = {"multi_gpu_sync", GW_ROW_IDLE_COMM, gw_rule_multi_gpu_sync, 0, NULL, 0};
