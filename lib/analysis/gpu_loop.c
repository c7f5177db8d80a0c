#include "analysis/gpu_loop.h"

#include <stdlib.h>

#include "analysis/step_process.h"
#include "analysis/thresholds.h"
#include "analysis/timeline.h"

/* Which pid's steps speak for GPU gi; -1 when none can be told. */
static int64_t pid_for_gpu(const struct gw_recording *rec, int gi) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  int64_t only = -1;
  int several = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid < 0)
      continue;
    if (g->trace_pid > 0 && s->pid == g->trace_pid)
      return s->pid; /* the process that ran this GPU's kernels */
    if (only < 0)
      only = s->pid;
    else if (s->pid != only)
      several = 1;
  }
  if (only < 0)
    return -1;
  if (!several)
    /* one process looped: it drives every GPU it uses (one GPU, or a single
     * process over several, as DataParallel does) */
    return g->trace_pid > 0 && rec->ngpus > 1 ? -1 : only;
  if (g->trace_pid > 0)
    return -1; /* the traced process of this GPU has no steps of its own */
  /* Launchers (torchrun, accelerate, deepspeed) give rank r of a host GPU r
   * by default (LOCAL_RANK = device index); with one host that is the rank. */
  for (size_t i = 0; i < rec->nsteps; i++)
    if (rec->steps[i].rank == g->node_gpu && rec->nnodes <= 1)
      return rec->steps[i].pid;
  return -1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The steps of pid (warm-up left out) at least outlier_step_factor times
 * the median, when they are rare enough to be occasional work. */
static void find_outliers(const struct gw_recording *rec, int64_t pid, struct gw_data_waits *out) {
  size_t warmup = gw_step_warmup_index(rec, pid), n = 0;
  double *dur = gw_xcalloc(rec->nsteps + 1, sizeof *dur);
  for (size_t i = 0; i < rec->nsteps; i++)
    if (rec->steps[i].pid == pid && i != warmup)
      dur[n++] = (double)(rec->steps[i].end_ns - rec->steps[i].start_ns);
  if (n < (size_t)gw_thr.outlier_min_steps) {
    free(dur);
    return;
  }
  qsort(dur, n, sizeof *dur, cmp_double);
  double median = n % 2 ? dur[n / 2] : (dur[n / 2 - 1] + dur[n / 2]) / 2;
  free(dur);
  double bound = gw_thr.outlier_step_factor * median;
  out->outliers = gw_xcalloc(n + 1, sizeof *out->outliers);
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid == pid && i != warmup && (double)(s->end_ns - s->start_ns) >= bound)
      out->outliers[out->noutliers++] = (struct gw_interval){s->start_ns, s->end_ns};
  }
  if ((double)out->noutliers > gw_thr.outlier_step_max_frac * (double)n)
    out->noutliers = 0; /* a rhythm of the loop, not occasional work */
  out->noutliers = gw_interval_union(out->outliers, out->noutliers);
}

void gw_data_waits_for_gpu(const struct gw_recording *rec, int gi, struct gw_data_waits *out) {
  *out = (struct gw_data_waits){0};
  int64_t pid = pid_for_gpu(rec, gi);
  if (pid < 0)
    return;
  out->iv = gw_xcalloc(rec->nsteps + 1, sizeof *out->iv);
  size_t nsteps = 0, nknown = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid != pid)
      continue;
    nsteps++;
    nknown += s->data_wait_ns >= 0;
    if (s->data_wait_ns <= 0 || s->end_ns <= s->start_ns)
      continue;
    /* The hook sums the time in DataLoader __next__ between two optimizer
     * steps; the loop asks for its batch first, so the wait opens the step.
     * A step of several batches (gradient accumulation) spreads its waits
     * through the step: placed at its start they keep their length, and
     * their position is off by at most the step's length. */
    int64_t end = s->start_ns + s->data_wait_ns;
    out->iv[out->n++] = (struct gw_interval){s->start_ns, end < s->end_ns ? end : s->end_ns};
  }
  out->n = gw_interval_union(out->iv, out->n);
  out->measured = nsteps >= (size_t)gw_thr.loop_min_steps && nknown == nsteps;
  find_outliers(rec, pid, out);
}

/* The end of the first step and of the last of GPU gi's loop; 0 when it has
 * fewer than loop_min_steps steps. */
static int loop_span(const struct gw_recording *rec, int gi, int64_t *t0, int64_t *t1) {
  int64_t pid = pid_for_gpu(rec, gi);
  if (pid < 0)
    return 0;
  int64_t first_end = INT64_MAX, last_end = INT64_MIN;
  size_t n = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid != pid || s->end_ns <= s->start_ns)
      continue;
    n++;
    if (s->end_ns < first_end)
      first_end = s->end_ns;
    if (s->end_ns > last_end)
      last_end = s->end_ns;
  }
  if (n < (size_t)gw_thr.loop_min_steps || last_end <= first_end)
    return 0;
  *t0 = first_end;
  *t1 = last_end;
  return 1;
}

int gw_loop_clip_times(const struct gw_recording *rec, int gi, int64_t *t0, int64_t *t1) {
  int64_t a, b;
  if (!loop_span(rec, gi, &a, &b))
    return 0;
  int64_t lo = a > *t0 ? a : *t0, hi = b < *t1 ? b : *t1;
  if (hi <= lo)
    return 0; /* the loop and the GPU's work do not overlap: trust the GPU */
  *t0 = lo;
  *t1 = hi;
  return 1;
}

int gw_loop_clip_span(const struct gw_recording *rec, int gi, size_t *first, size_t *last) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  int64_t a, b;
  if (*first >= g->n || *last >= g->n || !loop_span(rec, gi, &a, &b))
    return 0;
  size_t f = *first, l = *last;
  while (f <= l && g->t_ns[f] < a) /* a tick stands for the time up to the next */
    f++;
  while (l >= f && l > 0 && g->t_ns[l] >= b)
    l--;
  if (f > l || g->t_ns[f] < a || g->t_ns[l] >= b)
    return 0;
  *first = f;
  *last = l;
  return 1;
}

int gw_loop_span_ticks(const struct gw_recording *rec, int gi, size_t *first, size_t *last) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  int64_t a, b;
  if (g->n == 0 || !loop_span(rec, gi, &a, &b))
    return 0;
  size_t f = 0, l = g->n;
  while (f < g->n && g->t_ns[f] < a) /* a tick stands for the time up to the next */
    f++;
  while (l > f && g->t_ns[l - 1] >= b)
    l--;
  if (l == f)
    return 0;
  *first = f;
  *last = l - 1;
  return 1;
}

void gw_data_waits_free(struct gw_data_waits *w) {
  if (!w)
    return;
  free(w->iv);
  free(w->outliers);
  *w = (struct gw_data_waits){0};
}

/* Share of [t0, t1) covered by the merged, sorted iv; *cursor walks forward. */
static double covered_share(const struct gw_interval *iv, size_t n, size_t *cursor, int64_t t0, int64_t t1) {
  if (n == 0 || t1 <= t0)
    return 0;
  while (*cursor < n && iv[*cursor].end_ns <= t0)
    (*cursor)++;
  size_t end = *cursor;
  while (end < n && iv[end].start_ns < t1)
    end++;
  return (double)gw_interval_total_ns(iv + *cursor, end - *cursor, t0, t1) / (double)(t1 - t0);
}

double gw_data_wait_share_in(struct gw_data_waits *w, int64_t t0, int64_t t1) {
  return covered_share(w->iv, w->n, &w->cursor, t0, t1);
}

double gw_outlier_share_in(struct gw_data_waits *w, int64_t t0, int64_t t1) {
  return covered_share(w->outliers, w->noutliers, &w->outlier_cursor, t0, t1);
}
