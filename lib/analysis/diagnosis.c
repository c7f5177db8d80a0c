#include "core/sample.h"
#include "diagnosis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mfu.h"
#include "analysis/fix_catalog.h"
#include "analysis/gpu_peaks.h"
#include "analysis/next_run.h"
#include "analysis/confidence_calibration.h"
#include "analysis/confidence_share.h"
#include "analysis/correlate.h"
#include "analysis/finding_rank.h"
#include "analysis/gpu_loop.h"
#include "analysis/idle_attribution.h"
#include "analysis/measured_verdict.h"
#include "analysis/multi_gpu.h"
#include "analysis/rule_signals.h"
#include "analysis/rules.h"
#include "analysis/step_process.h"
#include "analysis/sm_fill.h"
#include "analysis/stats.h"
#include "analysis/steps.h"
#include "analysis/thresholds.h"
#include "sources/kmsg.h"

void gw_diagnosis_add_note(struct gw_diagnosis *dx, const char *id, int gpu, int nargs,
                           const struct gw_evidence_arg *args) {
  if (dx->nnotes < GW_MAX_NOTES)
    gw_evidence_set(&dx->notes[dx->nnotes++], id, gpu, 0, 0, nargs, args);
}

int gw_diagnosis_largest_loss(const struct gw_diagnosis *dx, double *share_of_active) {
  int best = GW_ROW_PRODUCTIVE;
  for (int r = GW_ROW_UNDERFILLED; r < GW_ROW_STARTUP; r++)
    if (dx->total.measured[r] && dx->total.row_ns[r] > 0 &&
        (best == GW_ROW_PRODUCTIVE || dx->total.row_ns[r] > dx->total.row_ns[best]))
      best = r;
  *share_of_active = best == GW_ROW_PRODUCTIVE ? 0 : gw_rule_share(dx, dx->total.row_ns[best]);
  return best;
}

const char *gw_diagnosis_row_title_id(const struct gw_diagnosis *dx, int row) {
  if (dx->sm_blind && row == GW_ROW_PRODUCTIVE)
    return "productive_sm_blind";
  /* a finding claims most of it (more than half): the row is not "unexplained" */
  if (row == GW_ROW_IDLE_OTHER && dx->other_claimed_ns > 0.5 * dx->total.row_ns[GW_ROW_IDLE_OTHER])
    return "idle_other_claimed";
  return gw_ledger_row_id((enum gw_ledger_row)row);
}

/* An interpretation line: id, a row of render/note_text.c's table, and its values. */
static void add_interp(struct gw_diagnosis *dx, const char *id, int gpu, int nargs,
                       const struct gw_evidence_arg *args) {
  if (dx->ninterp < GW_MAX_NOTES)
    gw_evidence_set(&dx->interp[dx->ninterp++], id, gpu, 0, 0, nargs, args);
}
#define interp(dx, id, gpu, ...)                                                                                       \
  add_interp((dx), (id), (gpu),                                                                                        \
             (int)(sizeof((const struct gw_evidence_arg[]){__VA_ARGS__}) / sizeof(struct gw_evidence_arg)),            \
             (const struct gw_evidence_arg[]){__VA_ARGS__})

/* why_id: a row of render/note_text.c's table. */
static void experiment(struct gw_diagnosis *dx, const char *what, const char *why_id) {
  for (int i = 0; i < dx->nexperiments; i++)
    if (dx->experiments[i].what == what)
      return;
  if (dx->nexperiments < GW_MAX_FIXES) {
    dx->experiments[dx->nexperiments].what = what;
    dx->experiments[dx->nexperiments].why_id = why_id;
    dx->nexperiments++;
  }
}

static double val(const struct gw_value_column *c, size_t i) {
  return gw_column_at(c, i);
}

/* Per-GPU working arrays, alive during gw_diagnose. */
struct gpu_work {
  double *act_pct;         /* SM activity, or util when SM is NULL */
  unsigned char *active;   /* tick inside the working span */
  unsigned char *dip;      /* tick in a dip */
  unsigned char *periodic; /* tick in a dip that belongs to the period */
  double *peer_sm_max_pct; /* highest SM activity of the other GPUs */
  size_t first, last;      /* working span, first > last when never active */
};

static void prepare_gpu(const struct gw_recording *rec, int gi, struct gpu_work *w, struct gw_gpu_profile *p) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  size_t n = g->n;
  w->act_pct = gw_xcalloc(n + 1, sizeof *w->act_pct);
  w->active = gw_xcalloc(n + 1, 1);
  w->dip = gw_xcalloc(n + 1, 1);
  w->periodic = gw_xcalloc(n + 1, 1);
  w->first = SIZE_MAX;
  w->last = 0;
  int from_util = 0;
  for (size_t i = 0; i < n; i++)
    w->act_pct[i] = gw_tick_activity_pct(g, i, &from_util);
  if (!gw_steady_span(rec, gi, &w->first, &w->last)) /* the loop's first step is warm-up */
    w->first = SIZE_MAX;
  p->has_sm = gw_metric_count(g, GW_M_sm_active_pct, 0, n) > 0;
  p->sm_source = p->has_sm ? g->sm_activity_source : GW_SM_SOURCE_NONE;
  if (w->first == SIZE_MAX)
    return;
  for (size_t i = w->first; i <= w->last; i++)
    w->active[i] = 1;

  /* Dips: activity under half the level the GPU reaches when working
   * (its p90), so a run that spends most time low still shows them. */
  size_t na = w->last - w->first + 1;
  const double *a = w->act_pct + w->first;
  double p90 = gw_stats_quantile(a, na, 0.9);
  size_t ndip = 0;
  for (size_t i = w->first; i <= w->last; i++)
    if (!isnan(w->act_pct[i]) && w->act_pct[i] < gw_thr.dip_frac_of_typical * p90) {
      w->dip[i] = 1;
      ndip++;
    }
  p->dip_share = (double)ndip / (double)na;

  double dt_s = (double)gw_typical_dt_ns(g) / 1e9;
  size_t min_lag = (size_t)ceil(gw_thr.period_min_s / dt_s);
  gw_find_period(a, na, dt_s, min_lag, gw_thr.period_min_strength, &p->period);
}

/* Which of the dips belong to the schedule: with a period, and not in a run
 * whose loader is saturated all the time, nor in one whose steps wait in
 * the rhythm of a parallel loader's rounds, nor where the stack samples in
 * the dips wait for data (then the dips are input stalls). */
static void mark_periodic(const struct gw_recording *rec, int gi, struct gpu_work *w, const struct gw_gpu_profile *p,
                          const struct gw_step_breakdown *steps) {
  if (!p->period.found || w->first == SIZE_MAX || p->dip_share <= 0 || p->dip_share > 0.8 || steps->fetch_rhythm)
    return;
  const struct gw_gpu_series *g = &rec->gpus[gi];
  const struct gw_host_series *h = &rec->host;
  size_t outside = 0, outside_sat = 0;
  for (size_t i = w->first; i <= w->last; i++) {
    if (w->dip[i])
      continue;
    size_t j = gw_host_index_at(h, g->t_ns[i]);
    if (j == SIZE_MAX || isnan(h->workers_saturated[j]))
      continue;
    outside++;
    outside_sat += (size_t)gw_workers_saturated_at(h, j);
  }
  if (outside > 0 && (double)outside_sat / (double)outside >= 0.5)
    return;
  /* With the rank's stack samples: where the training thread waited for
   * data in the dips more often than it evaluated, checkpointed, logged or
   * compiled, the dips are input stalls on a rhythm of the loader's own (its
   * workers restarted every epoch, a shard fetched every so often), not
   * scheduled work. */
  size_t in_input, in_schedule;
  gw_py_classes_in_ticks(rec, gi, w->dip, w->first, w->last, &in_input, &in_schedule);
  if (in_input > in_schedule)
    return;
  for (size_t i = w->first; i <= w->last; i++)
    w->periodic[i] = w->dip[i];
}

static void peer_max(const struct gw_recording *rec, int gi, struct gpu_work *w) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  w->peer_sm_max_pct = gw_xcalloc(g->n + 1, sizeof(double));
  for (size_t i = 0; i < g->n; i++) {
    double best = NAN;
    for (int k = 0; k < rec->ngpus; k++) {
      const struct gw_gpu_series *o = &rec->gpus[k];
      if (k == gi || !o->m[GW_M_sm_active_pct])
        continue;
      size_t j = gw_series_nearest_tick(o, g->t_ns[i]);
      if (j == SIZE_MAX)
        continue;
      double v = gw_column_at(o->m[GW_M_sm_active_pct], j);
      if (!isnan(v) && (isnan(best) || v > best))
        best = v;
    }
    w->peer_sm_max_pct[i] = best;
  }
}

/* Medians and fractions of one GPU over its working span. */
static void profile_gpu(const struct gw_recording *rec, int gi, const struct gpu_work *w, struct gw_gpu_profile *p) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  p->gpu = g->gpu;
  p->sm_clock_max_mhz = g->sm_clock_max_mhz;
  p->power_default_w = g->power_default_limit_mw / 1000;
  p->pcie_gen_min = p->pcie_width_min = NAN;
  p->first_xid_ns = 0;
  for (size_t e = 0; e < rec->nevents; e++) {
    const struct gw_event_row *ev = &rec->events[e];
    int mine = ev->gpu == g->gpu || (ev->gpu < 0 && gi == 0);
    int is_xid = strcmp(ev->kind, "xid") == 0;
    if (!mine || (!is_xid && strcmp(ev->kind, "gpu_lost") != 0))
      continue;
    if (rec->started_ns > 0 && ev->t_ns < rec->started_ns) {
      p->xid_earlier_count++;
      if (ev->t_ns >= p->xid_earlier_last_ns) {
        p->xid_earlier_last_ns = ev->t_ns;
        p->xid_earlier_last_code = is_xid ? (int)ev->code : -1;
      }
      continue;
    }
    if (is_xid && gw_xid_is_program_fault((int)ev->code)) {
      if (p->xid_app_count++ == 0) {
        p->xid_app_first_code = (int)ev->code;
      }
      continue;
    }
    if (p->xid_count++ == 0)
      p->first_xid_ns = ev->t_ns;
  }
  for (size_t j = 0; j < g->nh; j++) {
    double d = val(g->h[GW_M_ecc_dbe_volatile], j), rp = val(g->h[GW_M_remapped_pending], j);
    double rf = val(g->h[GW_M_remapped_failure], j);
    if (!isnan(d) && d > p->ecc_dbe)
      p->ecc_dbe = (int)d;
    if (!isnan(rp) && rp > p->remap_pending)
      p->remap_pending = (int)rp;
    if (!isnan(rf) && rf > p->remap_failure)
      p->remap_failure = (int)rf;
  }
  double nanv = NAN;
  p->util_med_pct = p->sm_med_pct = p->sm_p90_pct = p->sm_per_util = nanv;
  p->math_med_pct = p->math_fill = p->tensor_fill = p->occupancy_med_pct = p->dram_med_pct = p->mem_changes_per_min =
      nanv;
  p->power_med_w = p->power_limit_w = p->power_frac = p->mem_used_frac = p->mem_peak_frac = nanv;
  p->sm_clock_med_mhz = p->pcie_rx_med_bps = p->pcie_tx_med_bps = nanv;
  p->power_cap_frac = p->bad_throttle_frac = p->not_p0_frac = p->pcie_degraded_frac = nanv;
  if (w->first == SIZE_MAX)
    return;
  p->active_start_ns = g->t_ns[w->first];
  p->active_end_ns = g->t_ns[w->last] + gw_tick_dt_ns(g, w->last, gw_typical_dt_ns(g));
  size_t f = w->first, n = w->last - w->first + 1;
  double *util = gw_column_range(g->m[GW_M_util_gpu_pct], f, n);
  double *sm = gw_column_range(g->m[GW_M_sm_active_pct], f, n);
  if (util)
    p->util_med_pct = gw_stats_median(util, n);
  if (sm && p->has_sm) {
    p->sm_med_pct = gw_stats_median(sm, n);
    p->sm_p90_pct = gw_stats_quantile(sm, n, 0.9);
    double us = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
      if (util && !isnan(util[i]) && !isnan(sm[i])) {
        us += util[i];
        ss += sm[i];
      }
    if (us > 0)
      p->sm_per_util = ss / us;
    const enum gw_gpu_metric pipes[] = {GW_M_tensor_active_pct, GW_M_fp32_active_pct, GW_M_fp16_active_pct};
    for (size_t k = 0; k < sizeof pipes / sizeof pipes[0]; k++)
      if (gw_metric_count(g, pipes[k], f, n) > 0) {
        double med = gw_metric_median(g, pipes[k], f, n);
        if (isnan(p->math_med_pct) || med > p->math_med_pct)
          p->math_med_pct = med;
      }
    if (!isnan(p->math_med_pct) && p->sm_med_pct > 0)
      p->math_fill = p->math_med_pct / p->sm_med_pct;
    if (gw_metric_count(g, GW_M_tensor_active_pct, f, n) > 0 && p->sm_med_pct > 0)
      p->tensor_fill = gw_metric_median(g, GW_M_tensor_active_pct, f, n) / p->sm_med_pct;
    if (gw_metric_count(g, GW_M_sm_occupancy_pct, f, n) > 0)
      p->occupancy_med_pct = gw_metric_median(g, GW_M_sm_occupancy_pct, f, n);
    if (gw_metric_count(g, GW_M_dram_bw_pct, f, n) > 0)
      p->dram_med_pct = gw_metric_median(g, GW_M_dram_bw_pct, f, n);
  }
  free(util);
  free(sm);
  if (g->m[GW_M_mem_used_bytes]) {
    /* allocator churn: rises and falls between consecutive known readings */
    double prev = NAN;
    for (size_t i = f; i < f + n; i++) {
      double v = gw_column_at(g->m[GW_M_mem_used_bytes], i);
      if (isnan(v))
        continue;
      if (!isnan(prev) && fabs(v - prev) >= gw_thr.mem_churn_step_bytes) {
        if (v > prev)
          p->mem_rises++;
        else
          p->mem_falls++;
      }
      prev = v;
    }
    double span_min = (double)(p->active_end_ns - p->active_start_ns) / 60e9;
    if (span_min > 0)
      p->mem_changes_per_min = (p->mem_rises + p->mem_falls) / span_min;
  }
  if (g->m[GW_M_power_mw])
    p->power_med_w = gw_metric_median(g, GW_M_power_mw, f, n) / 1000;
  if (g->h[GW_M_power_limit_mw] && g->nh > 0) {
    double *limit = gw_column_range(g->h[GW_M_power_limit_mw], 0, g->nh);
    p->power_limit_w = gw_stats_median(limit, g->nh) / 1000;
    free(limit);
  }
  if (isnan(p->power_limit_w))
    p->power_limit_w = p->power_default_w;
  if (!isnan(p->power_med_w) && p->power_limit_w > 0)
    p->power_frac = p->power_med_w / p->power_limit_w;
  if (g->m[GW_M_mem_used_bytes] && g->mem_total_bytes > 0) {
    p->mem_used_frac = gw_metric_median(g, GW_M_mem_used_bytes, f, n) / g->mem_total_bytes;
    size_t a = f, b = f + n - 1;
    if (!gw_working_span(g, &a, &b)) {
      a = f;
      b = f + n - 1;
    }
    for (size_t i = a; i <= b && i < g->n; i++) {
      double v = gw_column_at(g->m[GW_M_mem_used_bytes], i) / g->mem_total_bytes;
      if (!isnan(v) && (isnan(p->mem_peak_frac) || v > p->mem_peak_frac))
        p->mem_peak_frac = v;
    }
  }
  if (g->m[GW_M_pcie_rx_bps])
    p->pcie_rx_med_bps = gw_metric_median(g, GW_M_pcie_rx_bps, f, n);
  p->pcie_tx_med_bps = g->m[GW_M_pcie_tx_bps] ? gw_metric_median(g, GW_M_pcie_tx_bps, f, n) : NAN;
  p->pcie_rx_is_input = gw_pcie_rx_is_input(rec, g, p->pcie_rx_med_bps, p->pcie_tx_med_bps);
  p->pcie_round_trip = gw_pcie_round_trip(rec, g, p->pcie_rx_med_bps, p->pcie_tx_med_bps);

  /* Loaded ticks: where clocks and P-state matter. */
  double *clk = gw_xcalloc(n, sizeof *clk);
  size_t loaded = 0, cap = 0, bad = 0, notp0 = 0, pstate_known = 0, reasons_known = 0, degraded = 0, link_known = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = f + k;
    double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
    if (isnan(u))
      u = w->act_pct[i];
    clk[k] = NAN;
    if (isnan(u) || u < gw_thr.busy_tick_util_pct)
      continue;
    loaded++;
    clk[k] = gw_column_at(g->m[GW_M_sm_clock_mhz], i);
    double r = gw_column_at(g->m[GW_M_clock_reasons], i);
    if (!isnan(r)) {
      reasons_known++;
      cap += ((uint64_t)r & GW_CLK_SW_POWER_CAP) != 0;
      bad += ((uint64_t)r & GW_CLK_BAD_MASK) != 0;
    }
    double ps = gw_column_at(g->m[GW_M_pstate], i);
    if (!isnan(ps)) {
      pstate_known++;
      notp0 += ps > 0;
      if (ps > p->pstate_max)
        p->pstate_max = (int)ps;
    }
    size_t j = gw_health_index_at(g, g->t_ns[i]);
    if (j != SIZE_MAX) {
      double gen = val(g->h[GW_M_pcie_gen], j), width = val(g->h[GW_M_pcie_width], j);
      if (!isnan(gen) && !isnan(width) && !isnan(g->pcie_gen_max) && !isnan(g->pcie_width_max)) {
        link_known++;
        degraded += gen < g->pcie_gen_max || width < g->pcie_width_max;
        if (isnan(p->pcie_gen_min) || gen < p->pcie_gen_min)
          p->pcie_gen_min = gen;
        if (isnan(p->pcie_width_min) || width < p->pcie_width_min)
          p->pcie_width_min = width;
      }
    }
  }
  p->loaded_ticks = (double)loaded;
  p->sm_clock_med_mhz = loaded ? gw_stats_median(clk, n) : NAN;
  if (isnan(p->sm_clock_med_mhz) && g->m[GW_M_sm_clock_mhz])
    p->sm_clock_med_mhz = gw_metric_median(g, GW_M_sm_clock_mhz, f, n);
  free(clk);
  if (reasons_known) {
    p->power_cap_frac = (double)cap / (double)reasons_known;
    p->bad_throttle_frac = (double)bad / (double)reasons_known;
  }
  if (pstate_known)
    p->not_p0_frac = (double)notp0 / (double)pstate_known;
  if (link_known)
    p->pcie_degraded_frac = (double)degraded / (double)link_known;
}

static void profile_host(const struct gw_recording *rec, const struct gpu_work *w0, int64_t t0, int64_t t1,
                         struct gw_host_profile *hp) {
  const struct gw_host_series *h = &rec->host;
  hp->physical_cores = rec->physical_cores;
  hp->logical_cpus = rec->logical_cpus;
  gw_strlcpy(hp->governor, h->governor, sizeof hp->governor);
  hp->on_battery = -1;
  double nanv = NAN;
  hp->main_cpu_med_pct = hp->main_busy_frac = hp->main_running_med = hp->main_multicore_frac = nanv;
  hp->launch_busy_frac = hp->other_threads_med_pct = hp->main_per_backward_cpu = hp->main_thread_busy_frac = nanv;
  hp->workers_med = hp->worker_cpu_max_med_pct = hp->workers_saturated_frac = hp->workers_seen_med = nanv;
  hp->disk_util_p90_pct = hp->disk_busy_frac = hp->iowait_med_pct = nanv;
  hp->disk_write_dip_bps = hp->disk_write_other_bps = nanv;
  hp->dip_writes_checkpoint = 0;
  hp->corr_sm_worker = hp->corr_sm_disk = hp->corr_sm_main = nanv;
  size_t a = 0, b = 0;
  while (a < h->n && h->t_ns[a] < t0)
    a++;
  b = a;
  while (b < h->n && h->t_ns[b] <= t1)
    b++;
  /* A host row holds rates over the second that ends at it: the first row
   * after t1 still covers the span's end (and is the only one for a span
   * shorter than the host's once-a-second period). */
  if (b < h->n)
    b++;
  size_t n = b - a;
  if (n == 0)
    return;
  for (size_t i = a; i < b; i++)
    if (!isnan(h->on_battery[i]))
      hp->on_battery = h->on_battery[i] > 0 ? 1 : (hp->on_battery == 1 ? 1 : 0);
  hp->has_cpu = gw_stats_count(h->cpu_busy_pct + a, n) > 0;
  hp->has_main = gw_stats_count(h->main_cpu_pct + a, n) > 0;
  hp->has_workers = gw_stats_count(h->workers + a, n) > 0 && gw_stats_count(h->worker_cpu_max_pct + a, n) > 0;
  hp->has_disk = gw_stats_count(h->disk_util_max_pct + a, n) > 0;
  if (hp->has_main) {
    hp->main_cpu_med_pct = gw_stats_median(h->main_cpu_pct + a, n);
    hp->main_busy_frac = gw_stats_frac_at_least(h->main_cpu_pct + a, n, gw_thr.main_saturated_cpu_pct);
    hp->main_multicore_frac = gw_stats_frac_at_least(h->main_cpu_pct + a, n, gw_thr.main_multicore_cpu_pct);
    hp->main_running_med = gw_stats_median(h->main_threads_running + a, n);
    size_t known = 0, busy = 0, nother = 0, thread_known = 0, thread_busy = 0;
    double *other = h->launch_cpu_pct ? gw_xcalloc(n, sizeof *other) : NULL; /* the process less its launchers */
    for (size_t i = a; i < b; i++)
      if (!isnan(h->main_cpu_pct[i])) {
        known++;
        busy += (size_t)gw_launching_saturated_at(h, i);
        if (other && !isnan(h->launch_cpu_pct[i]))
          other[nother++] = fmax(0, h->main_cpu_pct[i] - h->launch_cpu_pct[i]);
        double main_thread = h->main_thread_cpu_pct ? h->main_thread_cpu_pct[i] : NAN;
        if (!isnan(main_thread)) {
          thread_known++;
          thread_busy += main_thread >= gw_thr.main_saturated_cpu_pct;
        }
      }
    hp->launch_busy_frac = known ? (double)busy / (double)known : nanv;
    if (thread_known)
      hp->main_thread_busy_frac = (double)thread_busy / (double)thread_known;
    hp->main_per_backward_cpu = gw_main_per_backward_cpu(h, a, b);
    hp->other_threads_med_pct = nother ? gw_stats_median(other, nother) : nanv;
    free(other);
  }
  if (gw_stats_count(h->workers + a, n) > 0)
    hp->workers_seen_med = gw_stats_median(h->workers + a, n);
  if (hp->has_workers) {
    hp->workers_med = gw_stats_median(h->workers + a, n);
    hp->worker_cpu_max_med_pct = gw_stats_median(h->worker_cpu_max_pct + a, n);
    size_t known = 0, sat = 0;
    for (size_t i = a; i < b; i++)
      if (!isnan(h->workers[i])) {
        known++;
        sat += (size_t)gw_workers_saturated_at(h, i);
      }
    hp->workers_saturated_frac = known ? (double)sat / (double)known : NAN;
  }
  if (hp->has_disk) {
    hp->disk_util_p90_pct = gw_stats_quantile(h->disk_util_max_pct + a, n, 0.9);
    hp->disk_busy_frac = gw_stats_frac_at_least(h->disk_util_max_pct + a, n, gw_thr.disk_busy_util_pct);
  }
  hp->iowait_med_pct = gw_stats_median(h->iowait_pct + a, n);

  /* GPU 0's ticks against the host state at each tick. */
  if (!w0 || rec->ngpus == 0)
    return;
  const struct gw_gpu_series *g = &rec->gpus[0];
  double *x = gw_xcalloc(g->n + 1, sizeof *x), *wk = gw_xcalloc(g->n + 1, sizeof *wk);
  double *dk = gw_xcalloc(g->n + 1, sizeof *dk), *mn = gw_xcalloc(g->n + 1, sizeof *mn);
  double *wr = gw_xcalloc(g->n + 1, sizeof *wr), *wr_stall = gw_xcalloc(g->n + 1, sizeof *wr_stall);
  unsigned char *mask = gw_xcalloc(g->n + 1, 1);
  size_t k = 0;
  /* A checkpoint saves the training state while it sits in GPU memory at
   * its training level; a program that writes its data set or fetches
   * weights before training has not allocated that state yet. Stall writes
   * count only at ticks with memory in use near the run's peak. */
  double mem_peak = NAN;
  const struct gw_value_column *memc = g->m[GW_M_mem_used_bytes];
  for (size_t i = 0; memc && i < g->n; i++) {
    double v = gw_column_at(memc, i);
    if (!isnan(v) && (isnan(mem_peak) || v > mem_peak))
      mem_peak = v;
  }
  for (size_t i = 0; i < g->n; i++) {
    if (!w0->active[i])
      continue;
    size_t j = gw_host_index_at(h, g->t_ns[i]);
    if (j == SIZE_MAX)
      continue;
    x[k] = w0->act_pct[i];
    wk[k] = h->worker_cpu_max_pct[j];
    dk[k] = h->disk_util_max_pct[j];
    mn[k] = h->main_cpu_pct[j];
    wr[k] = h->disk_write_bps[j];
    mask[k] = w0->dip[i];
    double mem = memc ? gw_column_at(memc, i) : NAN;
    int state_allocated = isnan(mem) || isnan(mem_peak) || mem >= gw_thr.checkpoint_mem_frac * mem_peak;
    wr_stall[k] = state_allocated ? wr[k] : NAN;
    k++;
  }
  hp->corr_sm_worker = gw_pearson(x, wk, k, NULL);
  hp->corr_sm_disk = gw_pearson(x, dk, k, NULL);
  hp->corr_sm_main = gw_pearson(x, mn, k, NULL);
  hp->disk_write_dip_bps = gw_mean_where(wr, mask, k, 1);
  hp->disk_write_other_bps = gw_mean_where(wr, mask, k, 0);
  double stall_write_bps = gw_mean_where(wr_stall, mask, k, 1);
  hp->dip_writes_checkpoint =
      stall_write_bps >= gw_thr.checkpoint_write_bps && stall_write_bps > 2 * hp->disk_write_other_bps;
  free(x);
  free(wk);
  free(dk);
  free(mn);
  free(wr);
  free(wr_stall);
  free(mask);
}

static void profile_steps(const struct gw_recording *rec, const struct gpu_work *w0, struct gw_step_profile *sp) {
  sp->median_s = sp->p90_over_p50 = sp->cv = sp->excess_share = NAN;
  size_t cap = rec->nsteps > 0 ? rec->nsteps : (rec->ngpus ? rec->gpus[0].n : 0);
  double *d = gw_xcalloc(cap + 1, sizeof *d);
  size_t n = 0;
  double total = 0; /* the steps' whole time, waits included */
  if (rec->nsteps > 0) {
    sp->from_table = 1;
    /* one process's loop (the lowest rank), its warm-up step left out */
    int64_t pid = gw_step_process_pick(rec);
    size_t warmup = gw_step_warmup_index(rec, pid);
    for (size_t i = 0; i < rec->nsteps; i++) {
      const struct gw_step_row *s = &rec->steps[i];
      if (s->end_ns <= s->start_ns || s->pid != pid || i == warmup)
        continue;
      double dur_s = (double)(s->end_ns - s->start_ns) / 1e9;
      total += dur_s;
      /* The time the loop waited for its batch is the input's: the spread
       * of what is left is the step's own (shapes, occasional work). */
      if (s->data_wait_ns > 0)
        dur_s = fmax(0, dur_s - (double)s->data_wait_ns / 1e9);
      d[n++] = dur_s;
    }
  } else if (w0 && w0->first != SIZE_MAX) {
    const struct gw_gpu_series *g = &rec->gpus[0];
    /* a swing of 10 points separates a rhythm from sampling noise */
    n = gw_steps_from_activity(g->t_ns + w0->first, w0->act_pct + w0->first, w0->last - w0->first + 1, 10.0, d, cap);
  }
  sp->n = (int)n;
  sp->nprocs = (int)gw_step_processes(rec, sp->procs, GW_MAX_STEP_PROCS);
  if (n >= 2) {
    sp->median_s = gw_stats_median(d, n);
    sp->p90_over_p50 = gw_stats_p90_over_p50(d, n);
    sp->cv = gw_stats_cv(d, n);
    double excess = 0, own = 0;
    for (size_t i = 0; i < n; i++) {
      own += d[i];
      if (d[i] > sp->median_s)
        excess += d[i] - sp->median_s;
    }
    if (!sp->from_table)
      total = own;
    sp->excess_share = total > 0 ? excess / total : NAN;
  }
  free(d);
}

static void add_ledger(struct gw_ledger *sum, const struct gw_ledger *l) {
  sum->wall_ns += l->wall_ns;
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    sum->row_ns[r] += l->row_ns[r];
    sum->measured[r] |= l->measured[r];
  }
  sum->throttled_power_cap_ns += l->throttled_power_cap_ns;
  sum->tiny_kernel_ns += l->tiny_kernel_ns;
  sum->host_busy_ns += l->host_busy_ns;
  sum->host_busy_lead_ns += l->host_busy_lead_ns;
  sum->data_wait_input_ns += l->data_wait_input_ns;
  sum->launch_gap_ns += l->launch_gap_ns;
  sum->host_issue_ns += l->host_issue_ns;
  sum->launch_calls_missing |= l->launch_calls_missing;
  sum->sync_gaps += l->sync_gaps;
  sum->ticks_active += l->ticks_active;
  sum->sm_from_util |= l->sm_from_util;
  sum->from_timeline |= l->from_timeline;
  if (l->active_end_ns) {
    if (!sum->active_start_ns || l->active_start_ns < sum->active_start_ns)
      sum->active_start_ns = l->active_start_ns;
    if (l->active_end_ns > sum->active_end_ns)
      sum->active_end_ns = l->active_end_ns;
  }
}

static void run_rules(const struct gw_recording *rec, struct gw_diagnosis *dx) {
  struct gw_rule_input in = {rec, dx};
  for (int r = 0; r < gw_nrules && dx->nfindings < GW_MAX_FINDINGS; r++) {
    struct gw_finding f;
    memset(&f, 0, sizeof f);
    f.class_id = gw_rules[r]->id;
    if (!gw_rules[r]->evaluate(&in, &f))
      continue;
    if (f.confidence < gw_thr.finding_min_conf)
      continue;
    if (f.confidence > 1)
      f.confidence = 1;
    f.confidence_raw = f.confidence;
    f.confidence = gw_confidence_calibrated(f.confidence_raw);
    f.share_of_lost = dx->lost_ns > 0 ? fmin(1, f.share_of_active * dx->active_ns / dx->lost_ns) : 0;
    /* Amdahl: removing this class's time leaves (1 - share) of the active
     * time; capped where the share rounds to the whole run */
    f.speedup_max = 1 / (1 - fmin(f.share_of_active, 0.99));
    dx->findings[dx->nfindings++] = f;
  }
  qsort(dx->findings, (size_t)dx->nfindings, sizeof dx->findings[0], gw_finding_cmp);
  gw_diagnosis_cap_shares(dx);
  /* The time the loop spent waiting in the DataLoader, measured inside the
   * program by the Python hook: the most direct evidence of an input-bound step. */
  const struct gw_step_process *p = dx->steps.nprocs > 0 ? &dx->steps.procs[0] : NULL;
  for (int i = 0; p && !isnan(p->data_wait_share) && i < dx->nfindings; i++)
    if (strcmp(dx->findings[i].class_id, "input_pipeline") == 0) {
      gw_evidence(&dx->findings[i], "data_wait_share", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, p->data_wait_share),
                  GW_NUM("steps", GW_UNIT_COUNT, (double)p->nsteps));
      /* what the waits cost the GPU: its idle time inside them (the ledger's input row holds it) */
      if (dx->total.data_wait_input_ns > 0)
        gw_evidence(&dx->findings[i], "data_wait_gpu_idle", -1, 0, 0,
                    GW_NUM("share", GW_UNIT_FRACTION, gw_rule_share(dx, dx->total.data_wait_input_ns)));
    }
}

/* The GPU idles because no work was asked of it: a process that trains
 * nothing and iterates no DataLoader (gpuwhy's Python hook, enabled, saw
 * neither an optimizer step nor a batch), runs no loader workers, keeps its
 * main process below one core most of the time (not busy preparing anything)
 * and neither reads the disk nor copies batches over PCIe. What it waits for
 * comes from outside (requests to an inference server, a sleep between
 * bursts): the GPU is demand-limited, not stalled by the program. */
static int demand_limited(const struct gw_recording *rec, const struct gw_diagnosis *dx) {
  const struct gw_host_profile *h = &dx->host;
  if (!rec->python_hook_enabled || rec->nsteps > 0 || rec->ngpus != 1 || rec->world_size > 1)
    return 0;
  if (!h->has_main || isnan(h->main_busy_frac) || h->main_busy_frac >= 0.5)
    return 0;
  if (h->has_workers && !isnan(h->workers_med) && h->workers_med >= 1)
    return 0;
  if (h->has_disk && !isnan(h->disk_busy_frac) && h->disk_busy_frac > 0)
    return 0;
  return !dx->profiles[0].pcie_rx_is_input;
}

/* 0 when every GPU of rec is a model without GPM (pre-Hopper) or said to
 * lack it with no model known; 1 or -1 otherwise: then a report says what the
 * recording lacks, never that the GPU has no GPM. */
static int recording_gpm_model(const struct gw_recording *rec) {
  int lacking = rec->ngpus > 0;
  for (int i = 0; i < rec->ngpus; i++) {
    int model = gw_gpu_model_has_gpm(rec->gpus[i].name);
    if (model == 1)
      return 1;
    lacking &= model == 0 || (model == -1 && rec->gpus[i].gpm_supported == 0);
  }
  return lacking ? 0 : -1;
}

/* The experiments' commands with the recorded command in place of CMD. */
static void fill_in_command(const struct gw_recording *rec, struct gw_diagnosis *dx) {
  for (int i = 0; i < dx->nexperiments; i++) {
    gw_next_run_command(rec, dx->experiments[i].what, dx->experiment_commands[i], sizeof dx->experiment_commands[i]);
    dx->experiments[i].what = dx->experiment_commands[i];
  }
}

/* A finding the cap cut by a point or more of the active time: the report
 * says what its own signals saw and that the findings above hold the rest,
 * so that a finding shown at 0% beside evidence of a few percent reads as
 * counted once, not as a contradiction. */
#define OVERLAP_NOTE_MIN_SHARE 0.01
static void note_overlapped_findings(struct gw_diagnosis *dx) {
  for (int i = 0; i < dx->nfindings; i++) {
    const struct gw_finding *f = &dx->findings[i];
    if (f->share_of_active_own - f->share_of_active < OVERLAP_NOTE_MIN_SHARE)
      continue;
    gw_diagnosis_note(dx, "finding_overlapped", -1, GW_TEXT_VALUE("class", f->class_id),
                      GW_NUM("own_share", GW_UNIT_FRACTION, f->share_of_active_own),
                      GW_NUM("overlap_share", GW_UNIT_FRACTION, f->share_of_active_own - f->share_of_active),
                      GW_NUM("shown_share", GW_UNIT_FRACTION, f->share_of_active));
  }
}

/* Whether a finding reports a fault or the GPU's environment (an Xid, a
 * throttled clock, another process on the GPU): a fact to act on whatever
 * share of the loss the cap leaves it, and not one of the job's own
 * signals read twice. */
static int reports_environment(const struct gw_finding *f) {
  return f->fix_first || strcmp(f->class_id, "hardware_env") == 0;
}

/* A finding of the job's own classes that the findings of the job's classes
 * ranked above it leave under the share any rule needs to name a class
 * (thresholds.c finding_min_share): the time its own signals saw is time
 * they already explain with their own evidence (one busy core read as both
 * input and re-planning, a stack sample in the model's code read as both
 * launching and a new shape), so it names no further loss and goes, with
 * a note of what it saw (note_overlapped_findings words the ones that
 * stay). The environment's share is left out of what the ones above take: another
 * process on the GPU does not make the job's own signals count twice. */
static void drop_overlapped_findings(struct gw_diagnosis *dx) {
  double left = 1;
  for (int i = 0; i < dx->nfindings;) {
    const struct gw_finding *f = &dx->findings[i];
    if (reports_environment(f)) {
      i++;
      continue;
    }
    double own_lost =
        dx->lost_ns > 0 ? fmax(f->share_of_active_own, f->share_of_active) * dx->active_ns / dx->lost_ns : 0;
    double kept_lost = fmin(fmin(own_lost, 1), left);
    double kept_active = dx->active_ns > 0 ? kept_lost * dx->lost_ns / dx->active_ns : 0;
    if (i > 0 && f->share_of_active_own > f->share_of_active && kept_active < gw_thr.finding_min_share) {
      gw_diagnosis_note(dx, "finding_overlapped_unlisted", -1, GW_TEXT_VALUE("class", f->class_id),
                        GW_NUM("own_share", GW_UNIT_FRACTION, f->share_of_active_own),
                        GW_NUM("left_share", GW_UNIT_FRACTION, kept_active),
                        GW_NUM("min_share", GW_UNIT_FRACTION, gw_thr.finding_min_share));
      gw_finding_remove(dx, &dx->findings[i]);
      continue;
    }
    left -= kept_lost;
    i++;
  }
}

/* Launch overhead found where many steps met a new input shape, or where the
 * steps last longer than launches can fill: the evidence says so, since the
 * time charged to launching may be other host work in the same Python frame
 * (gw_confidence_by_share lowers the confidence for both). New shapes from a
 * tenth of the steps: below it the factor moves the confidence by less than
 * the calibration table's band width. */
#define NEW_SHAPE_EVIDENCE_MIN_STEP_SHARE 0.1
static void note_launch_doubts(struct gw_diagnosis *dx) {
  struct gw_finding *f = gw_finding_of_class(dx, "launch_overhead");
  const struct gw_compile_shapes *cs = &dx->compile_shapes;
  if (!f)
    return;
  if (1 - gw_repeated_shape_share(cs) >= NEW_SHAPE_EVIDENCE_MIN_STEP_SHARE)
    gw_evidence(f, "launch_steps_new_shapes", -1, 0, 0, GW_NUM("first_visits", GW_UNIT_COUNT, cs->first_visits),
                GW_NUM("steps", GW_UNIT_COUNT, (double)cs->nsteps), GW_NUM("shapes", GW_UNIT_COUNT, cs->nshapes));
  double step_s = gw_launch_step_s(dx);
  if (step_s > GW_LAUNCH_PACED_STEP_MAX_S)
    gw_evidence(f, "launch_step_too_long", -1, 0, 0, GW_NUM("steps", GW_UNIT_COUNT, (double)cs->nsteps),
                GW_NUM("step", GW_UNIT_S, step_s));
}

static void describe(const struct gw_recording *rec, struct gw_diagnosis *dx) {
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *p = &dx->profiles[i];
    const struct gw_ledger *l = &dx->ledgers[i];
    /* an import has kernels and no samples: its ledger's span is the kernels' */
    if (!p->active_end_ns && !l->active_end_ns) {
      gw_diagnosis_add_note(dx, "gpu_never_active", p->gpu, 0, NULL);
      continue;
    }
    if (p->xid_earlier_count > 0)
      gw_diagnosis_note(dx, "xid_before_recording", p->gpu, GW_NUM("xid_errors", GW_UNIT_COUNT, p->xid_earlier_count),
                        GW_NUM("last_xid", GW_UNIT_COUNT, p->xid_earlier_last_code),
                        GW_NUM("before_start", GW_UNIT_S, (double)(rec->started_ns - p->xid_earlier_last_ns) / 1e9));
    if (p->xid_app_count > 0)
      gw_diagnosis_note(dx, "xid_program_faults", p->gpu, GW_NUM("xid_faults", GW_UNIT_COUNT, p->xid_app_count),
                        GW_NUM("first_xid", GW_UNIT_COUNT, p->xid_app_first_code));
    if (p->sm_source == GW_SM_SOURCE_LAUNCH_CONFIG)
      gw_diagnosis_add_note(dx, "sm_from_launch_config", p->gpu, 0, NULL);
    if (p->sm_source == GW_SM_SOURCE_PM_SAMPLING)
      gw_diagnosis_add_note(dx, "sm_from_pm_sampling", p->gpu, 0, NULL);
    if (p->sm_source == GW_SM_SOURCE_DCGM)
      gw_diagnosis_add_note(dx, "sm_from_dcgm", p->gpu, 0, NULL);
    if (!p->has_sm && gw_gpu_model_has_gpm(rec->gpus[i].name) == 1)
      /* the model has GPM: what is missing is the recording's, not the GPU's */
      gw_diagnosis_note(dx, "sm_missing_from_recording", p->gpu, GW_TEXT_VALUE("gpu_name", rec->gpus[i].name));
    else if (!p->has_sm)
      gw_diagnosis_add_note(dx, "sm_missing_no_gpm", p->gpu, 0, NULL);
    if (!isnan(p->util_med_pct) && !isnan(p->sm_med_pct)) {
      /* one whole sentence per case (its own id), so a translation can reorder it */
      int above = p->sm_med_pct > p->util_med_pct + gw_thr.sm_above_util_pct;
      int tiny = p->sm_per_util < gw_thr.launch_sm_per_util, underfilled = p->sm_per_util < gw_thr.small_sm_per_util;
      /* agreement on the medians the sentence shows, not only on the sums */
      int agree =
          p->sm_per_util >= gw_thr.small_sm_per_util && p->sm_med_pct >= gw_thr.small_sm_per_util * p->util_med_pct;
      if (above || tiny || underfilled || agree)
        interp(dx,
               above         ? "util_below_sm"
               : tiny        ? "util_wildly_overstates"
               : underfilled ? "util_overstates"
                             : "util_sm_agree",
               p->gpu, GW_NUM("util_median", GW_UNIT_PCT, p->util_med_pct),
               GW_NUM("sm_active_median", GW_UNIT_PCT, p->sm_med_pct));
    } else if (!isnan(p->util_med_pct)) {
      interp(dx, "util_only", p->gpu, GW_NUM("util_median", GW_UNIT_PCT, p->util_med_pct));
    }
    if (!isnan(p->power_frac)) {
      interp(dx,
             p->power_frac < gw_thr.low_power_frac         ? "power_not_working"
             : p->power_frac >= gw_thr.at_limit_power_frac ? "power_at_limit"
                                                           : "power_moderate_load",
             p->gpu, GW_NUM("power_median", GW_UNIT_W, p->power_med_w),
             GW_NUM("power_limit", GW_UNIT_W, p->power_limit_w),
             GW_NUM("power_share", GW_UNIT_FRACTION, p->power_frac));
    }
    if (p->loaded_ticks >= 1 && !isnan(p->not_p0_frac))
      add_interp(dx, p->not_p0_frac < gw_thr.hw_bad_tick_frac ? "pstate_p0" : "pstate_above_p0", p->gpu, 0, NULL);
    if (!isnan(p->power_cap_frac) && p->power_cap_frac >= 0.2 && !isnan(p->sm_clock_med_mhz))
      interp(dx, "power_cap_not_fault", p->gpu, GW_NUM("power_cap_share", GW_UNIT_FRACTION, p->power_cap_frac),
             GW_NUM("sm_clock_median", GW_UNIT_MHZ, p->sm_clock_med_mhz),
             GW_NUM("sm_clock_max", GW_UNIT_MHZ, p->sm_clock_max_mhz));
    if (!isnan(p->pcie_rx_med_bps))
      interp(dx, p->pcie_rx_med_bps >= gw_thr.pcie_rx_high_bps ? "pcie_rx_frequent" : "pcie_rx_low", p->gpu,
             GW_NUM("rx_median", GW_UNIT_GB_PER_S, p->pcie_rx_med_bps / 1e9));
    /* the peak decides whether a larger batch fits: a median far below it
     * (memory freed between phases) would promise room that is not there */
    if (!isnan(p->mem_peak_frac))
      interp(dx,
             p->mem_peak_frac > gw_thr.mem_headroom_low_frac  ? "memory_peak_tight"
             : p->mem_peak_frac < gw_thr.mem_mostly_free_frac ? "memory_peak_room"
                                                              : "memory_peak_healthy",
             p->gpu, GW_NUM("peak_share", GW_UNIT_FRACTION, p->mem_peak_frac));
    if (l->row_ns[GW_ROW_STARTUP] > 0 && l->active_end_ns) {
      double head = (double)(l->active_start_ns - (rec->gpus[i].n ? rec->gpus[i].t_ns[0] : l->active_start_ns)) / 1e9;
      double tail = l->row_ns[GW_ROW_STARTUP] / 1e9 - head;
      gw_diagnosis_note(dx, "startup_and_tail", p->gpu, GW_NUM("head", GW_UNIT_S, head),
                        GW_NUM("tail", GW_UNIT_S, tail < 0 ? 0 : tail));
    }
  }
  for (int i = 0; i < rec->ngpus; i++) {
    const struct gw_gpu_series *g = &rec->gpus[i];
    if (!g->other_pid)
      continue;
    /* the driver's process list names it; its name and cost are what the user
     * needs to find and move it (a shared GPU runs every kernel slower) */
    struct gw_evidence_arg memory = GW_CLAUSE("memory_clause", ""), sm = GW_CLAUSE("sm_clause", "");
    if (!isnan(g->other_mem_bytes))
      memory.text = "shared_process_memory";
    if (!isnan(g->other_sm_pct))
      sm.text = "shared_process_sm";
    struct gw_evidence_arg pid = GW_NUM("pid", GW_UNIT_COUNT, (double)g->other_pid),
                           share = GW_NUM("sample_share", GW_UNIT_FRACTION, g->other_share_of_samples),
                           gib = GW_NUM("memory", GW_UNIT_GIB, g->other_mem_bytes / (1024.0 * 1024 * 1024)),
                           sm_share = GW_NUM("sm_share", GW_UNIT_PCT, g->other_sm_pct);
    if (g->other_comm[0])
      gw_diagnosis_note(dx, "shared_with_process", g->gpu, pid, GW_TEXT_VALUE("name", g->other_comm), share, memory, sm,
                        gib, sm_share);
    else
      gw_diagnosis_note(dx, "shared_with_process_unnamed", g->gpu, pid, share, memory, sm, gib, sm_share);
  }
  if (rec->world_size > rec->ngpus && rec->ngpus > 0)
    gw_diagnosis_note(dx, "ranks_elsewhere", -1, GW_NUM("world_size", GW_UNIT_COUNT, rec->world_size),
                      GW_NUM("gpus", GW_UNIT_COUNT, rec->ngpus));
  if (dx->estimated && rec->timeline_sampled)
    /* recorded with --trace (sampled, its default): a timeline exists, only in windows */
    gw_diagnosis_add_note(dx, "ledger_estimated_trace_windows", -1, 0, NULL);
  else if (dx->estimated)
    gw_diagnosis_add_note(dx, "ledger_estimated", -1, 0, NULL);
  if (dx->total.from_timeline && dx->total.launch_calls_missing)
    gw_diagnosis_add_note(dx, "trace_without_launch_calls", -1, 0, NULL);
  if (rec->timeline_sampled && !dx->estimated)
    gw_diagnosis_add_note(dx, "trace_windows_counters_used", -1, 0, NULL);
  if (rec->tracer_aside_count > 0)
    gw_diagnosis_note(dx, "tracer_stood_aside", -1, GW_NUM("times", GW_UNIT_COUNT, rec->tracer_aside_count),
                      GW_NUM("first", GW_UNIT_S,
                             rec->started_ns > 0 ? (double)(rec->tracer_aside_first_ns - rec->started_ns) / 1e9 : 0.0),
                      GW_NUM("total", GW_UNIT_S, (double)rec->tracer_aside_total_ns / 1e9));
  if (dx->demand_limited)
    gw_diagnosis_note(dx, "demand_limited", -1,
                      GW_NUM("lost_share", GW_UNIT_PCT, dx->active_ns > 0 ? 100 * dx->lost_ns / dx->active_ns : 0.0),
                      GW_NUM("cpu_median", GW_UNIT_PCT, dx->host.main_cpu_med_pct));
  /* an unexplained run whose steps mostly met new shapes: what one more run would decide */
  const struct gw_compile_shapes *cs = &dx->compile_shapes;
  if (strcmp(dx->verdict, "unexplained") == 0 && gw_steps_mostly_new_shapes(cs))
    gw_diagnosis_note(dx, "new_shapes_undecided", -1, GW_NUM("first_visits", GW_UNIT_COUNT, cs->first_visits),
                      GW_NUM("steps", GW_UNIT_COUNT, (double)cs->nsteps), GW_NUM("shapes", GW_UNIT_COUNT, cs->nshapes));
  if (rec->ngpus > 0 && rec->host.n == 0)
    gw_diagnosis_add_note(dx, "no_host_samples", -1, 0, NULL);
  else if (rec->host.n > 0 && !dx->host.has_main)
    gw_diagnosis_add_note(dx, "target_not_sampled", -1, 0, NULL);
  if (rec->gpu_note[0])
    gw_diagnosis_note(dx, "no_gpu_data", -1, GW_TEXT_VALUE("reason", rec->gpu_note));

  int has_input = 0, has_small = 0, has_launch = 0;
  for (int i = 0; i < dx->nfindings; i++) {
    const char *id = dx->findings[i].class_id;
    has_input |= strcmp(id, "input_pipeline") == 0 && dx->findings[i].confidence_raw < 0.7;
    has_small |= strcmp(id, "small_batch") == 0;
    has_launch |= strcmp(id, "launch_overhead") == 0;
  }
  int unexplained = strcmp(dx->verdict, "unexplained") == 0;
  /* a recording traced in sampled windows (--trace's default) asks for the whole timeline */
  const char *trace_run = rec->timeline_sampled ? "gpuwhy record --trace=full -o traced.db -- CMD"
                                                : "gpuwhy record --trace -o traced.db -- CMD";
  /* fixed-batch replays DataLoader batches, so it needs one: a program the
   * enabled hook saw iterate none would only be refused (exit 2) */
  if ((has_input || unexplained || gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_OTHER]) >= 0.2) &&
      !dx->host.no_dataloader)
    experiment(dx, "gpuwhy experiment fixed-batch -- CMD", "experiment_fixed_batch");
  /* SM-blind and unexplained: underfilled kernels are among the suspects */
  if (has_small || gw_rule_share(dx, dx->total.row_ns[GW_ROW_UNDERFILLED]) >= 0.15 ||
      (unexplained && dx->total.sm_from_util && !dx->total.from_timeline && rec->ngpus == 1))
    experiment(dx, "gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}", "experiment_batch_sweep");
  /* no SM activity at all: the launch configurations of traced kernels give
   * it on any GPU (sm_fill.c); without it small batches look like real work */
  if (dx->sm_blind && !unexplained && strcmp(dx->verdict, "no_data") != 0) {
    /* measured SM activity first: PM sampling reads the SMs' own cycle
     * counters from inside the program (Turing and newer, CUPTI 12.6+) at a
     * cost the H200 could not tell from nothing; the trace's estimate is the
     * fallback where profiling is refused */
    int has_gpm = recording_gpm_model(rec);
    experiment(dx, "gpuwhy record --pm-sampling -o pm.db -- CMD",
               has_gpm == 0 ? "experiment_pm_sampling_no_gpm" : "experiment_pm_sampling_no_readings");
    experiment(dx, trace_run, "experiment_launch_config");
  }
  /* an input finding read from steps and CPU alone (no thread or stack
   * samples in the recording: an older recorder, or both turned off): the
   * samples name what the loop waited in */
  if (has_input && !dx->measured && rec->thread_sampling_hz <= 0 && rec->py_sampling_hz <= 0 && rec->nsteps > 0)
    experiment(dx, "gpuwhy record -o sampled.db -- CMD", "experiment_sample_threads");
  if (unexplained) {
    /* what would decide: the kernel timeline splits idle time into launch,
     * sync and communication; the fixed-batch test settles the input side */
    if (!dx->total.from_timeline)
      experiment(dx, trace_run, "experiment_trace_splits_idle");
  }
  /* changing shapes hide launch overhead from the counters (launch_overhead
   * stands aside): the trace tells launch gaps from re-planning */
  int launch_hidden = gw_rule_mem_churn(dx) && dx->host.has_main && dx->host.launch_busy_frac >= 0.3;
  if ((has_launch || launch_hidden) && !dx->total.from_timeline)
    experiment(dx, trace_run, "experiment_trace_launch");
}

/* The fixes the Python hook can apply whose cause was found
 * (analysis/fix_catalog.h), as ready commands: experiment try on this
 * recording, and the first fix alone on the recorded command. The hook
 * applies them, so the program must have run with it. */
static void try_experiments(const struct gw_recording *rec, struct gw_diagnosis *dx) {
  if (!rec->python_hook_enabled || dx->host.no_dataloader || !rec->command[0])
    return;
  struct gw_fix_plan plans[4];
  int n = gw_fix_applicable(dx, plans, 4);
  if (n == 0)
    return;
  snprintf(dx->experiment_text[0], sizeof dx->experiment_text[0], "gpuwhy experiment try --from %s", dx->path);
  experiment(dx, dx->experiment_text[0], "experiment_try_fixes");
  /* the cheapest fix alone, on the command as recorded */
  int w = snprintf(dx->experiment_text[1], sizeof dx->experiment_text[1], "gpuwhy experiment try --fix %s -- %s",
                   plans[0].text, rec->command);
  if (w > 0 && (size_t)w < sizeof dx->experiment_text[1])
    experiment(dx, dx->experiment_text[1], "experiment_try_first_fix");
}

/* MFU per GPU and the ledger as goodput (analysis/mfu.h, analysis/goodput.h). */
static void build_mfu_goodput(const struct gw_recording *rec, struct gw_diagnosis *dx) {
  int n = rec->ngpus;
  dx->mfu = gw_xcalloc((size_t)n + 1, sizeof *dx->mfu);
  dx->goodput = gw_xcalloc((size_t)n + 1, sizeof *dx->goodput);
  double *clk = gw_xcalloc((size_t)n + 1, sizeof *clk);
  for (int i = 0; i < n; i++)
    clk[i] = dx->profiles[i].sm_clock_med_mhz;
  gw_mfu_build(rec, clk, dx->mfu);
  free(clk);
  /* pauses that write to disk at twice the rate of the rest of the run are checkpoints; others evaluation */
  int checkpoint_writes = dx->host.disk_write_dip_bps > 2 * dx->host.disk_write_other_bps;
  /* the step table's compile time is every process's: each GPU gets its share */
  double compile_s = n > 0 ? gw_goodput_compile_s(rec) / n : 0;
  memset(&dx->goodput_job, 0, sizeof dx->goodput_job);
  for (int i = 0; i < n; i++) {
    gw_goodput_from_ledger(&dx->ledgers[i], compile_s, checkpoint_writes, &dx->goodput[i]);
    gw_goodput_add(&dx->goodput_job, &dx->goodput[i]);
  }
}

/* Notes for the classes this recording cannot show: each rule without a
 * finding that finds none of the signals it reads (class_not_measurable),
 * and for a class told by a recurring pattern, the longest period that
 * recurs often enough inside the steady run (pattern_visible_max). */
static void note_unseen_classes(const struct gw_recording *rec, struct gw_diagnosis *dx) {
  dx->pattern_visible_max_s = NAN;
  if (dx->active_ns <= 0)
    return; /* no data: nothing was measured at all */
  unsigned held = gw_recording_signals(rec);
  /* the steady run's longest span over the GPUs */
  double span_s = 0;
  for (int i = 0; i < dx->ngpus; i++)
    span_s = fmax(span_s, (double)(dx->ledgers[i].active_end_ns - dx->ledgers[i].active_start_ns) / 1e9);
  for (int r = 0; r < gw_nrules; r++) {
    const struct gw_rule *rule = gw_rules[r];
    if (gw_finding_of_class(dx, rule->id))
      continue;
    if (rule->sees_with && !(rule->sees_with & held)) {
      dx->not_measurable[r] = 1;
      gw_diagnosis_note(dx, "class_not_measurable", -1, GW_TEXT_VALUE("class", rule->id),
                        GW_PHRASE("needs", rule->sees_with_phrase));
    } else if (rule->pattern_repeats > 0 && span_s > 0) {
      dx->pattern_visible_max_s = span_s / rule->pattern_repeats;
      gw_diagnosis_note(dx, "pattern_visible_max", -1, GW_TEXT_VALUE("class", rule->id),
                        GW_NUM("period_max", GW_UNIT_S, dx->pattern_visible_max_s), GW_NUM("span", GW_UNIT_S, span_s));
    }
  }
}

gw_status gw_diagnose(const struct gw_recording *rec, struct gw_diagnosis **out, struct gw_err *err) {
  (void)err;
  struct gw_diagnosis *dx = gw_xcalloc(1, sizeof *dx);
  gw_strlcpy(dx->path, rec->path, sizeof dx->path);
  dx->started_ns = rec->started_ns;
  dx->ended_ns = rec->ended_ns;
  dx->ngpus = rec->ngpus;
  dx->ledgers = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *dx->ledgers);
  dx->profiles = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *dx->profiles);
  dx->kstats = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *dx->kstats);
  for (int i = 0; i < rec->ngpus; i++)
    if (rec->gpus[i].kstats) /* a model the analysis did not load (tests build some) has none */
      dx->kstats[i] = *rec->gpus[i].kstats;
  struct gpu_work *w = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *w);
  int64_t span0 = 0, span1 = 0;
  gw_step_breakdown(rec, &dx->step_breakdown);
  gw_compile_shapes(rec, &dx->compile_shapes);
  for (int i = 0; i < rec->ngpus; i++) {
    prepare_gpu(rec, i, &w[i], &dx->profiles[i]);
    profile_gpu(rec, i, &w[i], &dx->profiles[i]);
    mark_periodic(rec, i, &w[i], &dx->profiles[i], &dx->step_breakdown);
    if (i > 0) { /* only GPU 0's activity is read after this (profile_host, profile_steps): a tick's bytes */
      free(w[i].act_pct);
      free(w[i].active);
      w[i].act_pct = NULL;
      w[i].active = NULL;
    }
    if (dx->profiles[i].active_end_ns) {
      if (!span0 || dx->profiles[i].active_start_ns < span0)
        span0 = dx->profiles[i].active_start_ns;
      if (dx->profiles[i].active_end_ns > span1)
        span1 = dx->profiles[i].active_end_ns;
    }
  }
  memset(&dx->total, 0, sizeof dx->total);
  dx->total.gpu = -1;
  for (int i = 0; i < rec->ngpus; i++) {
    /* one GPU's peers at a time: the ledger alone reads them */
    if (rec->ngpus > 1)
      peer_max(rec, i, &w[i]);
    struct gw_ledger_context ctx = {w[i].periodic, w[i].peer_sm_max_pct, dx->profiles[i].pcie_round_trip};
    gw_ledger_build(rec, i, &ctx, &dx->ledgers[i]);
    free(w[i].peer_sm_max_pct);
    w[i].peer_sm_max_pct = NULL;
    add_ledger(&dx->total, &dx->ledgers[i]);
    dx->estimated |= !dx->ledgers[i].from_timeline;
  }
  /* GPU-Util alone says a kernel was resident, not that the SMs worked:
   * without any SM activity the busy time cannot be split into productive
   * and underfilled, so the underfilled row is unknown, not 0. */
  dx->sm_blind = rec->ngpus > 0;
  for (int i = 0; i < rec->ngpus; i++)
    dx->sm_blind &= !dx->profiles[i].has_sm;
  if (dx->sm_blind) {
    for (int i = 0; i < rec->ngpus; i++)
      dx->ledgers[i].measured[GW_ROW_UNDERFILLED] = 0;
    dx->total.measured[GW_ROW_UNDERFILLED] = 0;
  }
  dx->active_ns = gw_ledger_active_ns(&dx->total);
  dx->lost_ns = dx->active_ns - dx->total.row_ns[GW_ROW_PRODUCTIVE] - dx->total.throttled_power_cap_ns;
  if (dx->lost_ns < 0)
    dx->lost_ns = 0;
  dx->attr = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *dx->attr);
  for (int i = 0; i < rec->ngpus; i++) {
    gw_idle_attribute(rec, i, dx->ledgers[i].active_start_ns, dx->ledgers[i].active_end_ns, &dx->attr[i]);
    dx->measured |= dx->attr[i].source != GW_ATTR_NONE && dx->attr[i].idle_s > 0;
  }
  profile_host(rec, rec->ngpus ? &w[0] : NULL, span0, span1, &dx->host);
  profile_steps(rec, rec->ngpus ? &w[0] : NULL, &dx->steps);
  /* The Python hook, enabled, saw no DataLoader iteration: no step spent a
   * nanosecond in __next__ and none was a loader step. The process's busy
   * children are then something else (a metrics uploader, a compile worker
   * pool), not loader workers, whatever their CPU. */
  int hook_saw_loader = 0;
  for (size_t i = 0; i < rec->nsteps; i++)
    hook_saw_loader |= rec->steps[i].data_wait_ns > 0 || rec->steps[i].from_loader; /* -1: no batch seen */
  if (rec->python_hook_enabled && !hook_saw_loader) {
    dx->host.has_workers = 0;
    dx->host.no_dataloader = 1;
  }
  for (int i = 0; i < rec->ngpus; i++)
    if (!isnan(dx->steps.median_s) && dx->steps.median_s > 0 && dx->profiles[i].period.found)
      dx->profiles[i].period.period_steps = dx->profiles[i].period.period_s / dx->steps.median_s;

  const unsigned char **dips = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *dips);
  for (int i = 0; i < rec->ngpus; i++)
    dips[i] = w[i].first == SIZE_MAX ? NULL : w[i].dip;
  dx->multi = gw_multi_gpu_build(rec, dx, dips);
  free(dips);
  if (dx->active_ns > 0)
    run_rules(rec, dx);
  /* No class holds, yet a large share of the time is lost: the recording
   * lacks the signal that names the cause, which is not "nothing to fix". */
  /* counters alone without SM activity, one process on one GPU: the lost
   * share is only the time with no kernel resident (thresholds.c says why
   * a data-parallel job keeps the 1/3 rule) */
  int counters_blind = dx->total.sm_from_util && !dx->total.from_timeline && rec->ngpus == 1 && rec->world_size <= 1;
  double unexplained_frac = counters_blind ? gw_thr.unexplained_lost_no_sm_frac : gw_thr.unexplained_lost_frac;
  int unexplained = dx->active_ns > 0 && !dx->nfindings && dx->lost_ns / dx->active_ns >= unexplained_frac;
  /* the cause is known and outside the program: nothing in it to fix */
  if (unexplained && demand_limited(rec, dx)) {
    dx->demand_limited = 1;
    unexplained = 0;
  }
  dx->verdict = dx->active_ns <= 0 ? "no_data"
                : dx->nfindings    ? dx->findings[0].class_id
                : unexplained      ? "unexplained"
                                   : "none";
  if (dx->active_ns > 0 && dx->measured)
    gw_measured_verdict(dx);
  drop_overlapped_findings(dx);
  describe(rec, dx);
  note_overlapped_findings(dx);
  note_launch_doubts(dx);
  note_unseen_classes(rec, dx); /* after every finding and note: what this recording could not show */
  /* after describe: its experiments follow the rules' own scores */
  gw_confidence_by_share(dx);
  fill_in_command(rec, dx);
  build_mfu_goodput(rec, dx);
  try_experiments(rec, dx); /* after MFU: the tf32 fix's prediction reads it */
  for (int i = 0; i < rec->ngpus; i++) {
    free(w[i].act_pct);
    free(w[i].active);
    free(w[i].dip);
    free(w[i].periodic);
    free(w[i].peer_sm_max_pct);
  }
  free(w);
  *out = dx;
  return GW_OK;
}

gw_status gw_diagnose_file(const char *path, struct gw_diagnosis **out, struct gw_err *err) {
  struct gw_recording *rec = NULL;
  *out = NULL;
  gw_status rc = gw_recording_load(path, &rec, err);
  if (rc)
    return rc;
  rc = gw_diagnose(rec, out, err);
  gw_recording_free(rec);
  return rc;
}

void gw_diagnosis_free(struct gw_diagnosis *dx) {
  if (!dx)
    return;
  free(dx->ledgers);
  free(dx->profiles);
  free(dx->kstats);
  free(dx->attr);
  free(dx->mfu);
  free(dx->goodput);
  gw_multi_gpu_free(dx->multi);
  free(dx);
}
