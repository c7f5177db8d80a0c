/* Each kernel has too little work to fill the SMs. */
#include <math.h>

#include "analysis/multi_gpu.h"
#include "analysis/rules.h"
#include "analysis/rule_signals.h"
#include "analysis/thresholds.h"

/* Share of the GPU's traced time in NCCL kernels, 0 when unknown. */
static double nccl_share_of(const struct gw_diagnosis *dx, int index) {
  const struct gw_multi_gpu *m = dx->multi;
  for (int j = 0; m && j < m->ngpus; j++)
    if (m->gpus[j].index == index && !isnan(m->gpus[j].nccl_share))
      return fmin(fmax(m->gpus[j].nccl_share, 0), 0.95);
  return 0;
}

/* Share of GPU i's traced kernel time that updates every parameter once a
 * step (kernel_stats.h: gw_kstats_per_parameter), NAN without a trace. */
static double per_param_share_of(const struct gw_diagnosis *dx, int i) {
  const struct gw_kernel_stats *k = dx->kstats ? &dx->kstats[i] : NULL;
  return k && k->nkernels > 0 ? k->per_param_share : NAN;
}

/* The rise in samples/s a doubled batch would give GPU i, from the kernel
 * trace alone (no GPM needed): from the kernels' launch configurations
 * where the trace has them (kernel_stats.h: doubling_gain, wave by wave),
 * else from the per-parameter work alone, which keeps its time while the
 * rest at most doubles: 2 / (2 - s) - 1. NAN without a trace. */
static double doubling_gain_of(const struct gw_diagnosis *dx, int i) {
  const struct gw_kernel_stats *k = dx->kstats ? &dx->kstats[i] : NULL;
  if (k && k->nkernels > 0 && !isnan(k->doubling_gain))
    return k->doubling_gain;
  double s = per_param_share_of(dx, i);
  return isnan(s) ? NAN : 2 / (2 - s) - 1;
}

/* Work that would not grow with a doubled batch (the optimizer's pass over
 * every parameter, kernels that leave SMs empty) large enough that doubling
 * gains at least thresholds.c's small_doubling_gain_min: a larger batch
 * spreads it over more samples. */
static int fixed_work_heavy(const struct gw_diagnosis *dx, int i) {
  double g = doubling_gain_of(dx, i);
  return !isnan(g) && g >= gw_thr.small_doubling_gain_min;
}

/* The share of GPU i's kernel time a doubled batch would not double: the
 * s with 2 / (2 - s) - 1 equal to the predicted gain. */
static double fixed_share_of(const struct gw_diagnosis *dx, int i) {
  double g = doubling_gain_of(dx, i);
  return isnan(g) || g <= 0 ? 0 : fmin(1, 2 - 2 / (1 + g));
}

int gw_rule_small_batch(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  /* The loop's typical step, measured inside the program, waits for its next
   * batch: the loader paces the steps (thresholds.c small_loader_paced_wait).
   * Fuller kernels finish sooner and the loop waits the longer, the samples a
   * second unchanged, and a larger batch asks the loader for as many more
   * samples: the batch's size is no cause until the input keeps up. */
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  if (gw_step_typical_share(b, b->kinds[GW_STEP_KIND_TYPICAL].data_wait_s) >= gw_thr.small_loader_paced_wait)
    return 0;
  const struct gw_host_profile *h = &dx->host;
  const struct gw_gpu_profile *p = NULL;
  double p_key = 0; /* the chosen GPU's fill (or SM-per-util): the lowest wins */
  int distributed = gw_rule_distributed(in);
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *q = &dx->profiles[i];
    if (isnan(q->util_med_pct) || q->util_med_pct < gw_thr.small_busy_util_pct)
      continue;
    /* Without SM activity an underfilled GPU is invisible (util says
     * "busy"); the kernel trace still shows the work that does not scale. */
    if ((!q->has_sm || dx->total.sm_from_util) && !fixed_work_heavy(dx, i))
      continue;
    if (nccl_share_of(dx, i) >= gw_thr.small_comm_bound_nccl_frac)
      continue; /* the collective sets this rank's step: filling its SMs cannot shorten it */
    /* A distributed job seen without a kernel trace, its SMs resident but
     * its math pipes all but idle: the kernels move data and compute
     * nothing (thresholds.c stream_math_fill_frac), and in such a job the
     * kernels that do are the collectives. That is not a small batch; the
     * trace would tell how much of the step they hold. */
    if (distributed && !dx->total.from_timeline && !isnan(q->math_fill) && q->math_fill < gw_thr.stream_math_fill_frac)
      continue;
    /* Board power alone is not a gate: the same work reads 94% of one
     * board's limit and 82% of a larger one's. The evidence is the work
     * itself. But SMs resident nine tenths of the time on a board that
     * spends nine tenths of its power have neither warp slots nor power
     * left for more work per kernel: what stays empty is the mix's own
     * (memory-bound kernels between the GEMMs, tails of waves). Read on a
     * measured SM activity only, and never against the kernel trace's own
     * prediction of what a doubled batch gains. */
    if (q->has_sm && !dx->total.sm_from_util && !fixed_work_heavy(dx, i) && !isnan(q->sm_med_pct) &&
        q->sm_med_pct >= gw_thr.small_saturated_pct && !isnan(q->power_frac) &&
        q->power_frac >= gw_thr.at_limit_power_frac)
      continue;
    int underfed;
    /* A rank waiting in an NCCL kernel keeps SMs "active" with the math pipes
     * idle: the fill of its compute time is the fill over the rest. */
    double fill = q->math_fill / (1 - nccl_share_of(dx, i));
    double tensor_fill = q->tensor_fill / (1 - nccl_share_of(dx, i));
    if (!isnan(q->math_fill)) /* SMs resident, math pipes idle, and not a streaming element-wise mix */
      underfed = fill < gw_thr.small_math_fill_frac &&
                 (isnan(tensor_fill) || tensor_fill < gw_thr.small_tensor_fill_frac) &&
                 (isnan(q->occupancy_med_pct) || q->occupancy_med_pct < gw_thr.small_occupancy_max_pct);
    else
      underfed = !isnan(q->sm_per_util) && q->sm_per_util < gw_thr.small_sm_per_util;
    underfed |= fixed_work_heavy(dx, i);
    double key = !isnan(q->math_fill) ? fill : !isnan(q->sm_per_util) ? q->sm_per_util : 1;
    if (underfed && (!p || key < p_key)) {
      p = q;
      p_key = key;
    }
  }
  if (!p)
    return 0;
  /* resident time with SMs empty, and the short gaps the host leaves
   * between kernels that finish too fast (tiny-kernel storms excluded) */
  double under_ns = 0;
  for (int i = 0; i < dx->ngpus; i++) /* resident NCCL kernels are communication, not small batches */
    if (nccl_share_of(dx, i) < gw_thr.small_comm_bound_nccl_frac)
      under_ns += dx->ledgers[i].row_ns[GW_ROW_UNDERFILLED] * (1 - nccl_share_of(dx, i));
  /* and the busy time spent on the per-parameter work a larger batch
   * would spread over more samples */
  for (int i = 0; i < dx->ngpus; i++)
    if (fixed_work_heavy(dx, i))
      under_ns +=
          fixed_share_of(dx, i) * (dx->ledgers[i].row_ns[GW_ROW_PRODUCTIVE] + dx->ledgers[i].row_ns[GW_ROW_THROTTLED]);
  double ns = under_ns + dx->total.launch_gap_ns - dx->total.tiny_kernel_ns;
  double share = gw_rule_share(dx, ns);
  if (share < gw_thr.finding_min_share)
    return 0;
  double conf = 0.45;
  /* the peak, not the median: a larger batch must fit where memory is fullest */
  int mem_free = !isnan(p->mem_peak_frac) && p->mem_peak_frac < gw_thr.mem_mostly_free_frac;
  if (mem_free)
    conf += 0.2;
  if (h->has_main && h->main_busy_frac < 0.5)
    conf += 0.1;
  int pi = (int)(p - dx->profiles);
  if (!isnan(p->math_fill) || fixed_work_heavy(dx, pi))
    conf += 0.1; /* the pipe counters, or the kernel trace, saw it directly */
  if (!isnan(p->mem_peak_frac) && p->mem_peak_frac > gw_thr.mem_headroom_low_frac)
    conf -= 0.15; /* no room to grow the batch: the cause may be elsewhere */
  f->share_of_active = share;
  f->confidence = conf;

  if (!isnan(p->math_fill))
    gw_evidence(
        f, "math_pipe_fill", p->gpu, p->active_start_ns, p->active_end_ns,
        GW_NUM("util_median", GW_UNIT_PCT, p->util_med_pct), GW_NUM("sm_active_median", GW_UNIT_PCT, p->sm_med_pct),
        GW_NUM("math_pipe_median", GW_UNIT_PCT, p->math_med_pct), GW_NUM("math_fill", GW_UNIT_RATIO, p->math_fill));
  if (fixed_work_heavy(dx, pi)) {
    double fixed = per_param_share_of(dx, pi);
    /* doubling the batch doubles at most the rest of the step: 2 / (2 - s) */
    if (!isnan(fixed) && fixed > 0)
      gw_evidence(f, "per_parameter_work", p->gpu, p->active_start_ns, p->active_end_ns,
                  GW_NUM("share", GW_UNIT_FRACTION, fixed),
                  GW_NUM("doubling_gain_min", GW_UNIT_FRACTION, 2 / (2 - fixed) - 1));
    const struct gw_kernel_stats *k = &dx->kstats[pi];
    if (!isnan(k->doubling_gain))
      gw_evidence(f, "doubling_from_waves", p->gpu, p->active_start_ns, p->active_end_ns,
                  GW_NUM("doubling_gain", GW_UNIT_FRACTION, k->doubling_gain));
  }
  double p_nccl = nccl_share_of(dx, pi);
  if (!isnan(p->math_fill) && p_nccl >= gw_thr.finding_min_share)
    gw_evidence(f, "nccl_keeps_sm_active", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("nccl_share", GW_UNIT_FRACTION, p_nccl),
                GW_NUM("math_fill_outside_nccl", GW_UNIT_RATIO, p->math_fill / (1 - p_nccl)));
  if (isnan(p->math_fill) && !isnan(p->sm_per_util) && p->sm_per_util < gw_thr.small_sm_per_util)
    gw_evidence(f, "sm_per_util_low", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("util_median", GW_UNIT_PCT, p->util_med_pct),
                GW_NUM("sm_active_median", GW_UNIT_PCT, p->sm_med_pct),
                GW_NUM("sm_per_util", GW_UNIT_RATIO, p->sm_per_util));
  if (!isnan(p->occupancy_med_pct))
    gw_evidence(f, "sm_occupancy", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("occupancy_median", GW_UNIT_PCT, p->occupancy_med_pct));
  if (!isnan(p->mem_peak_frac))
    gw_evidence(f, mem_free ? "memory_room" : "memory_tight", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("used_share", GW_UNIT_FRACTION, p->mem_peak_frac));
  gw_rule_power_evidence(f, p, p->power_frac < gw_thr.at_limit_power_frac ? "power_below_limit" : "power_median");
  if (h->has_main)
    gw_evidence(f, "main_process_not_limit", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("cpu_median", GW_UNIT_PCT, h->main_cpu_med_pct));
  gw_fixes(f, "small_batch.raise_batch", "small_batch.mixed_precision", "small_batch.fixed_shapes",
           "small_batch.activation_checkpointing", "small_batch.cuda_graphs");
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it;
 * its title and explain texts are worded in lib/render/class_text.c). */
const struct gw_rule gw_class_small_batch = {"small_batch",       GW_ROW_UNDERFILLED,
                                             gw_rule_small_batch, GW_SIGNAL_SM_ACTIVITY | GW_SIGNAL_KERNEL_TRACE,
                                             "sees_small_batch",  0};
