#include "analysis/step_breakdown.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/correlate.h"
#include "analysis/ledger.h"
#include "analysis/py_sample_cause.h"
#include "analysis/stats.h"
#include "analysis/steady_steps.h"
#include "analysis/step_process.h"
#include "analysis/thresholds.h"

/* A spacing of 2 is the alternation of a loader that keeps just ahead of
 * the loop (every other batch ready), not work on a schedule. */
#define RECUR_MIN_PERIOD 3
/* More slow steps than this is a loop whose steps are mostly slow, not a
 * few stalls; it also bounds the spacing search (quadratic in them). */
#define RECUR_MAX_SLOW 4096
/* Two slow steps may be occurrences of one scheduled work when neither's
 * time above the median is more than ten times the other's: beyond that one
 * is a one-off (a loader started, a first pass compiled) or jitter, and its
 * weight would carry any spacing that happens to reach it. */
#define RECUR_SAME_WORK_FACTOR 10.0
/* A recurrence's members stall at least a third as long as its typical
 * member (the weighted median): the same evaluation pass, checkpoint or
 * log flush varies by tens of percent with caches and the disk, not
 * threefold, while a loop's jitter steps, a few to tens of milliseconds,
 * pair with each other by chance at any spacing once there are tens of
 * them (a window of +-5% of a long spacing holds one). */
#define RECUR_MEMBER_MIN_FRAC (1.0 / 3.0)

/* What the breakdown reads besides the recording: the step process's GPU,
 * its traced busy intervals and synchronising calls merged and sorted. */
struct ctx {
  const struct gw_recording *rec;
  int64_t pid;
  const struct gw_gpu_series *g; /* NULL unknown */
  int64_t typical_dt_ns;
  struct gw_interval *busy; /* union of traced kernels, NCCL kernels and copies; NULL without a trace */
  size_t nbusy;
  struct gw_interval *syncs;
  size_t nsyncs;
  int traced;
  struct gw_py_causes causes; /* how the process's stack samples read, as the idle attribution reads them */
};

/* Running sums over the steps of one kind. */
struct acc {
  size_t n, dw_n, nsamp, gpu_n;
  double wall_s, dw_s, busy_s, busy_known_s, sm_s, sm_known_s, sync_s;
  size_t counts[GW_PYACT_COUNT];
};

static int cmp_iv(const void *a, const void *b) {
  const struct gw_interval *x = a, *y = b;
  return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Sorted, merged copy of the intervals of up to four lists. */
static size_t union_of(const struct gw_interval *const *lists, const size_t *ns, int nlists, struct gw_interval **out) {
  size_t total = 0;
  for (int l = 0; l < nlists; l++)
    total += ns[l];
  *out = NULL;
  if (!total)
    return 0;
  struct gw_interval *all = gw_xcalloc(total, sizeof *all);
  size_t k = 0;
  for (int l = 0; l < nlists; l++)
    for (size_t i = 0; i < ns[l]; i++)
      all[k++] = lists[l][i];
  qsort(all, k, sizeof *all, cmp_iv);
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    if (m && all[i].start_ns <= all[m - 1].end_ns) {
      if (all[i].end_ns > all[m - 1].end_ns)
        all[m - 1].end_ns = all[i].end_ns;
    } else {
      all[m++] = all[i];
    }
  }
  *out = all;
  return m;
}

/* Time of the sorted, disjoint intervals inside [s, e). */
static double overlap_s(const struct gw_interval *iv, size_t n, int64_t s, int64_t e) {
  size_t lo = 0, hi = n;
  while (lo < hi) { /* the first interval ending after s */
    size_t mid = lo + (hi - lo) / 2;
    if (iv[mid].end_ns <= s)
      lo = mid + 1;
    else
      hi = mid;
  }
  double sum = 0;
  for (size_t i = lo; i < n && iv[i].start_ns < e; i++) {
    int64_t a = iv[i].start_ns > s ? iv[i].start_ns : s, b = iv[i].end_ns < e ? iv[i].end_ns : e;
    if (b > a)
      sum += (double)(b - a) / 1e9;
  }
  return sum;
}

static size_t py_lower(const struct gw_recording *rec, int64_t t) {
  size_t lo = 0, hi = rec->npy_ticks;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rec->py_ticks[mid].t_ns < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int py_sample_ours(const struct ctx *c, const struct gw_py_tick *p) {
  return c->pid < 0 || p->pid == c->pid;
}

/* The GPU samples' busy time, SM-weighted time and the time they knew
 * about, inside [s, e): each tick stands for the interval after it, as the
 * ledger reads it; its busy share is the larger of GPU-Util and SM activity. */
static void gpu_samples_in(const struct ctx *c, int64_t s, int64_t e, struct acc *a) {
  const struct gw_gpu_series *g = c->g;
  size_t lo = 0, hi = g->n;
  int64_t from = s - 5 * c->typical_dt_ns; /* gw_tick_dt_ns caps a tick at 5 typical intervals */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->t_ns[mid] < from)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < g->n && g->t_ns[i] < e; i++) {
    int64_t t0 = g->t_ns[i], t1 = t0 + gw_tick_dt_ns(g, i, c->typical_dt_ns);
    int64_t a0 = t0 > s ? t0 : s, a1 = t1 < e ? t1 : e;
    if (a1 <= a0)
      continue;
    double ov = (double)(a1 - a0) / 1e9;
    int from_util = 0;
    double act = gw_tick_activity_pct(g, i, &from_util);
    double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
    if (isnan(act))
      continue; /* unknown stays out of the sums */
    double b = fmax(act, isnan(u) ? act : u) / 100;
    b = b < 0 ? 0 : b > 1 ? 1 : b;
    a->busy_s += b * ov;
    a->busy_known_s += ov;
    if (!from_util) {
      a->sm_s += fmin(fmax(act, 0), 100) / 100 * ov;
      a->sm_known_s += ov;
    }
  }
}

static void add_step(const struct ctx *c, const struct gw_step_row *s, struct acc *a) {
  const struct gw_recording *rec = c->rec;
  a->n++;
  a->wall_s += (double)(s->end_ns - s->start_ns) / 1e9;
  if (s->data_wait_ns >= 0) {
    a->dw_s += (double)s->data_wait_ns / 1e9;
    a->dw_n++;
  }
  for (size_t k = py_lower(rec, s->start_ns); k < rec->npy_ticks && rec->py_ticks[k].t_ns < s->end_ns; k++) {
    const struct gw_py_tick *p = &rec->py_ticks[k];
    if (!py_sample_ours(c, p))
      continue;
    a->counts[gw_py_sample_cause(&c->causes, p)]++;
    a->nsamp++;
  }
  if (c->g) {
    struct acc tick = {0};
    gpu_samples_in(c, s->start_ns, s->end_ns, &tick);
    a->sm_s += tick.sm_s;
    a->sm_known_s += tick.sm_known_s;
    if (c->busy) {
      a->busy_s += overlap_s(c->busy, c->nbusy, s->start_ns, s->end_ns);
      a->busy_known_s += (double)(s->end_ns - s->start_ns) / 1e9;
    } else {
      a->busy_s += tick.busy_s;
      a->busy_known_s += tick.busy_known_s;
    }
    a->gpu_n++;
  }
  if (c->traced)
    a->sync_s += overlap_s(c->syncs, c->nsyncs, s->start_ns, s->end_ns);
}

static void finish(const struct ctx *c, const struct acc *a, struct gw_step_split *out) {
  const struct gw_recording *rec = c->rec;
  double n = (double)a->n;
  *out = (struct gw_step_split){.nsteps = a->n, .nsamples = a->nsamp};
  out->wall_s = a->n ? a->wall_s / n : NAN;
  out->data_wait_s = a->n && a->dw_n == a->n ? a->dw_s / n : NAN;
  for (int k = 0; k < GW_PYACT_COUNT; k++)
    out->host_s[k] =
        a->n && a->nsamp > 0 && rec->py_sampling_hz > 0 ? (double)a->counts[k] / rec->py_sampling_hz / n : NAN;
  /* busy time where every tick inside the steps was known; partly unknown
   * stays unknown rather than read as idle */
  int busy_known = a->n && c->g && (c->busy || a->busy_known_s >= 0.99 * a->wall_s);
  out->gpu_busy_s = busy_known ? a->busy_s / n : NAN;
  /* SM fill: the SMs' active share over the share the GPU was busy, both
   * over the time each was known */
  double busy_frac = a->busy_known_s > 0 ? a->busy_s / a->busy_known_s : NAN;
  out->sm_fill_pct =
      busy_known && a->sm_known_s > 0 && busy_frac > 0 ? fmin(100, a->sm_s / a->sm_known_s / busy_frac * 100) : NAN;
  out->sync_s = c->traced && a->n ? a->sync_s / n : out->host_s[GW_PYACT_SYNC];
  out->host_per_step = rec->py_sampling_hz > 0 && out->wall_s * rec->py_sampling_hz >= GW_STEP_MIN_SAMPLE_PERIODS;
  out->gpu_per_step =
      c->g &&
      (c->busy || (c->typical_dt_ns > 0 && out->wall_s * 1e9 >= GW_STEP_MIN_SAMPLE_PERIODS * (double)c->typical_dt_ns));
}

/* The GPU the process ran on: the one it launched most kernels on (traced),
 * else the only GPU; NULL when several GPUs and no trace names it. */
static int gpu_of(const struct gw_recording *rec, int64_t pid) {
  for (int i = 0; i < rec->ngpus; i++)
    if (pid > 0 && rec->gpus[i].trace_pid == pid)
      return i;
  return rec->ngpus == 1 ? 0 : -1;
}

static void ctx_open(const struct gw_recording *rec, int64_t pid, struct ctx *c) {
  *c = (struct ctx){.rec = rec, .pid = pid};
  if (rec->npy_ticks > 0)
    gw_py_causes_init(&c->causes, rec, pid);
  int gi = gpu_of(rec, pid);
  if (gi < 0)
    return;
  c->g = &rec->gpus[gi];
  c->typical_dt_ns = c->g->n ? gw_typical_dt_ns(c->g) : 0;
  /* a sampled trace covers its windows only: the steps between them would read idle */
  if (rec->has_timeline && !rec->timeline_sampled && c->g->nkernels + c->g->nnccl > 0) {
    const struct gw_interval *lists[4] = {c->g->kernels, c->g->nccl, c->g->h2d, c->g->copies};
    size_t ns[4] = {c->g->nkernels, c->g->nnccl, c->g->nh2d, c->g->ncopies};
    c->nbusy = union_of(lists, ns, 4, &c->busy);
    const struct gw_interval *sl[1] = {c->g->syncs};
    size_t sn[1] = {c->g->nsyncs};
    c->nsyncs = union_of(sl, sn, 1, &c->syncs);
    c->traced = 1;
  }
}

static void ctx_close(struct ctx *c) {
  free(c->busy);
  free(c->syncs);
  gw_py_causes_free(&c->causes);
}

int gw_step_split_one(const struct gw_recording *rec, const struct gw_step_row *s, struct gw_step_split *out) {
  struct ctx c;
  ctx_open(rec, s->pid, &c);
  struct acc a = {0};
  add_step(&c, s, &a);
  finish(&c, &a, out);
  if (!out->host_per_step)
    for (int k = 0; k < GW_PYACT_COUNT; k++)
      out->host_s[k] = NAN;
  if (!out->gpu_per_step)
    out->gpu_busy_s = out->sm_fill_pct = NAN;
  if (!c.traced && !out->host_per_step)
    out->sync_s = NAN;
  ctx_close(&c);
  return out->host_per_step && out->gpu_per_step;
}

static int cmp_row_ptr(const void *a, const void *b) {
  const struct gw_step_row *x = *(const struct gw_step_row *const *)a, *y = *(const struct gw_step_row *const *)b;
  return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Whether the sorted slow indices hold one within [lo, hi] whose excess is
 * within RECUR_SAME_WORK_FACTOR of excess: work on a schedule does about the
 * same each time, so a one-off stall seconds long (a loader started, a
 * first evaluation compiled) is no partner of a few jittered milliseconds,
 * and its weight would otherwise carry any spacing that happens to reach
 * it. */
static int has_partner_in(const int64_t *slow, const double *ex, size_t n, long lo, long hi, double excess) {
  for (size_t a = gw_first_at_or_after(slow, n, lo); a < n && slow[a] <= hi; a++)
    if (ex[a] * RECUR_SAME_WORK_FACTOR >= excess && ex[a] <= excess * RECUR_SAME_WORK_FACTOR)
      return 1;
  return 0;
}

static long tol_of(long n) {
  long t = lround(GW_RECUR_TOL_FRAC * (double)n);
  return t < 1 ? 1 : t;
}

/* Marks in member[] the slow steps with a slow partner n +- tol away;
 * returns their summed excess over the median step (the time a
 * recurrence at n explains: stray slow steps of a few % add little). */
static double members_at(const int64_t *slow, const double *excess, size_t ns, long n, unsigned char *member) {
  long tol = tol_of(n);
  double sum = 0;
  for (size_t i = 0; i < ns; i++) {
    long x = (long)slow[i];
    int m = has_partner_in(slow, excess, ns, x + n - tol, x + n + tol, excess[i]) ||
            has_partner_in(slow, excess, ns, x - n - tol, x - n + tol, excess[i]);
    if (member)
      member[i] = (unsigned char)m;
    sum += m ? excess[i] : 0;
  }
  return sum;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The members' excess at which half of their summed excess is reached: the
 * size of the stalls that carry the time, not of the many stray steps. */
static double weighted_median_excess(const double *excess, const unsigned char *member, size_t ns) {
  double *ex = gw_xcalloc(ns + 1, sizeof *ex), total = 0, run = 0, r = 0;
  size_t k = 0;
  for (size_t i = 0; i < ns; i++)
    if (member[i]) {
      ex[k++] = excess[i];
      total += excess[i];
    }
  qsort(ex, k, sizeof *ex, cmp_double);
  for (size_t i = k; i-- > 0;) {
    run += ex[i];
    r = ex[i];
    if (run >= total / 2)
      break;
  }
  free(ex);
  return r;
}

/* Candidate spacings: the gaps from each slow step to the next
 * RECUR_NEIGHBOURS slow steps (stray slow steps between two occurrences
 * hide the spacing from consecutive gaps), the most frequent first. */
#define RECUR_NEIGHBOURS 16
#define RECUR_CANDIDATES 32
static size_t candidate_spacings(const int64_t *slow, size_t ns, size_t m, long *cand) {
  size_t *hist = gw_xcalloc(m + 1, sizeof *hist);
  for (size_t i = 0; i < ns; i++)
    for (size_t j = i + 1; j < ns && j <= i + RECUR_NEIGHBOURS; j++)
      if (slow[j] - slow[i] >= RECUR_MIN_PERIOD)
        hist[slow[j] - slow[i]]++;
  size_t nc = 0;
  for (size_t g = RECUR_MIN_PERIOD; g <= m; g++) {
    if (!hist[g])
      continue;
    /* insert g by its count, ties to the shorter spacing (a longer one is its multiple) */
    size_t at = nc < RECUR_CANDIDATES ? nc : RECUR_CANDIDATES;
    while (at > 0 && hist[cand[at - 1]] < hist[g])
      at--;
    if (at >= RECUR_CANDIDATES)
      continue;
    for (size_t k = (nc < RECUR_CANDIDATES ? nc : RECUR_CANDIDATES - 1); k > at; k--)
      cand[k] = cand[k - 1];
    cand[at] = (long)g;
    if (nc < RECUR_CANDIDATES)
      nc++;
  }
  free(hist);
  return nc;
}

/* The spacing at which most slow steps recur: marks them in member[] and
 * fills out's period; nothing when none does. slow[]: the steady steps'
 * indices (sorted) of the ns slow steps, m steady steps in all. */
static void find_recurrence(const int64_t *slow, const double *excess, size_t ns, size_t m,
                            struct gw_step_breakdown *out, unsigned char *member) {
  if (ns < GW_RECUR_MIN_COUNT || ns > RECUR_MAX_SLOW)
    return;
  long cand[RECUR_CANDIDATES];
  size_t nc = candidate_spacings(slow, ns, m, cand), best = 0;
  double best_s = 0;
  long best_n = 0;
  double score[RECUR_CANDIDATES];
  for (size_t i = 0; i < nc; i++) {
    score[i] = members_at(slow, excess, ns, cand[i], NULL);
    best_s = fmax(best_s, score[i]);
  }
  /* The shortest spacing that explains nearly as much as the best: a
   * multiple of the period, with its wider tolerance, also pairs every
   * occurrence (and gathers a few more stray steps). */
  for (size_t i = 0; i < nc; i++)
    if (best_s > 0 && score[i] >= 0.9 * best_s && (!best_n || cand[i] < best_n))
      best_n = cand[i];
  if (!best_n)
    return;
  members_at(slow, excess, ns, best_n, member);
  /* Work on a schedule does about the same each time: a member slowed less
   * than RECUR_MEMBER_MIN_FRAC as much as the typical member is jitter that
   * happened to fall a period away from another (a 6 ms step beside 250 ms
   * checkpoints, a 25 ms step beside 160 ms evaluation passes). */
  double typical_excess = weighted_median_excess(excess, member, ns);
  best = 0;
  for (size_t i = 0; i < ns; i++) {
    member[i] = member[i] && excess[i] >= RECUR_MEMBER_MIN_FRAC * typical_excess;
    best += member[i];
  }
  if (best < GW_RECUR_MIN_COUNT) {
    memset(member, 0, ns);
    return;
  }
  /* One occurrence of the periodic work may slow a few steps in a row (an
   * eval pass, then the step that restarts the loader): members within the
   * tolerance of each other are one occurrence, placed at its first. The
   * spacing per period between consecutive occurrences (a missed one makes
   * a spacing of two periods) gives the period and its spread. */
  long tol = tol_of(best_n);
  double *per = gw_xcalloc(best + 1, sizeof *per);
  size_t np = 0, occ = 0, last = SIZE_MAX, start = SIZE_MAX;
  for (size_t i = 0; i < ns; i++) {
    if (!member[i])
      continue;
    if (last != SIZE_MAX && (long)(slow[i] - slow[last]) <= tol) {
      last = i; /* the same occurrence goes on */
      continue;
    }
    if (start != SIZE_MAX) {
      double sp = (double)(slow[i] - slow[start]);
      double k = round(sp / (double)best_n);
      if (k >= 1)
        per[np++] = sp / k;
    }
    occ++;
    start = last = i;
  }
  double n_steps = gw_stats_median(per, np), spread = gw_stats_mad(per, np);
  free(per);
  /* the occurrences must fit the steady span at that spacing, with two
   * spacings at least to have a spread */
  size_t expected = m / (size_t)best_n;
  if (isnan(n_steps) || occ < GW_RECUR_MIN_COUNT || np + 1 < GW_RECUR_MIN_COUNT || occ > expected + 1 ||
      spread > (double)tol || 2 * occ < expected) {
    memset(member, 0, ns);
    return;
  }
  out->recurring = 1;
  out->period_steps = (int)lround(n_steps);
  out->period_spread_steps = spread;
  out->count = (int)occ;
}

/* The shape's element count, "16x128" -> 2048; NAN unknown. */
static double shape_elements(const char *shape) {
  if (!shape[0])
    return NAN;
  double n = 1;
  const char *p = shape;
  while (*p) {
    char *end;
    double d = strtod(p, &end);
    if (end == p || d < 0)
      return NAN;
    n *= d;
    p = end;
    if (*p == 'x')
      p++;
    else if (*p)
      return NAN;
  }
  return n;
}

struct shaped {
  const char *shape;
  int first_visit;
  double d;
};

static int cmp_shaped(const void *a, const void *b) {
  const struct shaped *x = a, *y = b;
  int c = strcmp(x->shape, y->shape);
  return c ? c : x->first_visit - y->first_visit;
}

/* Step time against the input shape over the steps in rows (those not in a
 * recurring slow step). A shape's first visit re-plans kernels, allocates
 * and maybe compiles (compile_shapes.c measures its cost), so the groups are
 * (shape, first visit or not); the share of the variance they explain is
 * epsilon^2 (between-group sum of squares less what k groups explain of pure
 * noise, over the total), so many small groups do not explain noise. */
static void shape_fit(const struct gw_step_row *const *rows, const unsigned char *first_visit, size_t n,
                      const unsigned char *skip, struct gw_step_breakdown *out) {
  out->shape_explained = out->shape_corr = out->step_cv = NAN;
  struct shaped *v = gw_xcalloc(n + 1, sizeof *v);
  double *d = gw_xcalloc(n + 1, sizeof *d), *el = gw_xcalloc(n + 1, sizeof *el);
  /* the element count of the step before (NAN when it was left out or had
   * no shape): see the correlation below */
  double *el_prev = gw_xcalloc(n + 1, sizeof *el_prev);
  size_t k = 0, unknown = 0, kept_row = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (skip[i])
      continue;
    if (!rows[i]->shape[0]) {
      unknown++;
      continue;
    }
    v[k] = (struct shaped){rows[i]->shape, first_visit[i], (double)(rows[i]->end_ns - rows[i]->start_ns) / 1e9};
    d[k] = v[k].d;
    el[k] = shape_elements(rows[i]->shape);
    el_prev[k] = k > 0 && kept_row == i - 1 ? el[k - 1] : NAN; /* the step before, when it was kept */
    kept_row = i;
    k++;
  }
  out->step_cv = gw_stats_cv(d, k);
  /* every step must carry its shape: a partial record cannot tell the
   * spread of the steps without one */
  out->shape_known = k >= 2 && unknown == 0;
  if (out->shape_known) {
    qsort(v, k, sizeof *v, cmp_shaped);
    double mean = gw_stats_mean(d, k), total = 0, between = 0;
    size_t groups = 0;
    for (size_t i = 0; i < k; i++)
      total += (d[i] - mean) * (d[i] - mean);
    for (size_t a = 0; a < k;) {
      size_t b = a;
      double sum = 0;
      while (b < k && !cmp_shaped(&v[b], &v[a]))
        sum += v[b++].d;
      double gm = sum / (double)(b - a);
      between += (double)(b - a) * (gm - mean) * (gm - mean);
      out->nshapes += !v[a].first_visit || a == 0 || strcmp(v[a - 1].shape, v[a].shape);
      groups++;
      a = b;
    }
    double within_ms = k > groups ? (total - between) / (double)(k - groups) : NAN;
    out->shape_explained =
        total > 0 && !isnan(within_ms) ? fmax(0, (between - (double)(groups - 1) * within_ms) / total) : NAN;
    /* Pearson with the element count, of the step itself and of the step
     * before, the larger of the two (a larger input takes longer, so the
     * relation that counts is a positive one): a step marked at the optimizer step
     * whose loop synchronises after it (loss.item() at the loop's end) waits
     * in its own interval for the GPU work of the step before, so its time
     * follows the previous input's size (a transformer fed lengths drawn
     * anew each step, H100 and H200: r = 0.85 and 0.98 a step late, 0.0 in
     * step) */
    double r_own = gw_pearson(el, d, k, NULL), r_prev = gw_pearson(el_prev, d, k, NULL);
    out->shape_corr = isnan(r_prev) || (!isnan(r_own) && r_own >= r_prev) ? r_own : r_prev;
    out->follows_shape =
        out->nshapes >= 2 && out->shape_explained >= GW_SHAPE_EXPLAINED_MIN && out->step_cv >= gw_thr.step_jitter_cv;
  }
  free(v);
  free(d);
  free(el);
  free(el_prev);
}

/* first_visit[i]: rows[i] is the first of the n rows (by start) with its shape. */
static int cmp_shape_then_index(const void *a, const void *b, const struct gw_step_row *const *rows) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  int c = strcmp(rows[x]->shape, rows[y]->shape);
  return c ? c : (x > y) - (x < y);
}
static const struct gw_step_row *const *g_sort_rows; /* qsort has no context argument in C11 */
static int cmp_visit(const void *a, const void *b) {
  return cmp_shape_then_index(a, b, g_sort_rows);
}
static void mark_first_visits(const struct gw_step_row *const *rows, size_t n, unsigned char *first_visit) {
  size_t *ix = gw_xcalloc(n + 1, sizeof *ix);
  for (size_t i = 0; i < n; i++)
    ix[i] = i;
  g_sort_rows = rows;
  qsort(ix, n, sizeof *ix, cmp_visit);
  g_sort_rows = NULL;
  for (size_t i = 0; i < n; i++)
    first_visit[ix[i]] = rows[ix[i]]->shape[0] && (i == 0 || strcmp(rows[ix[i - 1]]->shape, rows[ix[i]]->shape));
  free(ix);
}

/* What the thread did in the recurring slow steps beyond a typical step:
 * the activity whose time per step grew most (the hook's measured data
 * wait standing for the data-wait activity where it is larger), and the
 * user frame most of those samples were in. */
static void name_activity(const struct ctx *c, const struct gw_step_row *const *rows, size_t n,
                          const unsigned char *slow_member, struct gw_step_breakdown *out) {
  const struct gw_step_split *ty = &out->kinds[GW_STEP_KIND_TYPICAL], *sl = &out->kinds[GW_STEP_KIND_SLOW];
  out->activity = -1;
  double best = 0;
  for (int a = 0; a < GW_PYACT_COUNT; a++) {
    double ex = isnan(sl->host_s[a]) ? NAN : sl->host_s[a] - (isnan(ty->host_s[a]) ? 0 : ty->host_s[a]);
    if (a == GW_PYACT_DATA_WAIT && !isnan(sl->data_wait_s) && !isnan(ty->data_wait_s) &&
        (isnan(ex) || sl->data_wait_s - ty->data_wait_s > ex))
      ex = sl->data_wait_s - ty->data_wait_s;
    if (!isnan(ex) && ex > best) {
      best = ex;
      out->activity = a;
    }
  }
  out->activity_extra_s = out->activity >= 0 ? best : NAN;
  if (out->activity < 0)
    return;
  /* the most frequent frame of that activity inside the slow steps */
  const struct gw_recording *rec = c->rec;
  int32_t top = -1;
  size_t top_n = 0;
  int32_t *frames = NULL;
  size_t nf = 0, cap = 0;
  for (size_t i = 0; i < n; i++) {
    if (!slow_member[i])
      continue;
    for (size_t k = py_lower(rec, rows[i]->start_ns); k < rec->npy_ticks && rec->py_ticks[k].t_ns < rows[i]->end_ns;
         k++) {
      const struct gw_py_tick *p = &rec->py_ticks[k];
      if (!py_sample_ours(c, p) || gw_py_sample_cause(&c->causes, p) != out->activity || p->frame < 0)
        continue;
      if (nf == cap) {
        cap = cap ? 2 * cap : 64;
        frames = gw_xrealloc(frames, cap * sizeof *frames);
      }
      frames[nf++] = p->frame;
    }
  }
  for (size_t i = 0; i < nf; i++) {
    size_t same = 0;
    for (size_t j = 0; j < nf; j++)
      same += frames[j] == frames[i];
    if (same > top_n) {
      top_n = same;
      top = frames[i];
    }
  }
  free(frames);
  for (size_t i = 0; top >= 0 && i < rec->npy_frames; i++)
    if (rec->py_frames[i].id == top) {
      const struct gw_py_frame_info *fr = &rec->py_frames[i];
      const char *base = strrchr(fr->file, '/');
      snprintf(out->frame_text, sizeof out->frame_text, "%.40s:%d in %.40s", base ? base + 1 : fr->file, fr->line,
               fr->func);
    }
}

/* Whether the recurring slow steps are a parallel loader's round
 * (GW_FETCH_RHYTHM_MAX_STEPS says why): short period, each wait longer than
 * the steps between, and nothing the samples saw in them that is work of
 * its own (an evaluation, a checkpoint, a sync, a collective ...). */
static int fetch_rhythm(const struct gw_step_breakdown *b) {
  if (!b->recurring || b->period_steps > GW_FETCH_RHYTHM_MAX_STEPS || b->count <= 0 || isnan(b->period_s))
    return 0;
  switch (b->activity) {
  case -1: /* no samples and no measured data wait name it */
  case GW_PYACT_DATA_WAIT:
  case GW_PYACT_DATA_INLINE:
  case GW_PYACT_H2D:
  case GW_PYACT_IDLE: /* waiting on a queue of the program's own */
    break;
  default:
    return 0;
  }
  return b->extra_s / b->count >= b->period_s;
}

/* The launching threads' CPU over [start_ns, end_ns], in cores: the mean of
 * the host rows whose whole second lies inside it (a row holds the CPU time
 * of the second that ends at it). */
static double launch_cpu_cores_in(const struct gw_host_series *h, int64_t start_ns, int64_t end_ns) {
  if (!h->launch_cpu_pct)
    return NAN;
  double sum = 0;
  size_t rows = 0;
  for (size_t i = gw_first_at_or_after(h->t_ns, h->n, start_ns) + 1; i < h->n && h->t_ns[i] <= end_ns; i++)
    if (!isnan(h->launch_cpu_pct[i])) {
      sum += h->launch_cpu_pct[i] / 100.0;
      rows++;
    }
  return rows >= GW_LAUNCH_CPU_MIN_ROWS ? sum / (double)rows : NAN;
}

void gw_step_breakdown(const struct gw_recording *rec, struct gw_step_breakdown *out) {
  memset(out, 0, sizeof *out);
  out->gpu = -1;
  out->activity = -1;
  out->step_median_s = out->step_mad_s = out->slow_threshold_s = NAN;
  out->shape_explained = out->shape_corr = out->step_cv = out->period_s = out->extra_s = NAN;
  out->activity_extra_s = out->period_spread_steps = out->launch_cpu_cores = out->queue_busy_frac = NAN;
  if (!rec->nsteps)
    return;
  int64_t pid = gw_step_process_pick(rec);
  const struct gw_step_row **rows = gw_xcalloc(rec->nsteps, sizeof *rows);
  size_t n = 0;
  for (size_t i = 0; i < rec->nsteps; i++)
    if (pid < 0 || rec->steps[i].pid == pid)
      rows[n++] = &rec->steps[i];
  qsort(rows, n, sizeof *rows, cmp_row_ptr);
  unsigned char *first_visit = gw_xcalloc(n + 1, 1);
  mark_first_visits(rows, n, first_visit);
  /* the loop's first step is its warm-up (step_process.c), then MSER's cut */
  size_t skip0 = pid >= 0 && gw_step_warmup_index(rec, pid) != SIZE_MAX ? 1 : 0;
  if (n <= skip0 + 1) {
    free(first_visit);
    free(rows);
    return;
  }
  const struct gw_step_row **st = rows + skip0;
  size_t m = n - skip0;
  double *d = gw_xcalloc(m, sizeof *d);
  for (size_t i = 0; i < m; i++)
    d[i] = (double)(st[i]->end_ns - st[i]->start_ns) / 1e9;
  struct gw_steady steady;
  gw_steady_find(d, m, &steady);
  size_t first = steady.state == GW_STEADY_FOUND ? steady.first : 0;
  st += first;
  m -= first;
  memmove(d, d + first, m * sizeof *d);

  out->found = 1;
  out->pid = pid;
  out->first_steady = skip0 + first;
  out->nsteady = m;
  out->py_hz = rec->py_sampling_hz;
  struct ctx c;
  ctx_open(rec, pid, &c);
  out->gpu = c.g ? c.g->gpu : -1;
  out->gpu_from_trace = c.traced;
  out->gpu_period_s = c.busy ? 0 : (double)c.typical_dt_ns / 1e9;
  out->step_median_s = gw_stats_median(d, m);
  out->step_mad_s = gw_stats_mad(d, m);
  out->slow_threshold_s =
      out->step_median_s + GW_SLOW_STEP_MADS * fmax(out->step_mad_s, GW_SLOW_STEP_MAD_FLOOR_FRAC * out->step_median_s);

  /* A step that met a new input shape is slow for its shape (re-planning,
   * allocating, compiling: the dynamic-shape evidence below and
   * compile_shapes.c), not for work on a schedule; it is left out here. */
  const unsigned char *fv = first_visit + skip0 + first;
  /* int64_t, as gw_first_at_or_after searches them (has_partner_in) */
  int64_t *slow = gw_xcalloc(m, sizeof *slow);
  size_t ns = 0;
  for (size_t i = 0; i < m; i++)
    if (d[i] > out->slow_threshold_s && !fv[i])
      slow[ns++] = (int64_t)i;
  out->nslow = ns;
  double *excess = gw_xcalloc(ns + 1, sizeof *excess);
  for (size_t i = 0; i < ns; i++)
    excess[i] = d[slow[i]] - out->step_median_s;
  unsigned char *member = gw_xcalloc(ns + 1, 1), *slow_step = gw_xcalloc(m, 1);
  find_recurrence(slow, excess, ns, m, out, member);
  free(excess);
  out->extra_s = out->recurring ? 0 : NAN;
  for (size_t i = 0; i < ns; i++)
    if (member[i]) {
      slow_step[slow[i]] = 1;
      out->extra_s += d[slow[i]] - out->step_median_s;
    }
  double steady_s = 0;
  for (size_t i = 0; i < m; i++)
    steady_s += d[i];
  if (out->recurring && out->extra_s < GW_RECUR_MIN_SHARE * steady_s) {
    out->recurring = 0; /* real, but too small to matter */
    out->extra_s = NAN;
    memset(slow_step, 0, m);
  }
  if (out->recurring)
    out->period_s = out->period_steps * out->step_median_s;

  struct acc acc[GW_STEP_NKINDS] = {{0}};
  for (size_t i = 0; i < m; i++)
    add_step(&c, st[i], &acc[slow_step[i] ? GW_STEP_KIND_SLOW : GW_STEP_KIND_TYPICAL]);
  for (int k = 0; k < GW_STEP_NKINDS; k++)
    finish(&c, &acc[k], &out->kinds[k]);
  const struct gw_step_split *slow_split = &out->kinds[GW_STEP_KIND_SLOW];
  if (out->recurring && !isnan(slow_split->gpu_busy_s) && slow_split->wall_s > 0 &&
      slow_split->gpu_busy_s >= GW_QUEUE_PACED_BUSY_FRAC * slow_split->wall_s) {
    /* no stall: every step is the loop's typical work, split again as one
     * kind; what the thread did in the slow ones is kept for the text (an
     * evaluation the queued work hid, or the launches that met a full queue) */
    name_activity(&c, st, m, slow_step, out);
    out->queue_paced = 1;
    out->queue_busy_frac = slow_split->gpu_busy_s / slow_split->wall_s;
    out->recurring = 0;
    out->extra_s = out->period_s = NAN;
    memset(slow_step, 0, m);
    memset(acc, 0, sizeof acc);
    for (size_t i = 0; i < m; i++)
      add_step(&c, st[i], &acc[GW_STEP_KIND_TYPICAL]);
    for (int k = 0; k < GW_STEP_NKINDS; k++)
      finish(&c, &acc[k], &out->kinds[k]);
  }
  if (out->recurring)
    name_activity(&c, st, m, slow_step, out);
  out->fetch_rhythm = fetch_rhythm(out);
  out->launch_cpu_cores = launch_cpu_cores_in(&rec->host, st[0]->start_ns, st[m - 1]->end_ns);
  shape_fit(st, fv, m, slow_step, out);
  ctx_close(&c);
  free(slow);
  free(member);
  free(slow_step);
  free(d);
  free(first_visit);
  free(rows);
}

double gw_step_typical_share(const struct gw_step_breakdown *b, double part_s) {
  const struct gw_step_split *t = &b->kinds[GW_STEP_KIND_TYPICAL];
  if (!b->found || t->nsteps == 0 || isnan(part_s) || isnan(t->wall_s) || t->wall_s <= 0)
    return NAN;
  return part_s / t->wall_s;
}
