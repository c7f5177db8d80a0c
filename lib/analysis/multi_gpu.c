#include "multi_gpu.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ledger.h"
#include "analysis/stats.h"
#include "analysis/thresholds.h"

const char *gw_straggler_cause_id(enum gw_straggler_cause c) {
  switch (c) {
  case GW_STRAGGLER_MORE_WORK:
    return "more_work";
  case GW_STRAGGLER_CLOCKS:
    return "lower_clocks";
  case GW_STRAGGLER_THROTTLE:
    return "throttled";
  case GW_STRAGGLER_INPUT:
    return "input_stalls";
  case GW_STRAGGLER_OTHER_PROCESS:
    return "other_process";
  default:
    return "unknown";
  }
}

const char *gw_mgpu_timeline_id(enum gw_mgpu_timeline t) {
  return t == GW_MGPU_FULL ? "full" : t == GW_MGPU_SAMPLED ? "sampled" : "none";
}

int64_t gw_interval_overlap_ns(const struct gw_interval *a, size_t na, const struct gw_interval *b, size_t nb) {
  int64_t sum = 0;
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    int64_t lo = a[i].start_ns > b[j].start_ns ? a[i].start_ns : b[j].start_ns;
    int64_t hi = a[i].end_ns < b[j].end_ns ? a[i].end_ns : b[j].end_ns;
    if (hi > lo)
      sum += hi - lo;
    if (a[i].end_ns < b[j].end_ns)
      i++;
    else
      j++;
  }
  return sum;
}

/* The intersection of two merged lists, as a merged list (caller frees). */
static struct gw_interval *intersect(const struct gw_interval *a, size_t na, const struct gw_interval *b, size_t nb,
                                     size_t *nout) {
  struct gw_interval *out = gw_xcalloc(na + nb + 1, sizeof *out);
  size_t n = 0, i = 0, j = 0;
  while (i < na && j < nb) {
    int64_t lo = a[i].start_ns > b[j].start_ns ? a[i].start_ns : b[j].start_ns;
    int64_t hi = a[i].end_ns < b[j].end_ns ? a[i].end_ns : b[j].end_ns;
    if (hi > lo) {
      out[n].start_ns = lo;
      out[n].end_ns = hi;
      n++;
    }
    if (a[i].end_ns < b[j].end_ns)
      i++;
    else
      j++;
  }
  *nout = n;
  return out;
}

static struct gw_interval *merged_copy(const struct gw_interval *src, size_t n, size_t *nout) {
  struct gw_interval *c = gw_xcalloc(n + 1, sizeof *c);
  if (n)
    memcpy(c, src, n * sizeof *c);
  *nout = gw_interval_union(c, n);
  return c;
}

static double total_s(const struct gw_interval *m, size_t n) {
  return (double)gw_interval_total_ns(m, n, INT64_MIN, INT64_MAX) / 1e9;
}

/* The time the timeline shares are taken over: the working span, cut to the
 * sampled windows of the GPU's process (all windows when none is its own). */
static struct gw_interval *covered_span(const struct gw_recording *rec, const struct gw_gpu_series *g, int64_t t0,
                                        int64_t t1, size_t *n) {
  struct gw_interval span = {t0, t1};
  if (!rec->timeline_sampled)
    return merged_copy(&span, 1, n);
  size_t mine = 0;
  for (size_t i = 0; i < rec->nwindows; i++)
    mine += rec->windows[i].pid == g->trace_pid && rec->windows[i].node == g->node;
  struct gw_interval *w = gw_xcalloc(rec->nwindows + 1, sizeof *w);
  size_t k = 0;
  for (size_t i = 0; i < rec->nwindows; i++)
    if (!mine || (rec->windows[i].pid == g->trace_pid && rec->windows[i].node == g->node)) {
      w[k].start_ns = rec->windows[i].start_ns;
      w[k].end_ns = rec->windows[i].end_ns;
      k++;
    }
  k = gw_interval_union(w, k);
  struct gw_interval *out = intersect(w, k, &span, 1, n);
  free(w);
  return out;
}

static void timeline_shares(const struct gw_recording *rec, const struct gw_gpu_series *g, int64_t t0, int64_t t1,
                            struct gw_mgpu_gpu *o) {
  size_t ncov, nc, nn, ncc, nnc;
  struct gw_interval *cov = covered_span(rec, g, t0, t1, &ncov);
  struct gw_interval *c = merged_copy(g->kernels, g->nkernels, &nc);
  struct gw_interval *nccl = merged_copy(g->nccl, g->nnccl, &nn);
  struct gw_interval *cc = intersect(c, nc, cov, ncov, &ncc);
  struct gw_interval *ncov_iv = intersect(nccl, nn, cov, ncov, &nnc);
  o->covered_s = total_s(cov, ncov);
  o->compute_s = total_s(cc, ncc);
  o->nccl_s = total_s(ncov_iv, nnc);
  o->overlap_s = (double)gw_interval_overlap_ns(ncov_iv, nnc, cc, ncc) / 1e9;
  o->exposed_s = o->nccl_s - o->overlap_s;
  o->nccl_share = o->covered_s > 0 ? o->nccl_s / o->covered_s : NAN;
  o->overlap_frac = o->nccl_s > 0 ? o->overlap_s / o->nccl_s : NAN;
  free(cov);
  free(c);
  free(nccl);
  free(cc);
  free(ncov_iv);
}

static double median_of_others(const struct gw_multi_gpu *m, int skip, size_t offset) {
  double *v = gw_xcalloc((size_t)m->ngpus + 1, sizeof *v);
  size_t n = 0;
  for (int i = 0; i < m->ngpus; i++)
    if (i != skip)
      v[n++] = *(const double *)((const char *)&m->gpus[i] + offset);
  double med = gw_stats_median(v, n);
  free(v);
  return med;
}
#define OTHERS(m, skip, field) median_of_others(m, skip, offsetof(struct gw_mgpu_gpu, field))

/* Dips every GPU shows at once (they wait together: a collective, or a
 * pause all ranks share) against dips of one GPU alone (that rank stalls and
 * the others wait for it), on the moments all GPUs were working. */
static void dips_shared_and_solo(const struct gw_recording *rec, const struct gw_diagnosis *dx,
                                 const unsigned char *const *dips, struct gw_multi_gpu *m) {
  m->shared_dip_share = m->solo_dip_share = NAN;
  if (!dips)
    return;
  for (int i = 0; i < m->ngpus; i++)
    if (!dips[m->gpus[i].index])
      return;
  const struct gw_gpu_series *ref = &rec->gpus[m->gpus[0].index];
  size_t common = 0, shared = 0;
  size_t *solo = gw_xcalloc((size_t)m->ngpus, sizeof *solo);
  /* each GPU's tick, once: it is a median over the whole run (per tick, the
   * loop below would be quadratic in the run's length) */
  int64_t *tol_ns = gw_xcalloc((size_t)m->ngpus, sizeof *tol_ns);
  for (int i = 0; i < m->ngpus; i++)
    tol_ns[i] = gw_typical_dt_ns(&rec->gpus[m->gpus[i].index]);
  for (size_t t = 0; t < ref->n; t++) {
    int64_t at = ref->t_ns[t];
    int all_active = 1, dipping = 0, who = -1;
    for (int i = 0; i < m->ngpus && all_active; i++) {
      const struct gw_gpu_profile *p = &dx->profiles[m->gpus[i].index];
      const struct gw_gpu_series *g = &rec->gpus[m->gpus[i].index];
      size_t j = gw_series_nearest_tick(g, at);
      if (j == SIZE_MAX || at < p->active_start_ns || at >= p->active_end_ns || llabs(g->t_ns[j] - at) > tol_ns[i]) {
        all_active = 0;
        break;
      }
      if (dips[m->gpus[i].index][j]) {
        dipping++;
        who = i;
      }
    }
    if (!all_active)
      continue;
    common++;
    shared += dipping == m->ngpus;
    if (dipping == 1)
      solo[who]++;
  }
  if (common > 0) {
    m->shared_dip_share = (double)shared / (double)common;
    m->solo_dip_share = 0;
    for (int i = 0; i < m->ngpus; i++) {
      m->gpus[i].solo_dip_share = (double)solo[i] / (double)common;
      if (m->gpus[i].solo_dip_share > m->solo_dip_share)
        m->solo_dip_share = m->gpus[i].solo_dip_share;
    }
  }
  free(solo);
  free(tol_ns);
}

/* Which GPU the others wait for. With a timeline: the one spending the least
 * time in NCCL kernels (the waiting ranks spin in them). Without: an
 * input-starved rank shows a lower GPU-Util than its spinning peers; else the
 * one with the highest SM activity. */
static void find_straggler(struct gw_multi_gpu *m) {
  m->straggler = -1;
  if (!isnan(m->nccl_spread) && m->nccl_spread >= gw_thr.multi_wait_spread_frac) {
    for (int i = 0; i < m->ngpus; i++)
      if (!isnan(m->gpus[i].nccl_share) &&
          (m->straggler < 0 || m->gpus[i].nccl_share < m->gpus[m->straggler].nccl_share))
        m->straggler = i;
    return;
  }
  if (isnan(m->sm_spread_pts) || m->sm_spread_pts < gw_thr.multi_sm_spread_pct)
    return;
  for (int i = 0; i < m->ngpus; i++) {
    double util_gap = OTHERS(m, i, util_med_pct) - m->gpus[i].util_med_pct;
    double input_gap = m->gpus[i].idle_input_share - OTHERS(m, i, idle_input_share);
    if (util_gap >= gw_thr.multi_util_gap_pct && input_gap >= gw_thr.finding_min_share) {
      m->straggler = i;
      return;
    }
  }
  m->straggler = m->sm_hi;
}

/* The straggler's own reason, most specific first. */
static void straggler_cause(const struct gw_diagnosis *dx, struct gw_multi_gpu *m) {
  m->cause = GW_STRAGGLER_UNKNOWN;
  m->cause_ratio = NAN;
  int s = m->straggler;
  if (s < 0)
    return;
  const struct gw_mgpu_gpu *g = &m->gpus[s];
  const struct gw_gpu_profile *p = &dx->profiles[g->index];
  int others_shared = 0;
  for (int i = 0; i < m->ngpus; i++)
    others_shared |= i != s && m->gpus[i].procs_max > 1;
  if (g->procs_max > 1 && !others_shared) {
    m->cause = GW_STRAGGLER_OTHER_PROCESS;
    m->cause_ratio = g->procs_max;
    return;
  }
  double input_gap = g->idle_input_share - OTHERS(m, s, idle_input_share);
  if (input_gap >= gw_thr.finding_min_share) {
    m->cause = GW_STRAGGLER_INPUT;
    m->cause_ratio = input_gap;
    return;
  }
  if (!isnan(p->bad_throttle_frac) && p->bad_throttle_frac >= gw_thr.hw_bad_tick_frac) {
    m->cause = GW_STRAGGLER_THROTTLE;
    m->cause_ratio = p->bad_throttle_frac;
    return;
  }
  /* work in clock cycles: a slower clock stretches the same kernels, so kernel
   * time or activity alone cannot tell more work from slower clocks. The math
   * pipes' activity counts the cycles they issue work, so it comes first;
   * kernel time (which on a waiting rank also holds compute slowed by NCCL
   * sharing its SMs: 40% more work read as 1.07 on the H200 pair) only
   * without pipe counters. */
  double work = !isnan(p->math_med_pct) || isnan(g->work_s) ? g->work_rate / OTHERS(m, s, work_rate)
                                                            : g->work_s / OTHERS(m, s, work_s);
  if (!isnan(work) && work >= 1 + gw_thr.multi_work_excess_frac) {
    m->cause = GW_STRAGGLER_MORE_WORK;
    m->cause_ratio = work;
    return;
  }
  double clock = g->sm_clock_med_mhz / OTHERS(m, s, sm_clock_med_mhz);
  if (!isnan(clock) && clock <= 1 - gw_thr.multi_clock_gap_frac) {
    m->cause = GW_STRAGGLER_CLOCKS;
    m->cause_ratio = clock;
  }
}

static double tensor_median(const struct gw_gpu_series *g, const struct gw_gpu_profile *p) {
  if (!g->m[GW_M_tensor_active_pct] || !p->active_end_ns)
    return NAN;
  size_t a = 0, b = 0;
  while (a < g->n && g->t_ns[a] < p->active_start_ns)
    a++;
  b = a;
  while (b < g->n && g->t_ns[b] < p->active_end_ns)
    b++;
  return b > a && gw_metric_count(g, GW_M_tensor_active_pct, a, b - a) > 0
             ? gw_metric_median(g, GW_M_tensor_active_pct, a, b - a)
             : NAN;
}

static double busy_seconds(const struct gw_gpu_series *g, const struct gw_gpu_profile *p) {
  const struct gw_value_column *u = g->m[GW_M_util_gpu_pct];
  if (!u)
    return NAN;
  int64_t typical = gw_typical_dt_ns(g);
  double sum = 0;
  for (size_t i = 0; i < g->n; i++)
    if (g->t_ns[i] >= p->active_start_ns && g->t_ns[i] < p->active_end_ns && !isnan(gw_column_at(u, i)))
      sum += gw_column_at(u, i) / 100 * (double)gw_tick_dt_ns(g, i, typical);
  return sum / 1e9;
}

static void fill_gpu(const struct gw_recording *rec, const struct gw_diagnosis *dx, int index, int timeline,
                     struct gw_mgpu_gpu *o) {
  const struct gw_gpu_series *g = &rec->gpus[index];
  const struct gw_gpu_profile *p = &dx->profiles[index];
  const struct gw_ledger *l = &dx->ledgers[index];
  o->index = index;
  o->gpu = g->gpu;
  o->node = g->node;
  o->node_gpu = g->node_gpu;
  if (rec->nnodes > 1 && g->host[0])
    snprintf(o->label, sizeof o->label, "%s GPU %d", g->host, g->node_gpu);
  else if (rec->nnodes > 1)
    snprintf(o->label, sizeof o->label, "node %d GPU %d", g->node, g->node_gpu);
  else
    snprintf(o->label, sizeof o->label, "GPU %d", g->gpu);
  o->pid = g->trace_pid;
  o->procs_max = g->procs_max;
  o->util_med_pct = p->util_med_pct;
  o->sm_med_pct = p->sm_med_pct;
  o->tensor_med_pct = tensor_median(g, p);
  o->sm_clock_med_mhz = p->sm_clock_med_mhz;
  o->power_limit_w = p->power_limit_w;
  o->active_s = (double)(p->active_end_ns - p->active_start_ns) / 1e9;
  o->busy_s = busy_seconds(g, p);
  double active_ns = gw_ledger_active_ns(l);
  o->idle_input_share = active_ns > 0 ? l->row_ns[GW_ROW_IDLE_INPUT] / active_ns : NAN;
  o->comm_share = active_ns > 0 ? l->row_ns[GW_ROW_IDLE_COMM] / active_ns : NAN;
  o->covered_s = o->compute_s = o->nccl_s = o->overlap_s = o->exposed_s = NAN;
  o->nccl_share = o->overlap_frac = o->work_s = o->solo_dip_share = NAN;
  if (timeline && g->nkernels + g->nnccl > 0) {
    /* the full timeline's span is the ledger's (first to last traced work) */
    int64_t t0 = timeline == GW_MGPU_FULL && l->from_timeline ? l->active_start_ns : p->active_start_ns;
    int64_t t1 = timeline == GW_MGPU_FULL && l->from_timeline ? l->active_end_ns : p->active_end_ns;
    timeline_shares(rec, g, t0, t1, o);
  }
  double clock_frac = g->sm_clock_max_mhz > 0 ? p->sm_clock_med_mhz / g->sm_clock_max_mhz : NAN;
  if (!isnan(o->compute_s) && o->covered_s > 0)
    o->work_s = o->compute_s / o->covered_s * clock_frac;
  double act = !isnan(p->math_med_pct) ? p->math_med_pct : p->sm_med_pct;
  o->work_rate = act * clock_frac;
  const struct gw_nccl_rank *r = gw_nccl_rank_for_gpu(rec->nccl, g->node, g->trace_pid, g->node_gpu);
  o->rank = r ? r->rank : -1;
  if (r)
    gw_nccl_rank_transports(r, o->transport, sizeof o->transport);
}

struct gw_multi_gpu *gw_multi_gpu_build(const struct gw_recording *rec, const struct gw_diagnosis *dx,
                                        const unsigned char *const *dips) {
  int active = 0;
  for (int i = 0; i < dx->ngpus; i++)
    active += dx->profiles[i].active_end_ns != 0;
  if (active < 2)
    return NULL;
  struct gw_multi_gpu *m = gw_xcalloc(1, sizeof *m);
  m->gpus = gw_xcalloc((size_t)active, sizeof *m->gpus);
  m->nnodes = rec->nnodes > 0 ? rec->nnodes : 1;
  int any_timeline = 0;
  for (int i = 0; i < rec->ngpus; i++)
    any_timeline |= rec->gpus[i].nkernels + rec->gpus[i].nnccl > 0;
  m->timeline = !any_timeline           ? GW_MGPU_NO_TIMELINE
                : rec->timeline_sampled ? GW_MGPU_SAMPLED
                : rec->has_timeline     ? GW_MGPU_FULL
                                        : GW_MGPU_NO_TIMELINE;
  if (rec->nccl)
    m->nccl = *rec->nccl;
  else
    gw_nccl_summary_init(&m->nccl);
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->profiles[i].active_end_ns)
      fill_gpu(rec, dx, i, m->timeline, &m->gpus[m->ngpus++]);

  m->sm_hi = m->sm_lo = -1;
  m->sm_spread_pts = m->nccl_spread = m->exposed_share = NAN;
  double nccl_min = NAN, nccl_max = NAN, exposed = 0, covered = 0;
  for (int i = 0; i < m->ngpus; i++) {
    const struct gw_mgpu_gpu *g = &m->gpus[i];
    if (!isnan(g->sm_med_pct)) {
      if (m->sm_hi < 0 || g->sm_med_pct > m->gpus[m->sm_hi].sm_med_pct)
        m->sm_hi = i;
      if (m->sm_lo < 0 || g->sm_med_pct < m->gpus[m->sm_lo].sm_med_pct)
        m->sm_lo = i;
    }
    if (!isnan(g->nccl_share)) {
      nccl_min = isnan(nccl_min) || g->nccl_share < nccl_min ? g->nccl_share : nccl_min;
      nccl_max = isnan(nccl_max) || g->nccl_share > nccl_max ? g->nccl_share : nccl_max;
      exposed += g->exposed_s;
      covered += g->covered_s;
    }
  }
  if (m->sm_hi >= 0 && m->sm_hi != m->sm_lo)
    m->sm_spread_pts = m->gpus[m->sm_hi].sm_med_pct - m->gpus[m->sm_lo].sm_med_pct;
  m->sm_spread_limit_pts = gw_thr.multi_sm_spread_pct;
  m->sm_spread_unequal = !isnan(m->sm_spread_pts) && m->sm_spread_pts >= m->sm_spread_limit_pts;
  if (!isnan(nccl_min))
    m->nccl_spread = nccl_max - nccl_min;
  if (covered > 0)
    m->exposed_share = exposed / covered;
  dips_shared_and_solo(rec, dx, dips, m);
  find_straggler(m);
  m->imbalanced = m->straggler >= 0;
  straggler_cause(dx, m);
  const unsigned char *adv = m->nccl.advice;
  m->slow_transport = adv[GW_NCCL_ADV_SOCKET_ONE_NODE] || adv[GW_NCCL_ADV_SHM_BETWEEN_GPUS] ||
                      adv[GW_NCCL_ADV_P2P_DISABLED] || adv[GW_NCCL_ADV_IB_NO_GDR] || adv[GW_NCCL_ADV_SOCKET_NODES];
  return m;
}

void gw_multi_gpu_free(struct gw_multi_gpu *m) {
  if (!m)
    return;
  free(m->gpus);
  free(m);
}
