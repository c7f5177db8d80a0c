/* The host issues kernels too slowly for their tiny size. */
#include <math.h>

#include "analysis/confidence_share.h"
#include "analysis/rules.h"
#include "analysis/rule_signals.h"
#include "analysis/thresholds.h"

/* A sampled trace: its windows measured where the gaps went (the
 * timeline's split inside each window, kernel_stats.h window_*_share). The
 * windows are a sample of the run, as GPM's are, so their shares stand for
 * the active time of their GPU. The shares are of each window's work span
 * (its first GPU work to its last); a window the GPU spent mostly without
 * work (a server between bursts of requests, an idle phase) holds its
 * launch gaps in that span only, so the share counts in the proportion of
 * the windows' time the spans cover. Returns 0 when no GPU has windows. */
static int window_gaps(const struct gw_diagnosis *dx, double *launch_ns, double *sync_ns, double *span_s) {
  int any = 0;
  *launch_ns = *sync_ns = *span_s = 0;
  for (int i = 0; dx->kstats && i < dx->ngpus; i++) {
    const struct gw_kernel_stats *k = &dx->kstats[i];
    if (k->nkernels <= 0 || !k->sampled || k->window_span_s <= 0)
      continue;
    double active = gw_ledger_active_ns(&dx->ledgers[i]);
    double spans = k->traced_s > 0 ? fmin(1, k->window_span_s / k->traced_s) : 1;
    *launch_ns += k->window_launch_share * spans * active;
    if (k->window_sync_seen)
      *sync_ns += k->window_sync_share * spans * active;
    *span_s += k->window_span_s;
    any = 1;
  }
  return any;
}

int gw_rule_launch_overhead(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  const struct gw_host_profile *h = &dx->host;
  const struct gw_gpu_profile *p = &dx->profiles[0];
  int traced = dx->total.from_timeline;
  double win_launch_ns = 0, win_sync_ns = 0, win_span_s = 0;
  int windows = !traced && window_gaps(dx, &win_launch_ns, &win_sync_ns, &win_span_s);
  /* Counters: ticks with the storm signature (resident kernels, SMs
   * empty), plus the gaps a busy host leaves when the GPU is resident less
   * than half the time. A GPU resident most of the time sets the pace
   * itself: its short gaps are not the first thing to fix. */
  double ns = dx->total.tiny_kernel_ns;
  /* Traced: launch gaps, and the gaps a synchronizing call opens (the queue
   * drained, then refilled one launch at a time: an .item() in the step). */
  if (traced)
    ns = dx->total.row_ns[GW_ROW_IDLE_LAUNCH] + dx->total.row_ns[GW_ROW_IDLE_SYNC] + dx->total.tiny_kernel_ns;
  else if (!isnan(p->util_med_pct) && p->util_med_pct < gw_thr.small_busy_util_pct && !gw_rule_main_not_launching(dx))
    /* the counters guess launch gaps from a busy host; trace windows
     * measured them, and a gap they saw end in an input copy is not one.
     * Not where the busy main thread far outran the autograd thread that
     * launches the backward: its core went to host work of its own */
    ns += windows ? fmin(dx->total.launch_gap_ns, win_launch_ns) : dx->total.launch_gap_ns;
  /* Sampled trace: gaps that opened while the host waited in a
   * synchronizing call, as the full trace counts them (idle: sync): the
   * queue drained, then refilled one launch at a time. */
  if (windows)
    ns += win_sync_ns;
  int tiny = p->has_sm && !isnan(p->sm_per_util) && p->sm_per_util < gw_thr.launch_sm_per_util;
  /* Allocations that change from step to step (shapes vary): re-planning
   * for a new shape (cuDNN's algorithm search runs each candidate kernel
   * once, the allocator and compiler work between them) is a busy host
   * issuing a few kernels, the same counters as a launch-bound loop. Without
   * the trace only the storm signature (resident kernels, SMs almost empty)
   * and the sync gaps the windows measured are launch overhead's own. */
  if (!traced && !tiny && gw_rule_mem_churn(dx))
    ns = win_sync_ns;
  /* the tiny-kernel ticks hold gaps the trace also counts: one class
   * cannot lose more than the run lost */
  double share = gw_rule_share(dx, fmin(ns, dx->lost_ns));
  /* Without samples (whose launch time the measured verdict discounts the
   * same way), only what launches can have paced: steps longer than
   * launches fill, or new shapes with too few repeats to time a step without
   * one, are other host work in the same busy thread
   * (gw_launch_claim_factor). */
  if (!dx->measured)
    share *= gw_launch_claim_factor(dx);
  if (share < gw_thr.finding_min_share)
    return 0;
  /* untraced, the host must be seen launching: its launching threads (the
   * process where they were not measured) saturated in some of the run */
  if (!traced && !(h->has_main && h->launch_busy_frac >= 0.3))
    return 0;
  double conf = 0.5;
  if (tiny)
    conf += 0.2;
  if (!isnan(p->power_frac) && p->power_frac < gw_thr.low_power_frac)
    conf += 0.1;
  if (h->has_main && h->main_running_med >= 1)
    conf += 0.1;
  if (traced)
    conf += 0.1;
  if (dx->total.sm_from_util)
    conf *= gw_thr.no_gpm_conf_factor;
  f->share_of_active = share;
  f->confidence = conf > 0.95 ? 0.95 : conf;

  if (tiny)
    gw_evidence(f, "kernels_too_small", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("util_median", GW_UNIT_PCT, p->util_med_pct),
                GW_NUM("sm_active_median", GW_UNIT_PCT, p->sm_med_pct),
                GW_NUM("sm_per_util", GW_UNIT_RATIO, p->sm_per_util));
  if (h->has_main)
    gw_evidence(f, "main_process_threads", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("cpu_median", GW_UNIT_PCT, h->main_cpu_med_pct),
                GW_NUM("saturated_share", GW_UNIT_FRACTION, h->launch_busy_frac),
                GW_NUM("threads_running", GW_UNIT_COUNT, h->main_running_med));
  gw_rule_power_evidence(f, p, p->power_frac < gw_thr.low_power_frac ? "power_near_idle" : "power_moderate");
  if (windows)
    gw_evidence(f, "window_gaps", -1, p->active_start_ns, p->active_end_ns, GW_NUM("span", GW_UNIT_S, win_span_s),
                GW_NUM("sync_share", GW_UNIT_FRACTION, gw_rule_share(dx, win_sync_ns)),
                GW_NUM("launch_share", GW_UNIT_FRACTION, gw_rule_share(dx, win_launch_ns)));
  if (traced) {
    double issue = gw_rule_share(dx, dx->total.host_issue_ns);
    gw_evidence(f, "short_launch_gaps", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("share", GW_UNIT_FRACTION, gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_LAUNCH]) - issue),
                GW_NUM("gap_max", GW_UNIT_US, gw_thr.launch_gap_max_ns / 1e3));
    if (issue > 0)
      gw_evidence(f, "host_issue_gaps", -1, p->active_start_ns, p->active_end_ns,
                  GW_NUM("share", GW_UNIT_FRACTION, issue),
                  GW_NUM("quiet_max", GW_UNIT_MS, gw_thr.host_quiet_max_ns / 1e6));
    double sync = gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_SYNC]);
    if (sync > 0)
      gw_evidence(f, "sync_gaps", -1, p->active_start_ns, p->active_end_ns, GW_NUM("share", GW_UNIT_FRACTION, sync),
                  GW_NUM("gaps", GW_UNIT_COUNT, (double)dx->total.sync_gaps));
  }
  gw_fixes(f, "launch_overhead.remove_syncs", "launch_overhead.torch_compile", "launch_overhead.cuda_graphs",
           "launch_overhead.fused_kernels");
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it;
 * its title and explain texts are worded in lib/render/class_text.c). */
const struct gw_rule gw_class_launch_overhead = {
    "launch_overhead",       GW_ROW_IDLE_LAUNCH,
    gw_rule_launch_overhead, GW_SIGNAL_HOST_CPU | GW_SIGNAL_STACKS | GW_SIGNAL_KERNEL_TRACE,
    "sees_launch_overhead",  0};
