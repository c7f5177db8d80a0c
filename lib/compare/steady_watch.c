/* Steady seconds while a run goes on (see steady_watch.h). */
#include "compare/steady_watch.h"

#include <stdlib.h>

#include "compare/run_summary.h"
#include "core/util.h"

#define MAX_PROCS 64 /* ranks and helper processes with steps; more are not followed */

struct proc {
  int64_t pid, rank;
  int optimizer; /* its steps are optimizer steps: DataLoader iterations no longer count */
  size_t n, cap;
  int64_t *start_ns, *end_ns;
};

struct gw_steady_watch {
  double steady_seconds;
  struct proc procs[MAX_PROCS];
  int nprocs;
  int changed, reached;
};

struct gw_steady_watch *gw_steady_watch_new(double steady_seconds) {
  struct gw_steady_watch *w = gw_xcalloc(1, sizeof *w);
  w->steady_seconds = steady_seconds;
  return w;
}

void gw_steady_watch_free(struct gw_steady_watch *w) {
  if (!w)
    return;
  for (int i = 0; i < w->nprocs; i++) {
    free(w->procs[i].start_ns);
    free(w->procs[i].end_ns);
  }
  free(w);
}

static struct proc *proc_of(struct gw_steady_watch *w, int64_t pid, int64_t rank) {
  for (int i = 0; i < w->nprocs; i++)
    if (w->procs[i].pid == pid)
      return &w->procs[i];
  if (w->nprocs == MAX_PROCS)
    return NULL;
  struct proc *p = &w->procs[w->nprocs++];
  p->pid = pid;
  p->rank = rank;
  return p;
}

void gw_steady_watch_step(void *ctx, const struct gw_python_step *step) {
  struct gw_steady_watch *w = ctx;
  struct proc *p = proc_of(w, step->pid, step->rank);
  if (!p || (p->optimizer && !step->optimizer))
    return;
  if (step->optimizer && !p->optimizer) {
    p->optimizer = 1; /* the iterations before its first optimizer step were not steps (pyhook_collect.c) */
    p->n = 0;
  }
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 256;
    p->start_ns = gw_xrealloc(p->start_ns, p->cap * sizeof *p->start_ns);
    p->end_ns = gw_xrealloc(p->end_ns, p->cap * sizeof *p->end_ns);
  }
  p->start_ns[p->n] = step->start_ns;
  p->end_ns[p->n] = step->end_ns;
  p->n++;
  w->changed = 1;
}

/* The lowest rank, unknown ranks last, then most steps: as gw_step_process_pick. */
static int leads(const struct proc *a, const struct proc *b) {
  if ((a->rank >= 0) != (b->rank >= 0))
    return a->rank >= 0;
  if (a->rank >= 0 && a->rank != b->rank)
    return a->rank < b->rank;
  return a->n > b->n;
}

static const struct proc *lead(const struct gw_steady_watch *w) {
  const struct proc *best = NULL;
  for (int i = 0; i < w->nprocs; i++)
    if (!best || leads(&w->procs[i], best))
      best = &w->procs[i];
  return best;
}

int gw_steady_watch_tick(void *ctx, const struct gw_tick *tick) {
  (void)tick;
  struct gw_steady_watch *w = ctx;
  if (w->reached)
    return 1;
  if (!w->changed)
    return 0;
  w->changed = 0;
  const struct proc *p = lead(w);
  if (!p || p->n < 2)
    return 0;
  /* Step times as the comparison takes them (run_summary.c): the first step
   * left out, each step from its start to the next one's. The marks are
   * sorted in place, which leaves later ticks the same steps. */
  size_t n = p->n - 1;
  double *step_s = gw_xcalloc(n, sizeof *step_s);
  size_t k = gw_step_times_from_marks(p->start_ns + 1, p->end_ns + 1, n, step_s);
  struct gw_steady st;
  gw_steady_find(step_s, k, &st);
  free(step_s);
  w->reached = st.state == GW_STEADY_FOUND && st.steady_s >= w->steady_seconds;
  return w->reached;
}

int gw_steady_watch_reached(const struct gw_steady_watch *w) {
  return w && w->reached;
}
