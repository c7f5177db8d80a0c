#include "analysis/step_process.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/stats.h"
#include "analysis/thresholds.h"

/* Rank first (unknown ranks last), then the number of steps. */
static int better(int64_t rank_a, size_t n_a, int64_t rank_b, size_t n_b) {
  if ((rank_a >= 0) != (rank_b >= 0))
    return rank_a >= 0;
  if (rank_a >= 0 && rank_a != rank_b)
    return rank_a < rank_b;
  return n_a > n_b;
}

static size_t count_pid(const struct gw_recording *rec, int64_t pid) {
  size_t n = 0;
  for (size_t i = 0; i < rec->nsteps; i++)
    n += rec->steps[i].pid == pid;
  return n;
}

int64_t gw_step_process_pick(const struct gw_recording *rec) {
  int64_t best = -1, best_rank = -1;
  size_t best_n = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid < 0 || s->pid == best)
      continue;
    size_t n = count_pid(rec, s->pid);
    if (best < 0 || better(s->rank, n, best_rank, best_n)) {
      best = s->pid;
      best_rank = s->rank;
      best_n = n;
    }
  }
  return best;
}

static int by_rank(const void *x, const void *y) {
  const struct gw_step_process *a = x, *b = y;
  if (better(a->rank, a->nsteps, b->rank, b->nsteps))
    return -1;
  if (better(b->rank, b->nsteps, a->rank, a->nsteps))
    return 1;
  return (a->pid > b->pid) - (a->pid < b->pid);
}

/* The step of pid that started first when it has loop_min_steps or more
 * (warm-up: see thresholds.c), else SIZE_MAX. */
size_t gw_step_warmup_index(const struct gw_recording *rec, int64_t pid) {
  size_t first = SIZE_MAX, n = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    if (rec->steps[i].pid != pid)
      continue;
    n++;
    if (first == SIZE_MAX || rec->steps[i].start_ns < rec->steps[first].start_ns)
      first = i;
  }
  return n >= (size_t)gw_thr.loop_min_steps ? first : SIZE_MAX;
}

static void summarise(const struct gw_recording *rec, struct gw_step_process *p) {
  size_t n = 0, nb = 0, ns = 0;
  double *dur = gw_xcalloc(rec->nsteps + 1, sizeof *dur), *batch = gw_xcalloc(rec->nsteps + 1, sizeof *batch),
         *samples = gw_xcalloc(rec->nsteps + 1, sizeof *samples);
  double wait_s = 0, total_s = 0, samples_sum = 0;
  int wait_known = 1;
  int64_t first = 0, last = 0;
  size_t warmup = gw_step_warmup_index(rec, p->pid);
  p->warmup_s = warmup == SIZE_MAX ? NAN : (double)(rec->steps[warmup].end_ns - rec->steps[warmup].start_ns) / 1e9;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid != p->pid)
      continue;
    p->rank = s->rank;
    if (i == warmup)
      continue; /* one-time costs, not the loop's rate */
    double d = (double)(s->end_ns - s->start_ns) / 1e9;
    dur[n++] = d;
    total_s += d;
    if (s->data_wait_ns >= 0)
      wait_s += (double)s->data_wait_ns / 1e9;
    else
      wait_known = 0;
    if (s->batch_size > 0)
      batch[nb++] = (double)s->batch_size;
    if (s->samples > 0) {
      samples[ns++] = (double)s->samples;
      samples_sum += (double)s->samples;
    }
    if (!first || s->start_ns < first)
      first = s->start_ns;
    if (s->end_ns > last)
      last = s->end_ns;
  }
  p->nsteps = n;
  double span_s = (double)(last - first) / 1e9;
  /* The hook's steps are back to back (each starts where the previous ended):
   * steps over their span is the rate the loop kept. */
  p->steps_per_s = n >= 2 && span_s > 0 ? (double)n / span_s : NAN;
  p->samples_per_s = ns == n && n >= 2 && span_s > 0 ? samples_sum / span_s : NAN;
  p->step_p50_s = gw_stats_quantile(dur, n, 0.5);
  p->step_p90_s = gw_stats_quantile(dur, n, 0.9);
  p->data_wait_share = wait_known && total_s > 0 ? wait_s / total_s : NAN;
  p->batch_size = nb ? gw_stats_median(batch, nb) : NAN;
  p->samples_per_step = ns ? gw_stats_median(samples, ns) : NAN;
  free(dur);
  free(batch);
  free(samples);
}

size_t gw_step_processes(const struct gw_recording *rec, struct gw_step_process *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < rec->nsteps && k < cap; i++) {
    int64_t pid = rec->steps[i].pid;
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++)
      seen = out[j].pid == pid;
    if (seen)
      continue;
    out[k] = (struct gw_step_process){.pid = pid, .rank = -1};
    summarise(rec, &out[k]);
    k++;
  }
  qsort(out, k, sizeof *out, by_rank);
  return k;
}
