#include "analysis/compile_shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/step_process.h"
#include "core/util.h"

int gw_compile_id_is_recompile(const char *id) {
  /* the id is the message's first word */
  size_t n = strcspn(id, " :");
  const char *slash = NULL;
  for (size_t i = 0; i < n; i++)
    if (id[i] == '/')
      slash = id + i;
  if (!slash || !(slash[1] >= '0' && slash[1] <= '9'))
    return 0;
  long v = 0;
  for (const char *p = slash + 1; *p >= '0' && *p <= '9' && v < 1000000; p++)
    v = v * 10 + (*p - '0');
  return v >= 1;
}

struct visit {
  const char *shape;
  size_t order; /* position among the process's steps */
  double dur_s;
};

static int by_shape_then_order(const void *x, const void *y) {
  const struct visit *a = x, *b = y;
  int c = strcmp(a->shape, b->shape);
  return c ? c : (a->order > b->order) - (a->order < b->order);
}

static void shapes_profile(struct gw_compile_shapes *cs, struct visit *v, size_t n) {
  cs->revisit_median_s = cs->first_visit_excess_s = NAN;
  if (n == 0)
    return;
  cs->shape_known = 1;
  qsort(v, n, sizeof *v, by_shape_then_order);
  double *revisit = gw_xcalloc(n, sizeof *revisit);
  size_t nre = 0;
  for (size_t i = 0; i < n; i++) {
    int first = i == 0 || strcmp(v[i].shape, v[i - 1].shape) != 0;
    cs->nshapes += first;
    if (!first) {
      revisit[nre++] = v[i].dur_s;
      continue;
    }
    if (v[i].order == 0)
      continue; /* the run's first step is warm-up whatever the shapes */
    cs->first_visits++;
    cs->first_visit_s += v[i].dur_s;
    /* keep the slowest first visits, slowest first */
    int at = cs->nshown < GW_SHAPES_SHOWN ? cs->nshown : GW_SHAPES_SHOWN;
    while (at > 0 && cs->shown[at - 1].first_s < v[i].dur_s)
      at--;
    if (at < GW_SHAPES_SHOWN) {
      int last = cs->nshown < GW_SHAPES_SHOWN ? cs->nshown : GW_SHAPES_SHOWN - 1;
      memmove(&cs->shown[at + 1], &cs->shown[at], (size_t)(last - at) * sizeof cs->shown[0]);
      gw_strlcpy(cs->shown[at].shape, v[i].shape, sizeof cs->shown[at].shape);
      cs->shown[at].first_s = v[i].dur_s;
      if (cs->nshown < GW_SHAPES_SHOWN)
        cs->nshown++;
    }
  }
  if (nre > 0) {
    cs->revisit_median_s = gw_stats_median(revisit, nre);
    /* signed: first visits no slower than repeats (input stalls, noise) add up to nothing */
    cs->first_visit_excess_s = fmax(0, cs->first_visit_s - cs->first_visits * cs->revisit_median_s);
  }
  free(revisit);
}

void gw_compile_shapes(const struct gw_recording *rec, struct gw_compile_shapes *cs) {
  memset(cs, 0, sizeof *cs);
  cs->revisit_median_s = cs->first_visit_excess_s = NAN;
  cs->pid = gw_step_process_pick(rec);
  struct visit *v = gw_xcalloc(rec->nsteps + 1, sizeof *v);
  size_t nv = 0;
  int64_t first_ns = 0, last_ns = 0;
  int compiled_before = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid != cs->pid || s->end_ns <= s->start_ns)
      continue;
    double dur_s = (double)(s->end_ns - s->start_ns) / 1e9;
    if (cs->nsteps == 0)
      first_ns = s->start_ns;
    last_ns = s->end_ns;
    if (s->compile_ns >= 0) {
      cs->compile_known = 1;
      cs->compile_s += (double)s->compile_ns / 1e9;
      if (compiled_before)
        cs->later_compile_s += (double)s->compile_ns / 1e9;
      compiled_before |= s->compile_ns > 0;
    }
    if (s->shape[0])
      v[nv++] = (struct visit){s->shape, cs->nsteps, dur_s};
    cs->step_total_s += dur_s;
    cs->nsteps++;
  }
  shapes_profile(cs, v, nv);
  free(v);
  for (size_t i = 0; i < rec->nevents && cs->nsteps > 0; i++) {
    const struct gw_event_row *e = &rec->events[i];
    if (e->t_ns < first_ns || e->t_ns > last_ns || (cs->pid >= 0 && e->pid >= 0 && e->pid != cs->pid))
      continue;
    if (strcmp(e->kind, "compile") == 0) {
      /* a recompiled frame's backward graph, compiled at its first backward
       * (trigger LAZY_BACKWARD), carries the same id: its time counts, it is
       * not another recompilation */
      cs->compiles++;
      cs->ids_known |= e->message[0] != '?';
      if (gw_compile_id_is_recompile(e->message))
        cs->recompile_s += (double)e->code / 1e9;
    } else if (strcmp(e->kind, "recompile") == 0) {
      cs->recompiles++;
      const char *reason = strstr(e->message, ": ");
      if (!cs->first_reason[0])
        gw_strlcpy(cs->first_reason, reason ? reason + 2 : e->message, sizeof cs->first_reason);
    }
  }
}

double gw_compile_shapes_lost_share(const struct gw_compile_shapes *cs) {
  if (cs->step_total_s <= 0)
    return 0;
  /* The first compilation is start-up, paid once; recompilations are paid
   * again for every new shape. Without compile ids, the compile time after
   * the first step that compiled stands for them. */
  double compile_s = cs->ids_known ? cs->recompile_s : cs->compile_known ? cs->later_compile_s : 0;
  double first_visit_s = isnan(cs->first_visit_excess_s) ? 0 : cs->first_visit_excess_s;
  return fmin(1, fmax(compile_s, first_visit_s) / cs->step_total_s);
}

/* The elements of a shape "16x3x224x224"; NAN when it is not one. */
static double shape_elements(const char *shape) {
  double n = 1;
  const char *p = shape;
  while (*p) {
    char *end;
    double v = strtod(p, &end);
    if (end == p || !(v >= 0))
      return NAN;
    n *= v;
    p = *end == 'x' ? end + 1 : end;
    if (*end && *end != 'x')
      return NAN;
  }
  return p == shape ? NAN : n;
}

struct shape_group {
  size_t first;    /* index of its first visit in the sorted visits */
  double elements; /* NAN unknown */
  double steady_s; /* median of its repeats; NAN none */
};

/* Judging that new shapes stall the loop: at least 3 new shapes after the
 * first step, so that one slow step that happened to meet a new shape (a
 * garbage collection, a checkpoint, the last short batch of an epoch) is not
 * taken for a pattern, and 10 repeats of shapes already seen to tell a step's
 * own spread from. */
#define STALL_MIN_REPEATS 10
/* The typical (median) first visit must be slower than 9 in 10 repeats: a
 * new shape that costs nothing more is as likely below the repeats' median
 * as above it, and step time that merely grows with the input (more work in
 * a longer sequence) puts first visits among the repeats, not above them. */
#define STALL_REPEAT_QUANTILE 0.9

static int cmp_start(const void *x, const void *y) {
  const struct gw_shape_stall *a = x, *b = y;
  return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

static int by_elements(const void *x, const void *y) {
  const struct shape_group *a = x, *b = y;
  return (a->elements > b->elements) - (a->elements < b->elements);
}

/* The index of the group nearest in size to elements (by ratio) among n
 * sorted by size; n when none. */
static size_t nearest_size(const struct shape_group *by_size, size_t n, double elements) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (by_size[mid].elements < elements)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == n)
    return n ? n - 1 : n;
  if (lo > 0 && elements / by_size[lo - 1].elements < by_size[lo].elements / elements)
    return lo - 1;
  return lo;
}

size_t gw_shape_stalls(const struct gw_recording *rec, int64_t pid, struct gw_shape_stall **out) {
  *out = NULL;
  struct visit *v = gw_xcalloc(rec->nsteps + 1, sizeof *v);
  int64_t *span = gw_xcalloc(2 * rec->nsteps + 2, sizeof *span);
  size_t nv = 0, order = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if ((pid >= 0 && s->pid != pid) || s->end_ns <= s->start_ns)
      continue;
    if (s->shape[0]) {
      span[2 * nv] = s->start_ns;
      span[2 * nv + 1] = s->end_ns;
      /* the order doubles as the index of the step's span */
      v[nv] = (struct visit){s->shape, order, (double)(s->end_ns - s->start_ns) / 1e9};
      nv++;
    }
    order++;
  }
  /* the span index before sorting: order counts every step, the span only those with a shape */
  size_t *span_of = gw_xcalloc(order + 1, sizeof *span_of);
  for (size_t i = 0; i < nv; i++)
    span_of[v[i].order] = i;
  qsort(v, nv, sizeof *v, by_shape_then_order);
  struct shape_group *g = gw_xcalloc(nv + 1, sizeof *g);
  double *repeats = gw_xcalloc(nv + 1, sizeof *repeats), *firsts = gw_xcalloc(nv + 1, sizeof *firsts);
  size_t ng = 0, nrep = 0, nfirst = 0;
  for (size_t i = 0; i < nv;) {
    size_t j = i + 1;
    while (j < nv && strcmp(v[j].shape, v[i].shape) == 0)
      j++;
    for (size_t k = i + 1; k < j; k++)
      repeats[nrep + k - i - 1] = v[k].dur_s;
    g[ng++] = (struct shape_group){i, shape_elements(v[i].shape),
                                   j > i + 1 ? gw_stats_median(repeats + nrep, j - i - 1) : NAN};
    nrep += j - i - 1;
    if (v[i].order > 0) /* the loop's first step is warm-up whatever its shape */
      firsts[nfirst++] = v[i].dur_s;
    i = j;
  }
  /* per shape, the steady step time its first visit is compared with;
   * judged: the shapes changed as a pattern the steps can be timed against */
  double *steady_of = gw_xcalloc(ng + 1, sizeof *steady_of);
  int judged = 0;
  if (nfirst >= GW_STALL_MIN_FIRST_VISITS && nrep < STALL_MIN_REPEATS && 2 * nfirst >= nv) {
    /* Most steps met a shape never seen before, and too few repeated one for
     * the spread test below. A few repeats still time a step without a new
     * shape: where the typical first visit is slower than every one of them,
     * the excess over their median is the new shape's. With fewer than 3
     * repeats nothing times such a step, and the host work of a first visit
     * (planning kernels, allocating blocks for the new sizes, launching)
     * cannot be split: its new shape is what to fix first either way, since
     * CUDA Graphs replay one shape and compiled code recompiles for each, so
     * the remedies for launching need fixed shapes before they apply. Each
     * first visit's whole host work then goes to its new shape. */
    double steady = 0;
    if (nrep >= GW_STALL_MIN_FIRST_VISITS)
      steady = gw_stats_median(firsts, nfirst) > gw_stats_quantile(repeats, nrep, 1.0) ? gw_stats_median(repeats, nrep)
                                                                                       : INFINITY;
    for (size_t a = 0; a < ng; a++)
      steady_of[a] = steady;
    judged = 1;
  } else if (nfirst >= GW_STALL_MIN_FIRST_VISITS && nrep >= STALL_MIN_REPEATS &&
             gw_stats_median(firsts, nfirst) > gw_stats_quantile(repeats, nrep, STALL_REPEAT_QUANTILE)) {
    double all_steady = gw_stats_median(repeats, nrep);
    /* the shapes seen more than once, by size: the steady times a new shape is compared with */
    struct shape_group *seen = gw_xcalloc(ng + 1, sizeof *seen);
    size_t nseen = 0;
    for (size_t a = 0; a < ng; a++)
      if (!isnan(g[a].steady_s) && g[a].elements > 0)
        seen[nseen++] = g[a];
    qsort(seen, nseen, sizeof *seen, by_elements);
    for (size_t a = 0; a < ng; a++) {
      /* the steady time of this shape: its own repeats, else those of the
       * seen shape nearest in size (step time may grow with the input), else
       * of every repeat */
      double steady = g[a].steady_s;
      if (isnan(steady) && g[a].elements > 0) {
        size_t at = nearest_size(seen, nseen, g[a].elements);
        if (at < nseen)
          steady = seen[at].steady_s;
      }
      steady_of[a] = isnan(steady) ? all_steady : steady;
    }
    free(seen);
    judged = 1;
  }
  size_t nout = 0;
  if (judged) {
    *out = gw_xcalloc(ng + 1, sizeof **out);
    for (size_t a = 0; a < ng; a++) {
      const struct visit *f = &v[g[a].first];
      if (f->order == 0 || !(f->dur_s > steady_of[a]))
        continue;
      size_t si = span_of[f->order];
      (*out)[nout++] = (struct gw_shape_stall){span[2 * si], span[2 * si + 1], (f->dur_s - steady_of[a]) / f->dur_s};
    }
    qsort(*out, nout, sizeof **out, cmp_start);
    if (!nout) {
      free(*out);
      *out = NULL;
    }
  }
  free(steady_of);
  free(g);
  free(repeats);
  free(firsts);
  free(span_of);
  free(span);
  free(v);
  return nout;
}
