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
