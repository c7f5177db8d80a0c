#include "analysis/mfu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/gpu_peaks.h"

/* Only a count from the GPU's own node: pids and local ranks repeat across
 * the hosts of a multi-node report. A rank is the job's (RANK: the GPU's
 * number across the nodes) or the host's (LOCAL_RANK: its index there). */
static const struct gw_step_flops *flops_for_gpu(const struct gw_recording *rec, int gi) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  for (size_t i = 0; i < rec->nstep_flops; i++)
    if (g->trace_pid > 0 && rec->step_flops[i].node == g->node && rec->step_flops[i].pid == g->trace_pid)
      return &rec->step_flops[i];
  for (size_t i = 0; i < rec->nstep_flops; i++)
    if (rec->step_flops[i].node == g->node && rec->step_flops[i].rank >= 0 && rec->step_flops[i].rank == g->gpu)
      return &rec->step_flops[i];
  for (size_t i = 0; i < rec->nstep_flops; i++)
    if (rec->step_flops[i].node == g->node && rec->step_flops[i].rank >= 0 && rec->step_flops[i].rank == g->node_gpu)
      return &rec->step_flops[i];
  /* one process on one GPU, or as many counted processes as GPUs (in rank order) */
  if ((size_t)rec->ngpus == rec->nstep_flops)
    return &rec->step_flops[gi];
  return NULL;
}

/* The dense peak for the step's dtype mix: the time the mix would take at
 * each dtype's peak, added (sum of flops_d / peak_d), gives its effective
 * peak; dtypes without a peak (float64, integers) are left out of the mix. */
static double mix_peak(const struct gw_gpu_peak *peak, const struct gw_step_flops *f, char *label, size_t cap) {
  double ideal_s = 0, mixed = 0, share[GW_PEAK_NDTYPES] = {0};
  for (int d = 0; d < f->ndtypes; d++) {
    int t = gw_peak_dtype_of_torch(f->dtype[d]);
    if (t < 0 || isnan(peak->tflops[t]) || !(f->dtype_flops[d] > 0))
      continue;
    ideal_s += f->dtype_flops[d] / (peak->tflops[t] * 1e12);
    mixed += f->dtype_flops[d];
    share[t] += f->dtype_flops[d];
  }
  if (!(mixed > 0)) {
    /* no split from the hook: a training job's matrices are bf16/fp16 today; said so in the label */
    int t = isnan(peak->tflops[GW_PEAK_BF16]) ? GW_PEAK_FP16 : GW_PEAK_BF16;
    snprintf(label, cap, "%s (assumed)", gw_peak_dtype_name(t));
    return peak->tflops[t];
  }
  size_t len = 0;
  label[0] = '\0';
  for (int t = GW_PEAK_NDTYPES - 1; t >= 0 && len < cap; t--) {
    if (!(share[t] > 0))
      continue;
    double pct = 100 * share[t] / mixed;
    int n = pct >= 99.5 ? snprintf(label + len, cap - len, "%s%s", len ? " + " : "", gw_peak_dtype_name(t))
                        : snprintf(label + len, cap - len, "%s%s %.0f%%", len ? " + " : "", gw_peak_dtype_name(t), pct);
    len += n > 0 ? (size_t)n : 0;
  }
  return mixed / ideal_s / 1e12;
}

void gw_mfu_build(const struct gw_recording *rec, const double *sm_clock_med_mhz, struct gw_mfu *out) {
  for (int gi = 0; gi < rec->ngpus; gi++) {
    struct gw_mfu *m = &out[gi];
    memset(m, 0, sizeof *m);
    m->flops_per_step = m->step_s = m->achieved_tflops = m->peak_tflops = m->peak_clock_mhz = m->mfu_pct = NAN;
    m->run_clock_mhz = m->clock_peak_tflops = m->mfu_at_clock_pct = NAN;
    m->counted_step_s = m->neighbours_step_s = m->counting_cost_pct = NAN;
    m->batch_size = m->step = m->pid = -1;
    const struct gw_step_flops *f = flops_for_gpu(rec, gi);
    if (!f || !(f->flops > 0))
      continue;
    m->measured = 1;
    m->flops_per_step = f->flops;
    m->step_s = f->steady_step_ns / 1e9;
    m->batch_size = f->batch_size;
    m->step = f->step;
    m->pid = f->pid;
    if (f->counted_ns >= 0)
      m->counted_step_s = (double)f->counted_ns / 1e9;
    m->neighbours_step_s = f->neighbours_median_ns / 1e9;
    if (m->neighbours_step_s > 0 && !isnan(m->counted_step_s))
      m->counting_cost_pct = 100 * (m->counted_step_s / m->neighbours_step_s - 1);
    if (m->step_s > 0)
      m->achieved_tflops = f->flops / m->step_s / 1e12;
    const struct gw_gpu_peak *peak = gw_gpu_peak_for(rec->gpus[gi].name);
    if (!peak)
      continue;
    m->model = peak->model;
    m->peak_tflops = mix_peak(peak, f, m->dtype_label, sizeof m->dtype_label);
    m->peak_clock_mhz = peak->clock_mhz;
    m->mfu_pct = 100 * m->achieved_tflops / m->peak_tflops;
    double clk = sm_clock_med_mhz ? sm_clock_med_mhz[gi] : NAN;
    if (clk > 0) {
      m->run_clock_mhz = clk;
      m->clock_peak_tflops = m->peak_tflops * clk / peak->clock_mhz;
      m->mfu_at_clock_pct = 100 * m->achieved_tflops / m->clock_peak_tflops;
    }
  }
}
