/* Ranking the findings and capping their shares (see finding_rank.h). */
#include "analysis/finding_rank.h"

#include <math.h>
#include <string.h>

#include "analysis/rules.h"

/* Faults first, then the largest speed-up the fix can give, then confidence. */
int gw_finding_cmp(const void *a, const void *b) {
  const struct gw_finding *x = a, *y = b;
  if (x->fix_first != y->fix_first)
    return y->fix_first - x->fix_first;
  if (x->speedup_max != y->speedup_max)
    return x->speedup_max > y->speedup_max ? -1 : 1;
  return (x->confidence < y->confidence) - (x->confidence > y->confidence);
}

struct gw_finding *gw_finding_of_class(const struct gw_diagnosis *dx, const char *class_id) {
  for (int i = 0; i < dx->nfindings; i++)
    if (strcmp(dx->findings[i].class_id, class_id) == 0)
      return (struct gw_finding *)&dx->findings[i];
  return NULL;
}

void gw_finding_remove(struct gw_diagnosis *dx, struct gw_finding *f) {
  int j = (int)(f - dx->findings);
  memmove(&dx->findings[j], &dx->findings[j + 1], (size_t)(dx->nfindings - j - 1) * sizeof *f);
  dx->nfindings--;
}

void gw_diagnosis_cap_shares(struct gw_diagnosis *dx) {
  /* Findings split one lost time: their shares of it never add up to more
   * than the whole. Rules estimate their time from overlapping signals (the
   * host's busy core is both "preparing data" and "re-planning shapes"), so
   * in rank order each finding keeps at most what the findings before it
   * left: the verdict keeps its own evidence, the overlap is charged to the
   * lower-ranked finding, and its active share and speed-up follow. */
  double left = 1;
  for (int i = 0; i < dx->nfindings; i++) {
    struct gw_finding *f = &dx->findings[i];
    if (f->share_of_lost > left) {
      f->share_of_active_own = fmax(f->share_of_active_own, f->share_of_active);
      f->share_of_lost = left;
      f->share_of_active = dx->active_ns > 0 ? left * dx->lost_ns / dx->active_ns : 0;
      f->speedup_max = 1 / (1 - fmin(f->share_of_active, 0.99));
    }
    left -= f->share_of_lost;
  }
  /* The part of the ledger's "no signal explains it" row that findings
   * claim from indirect signals: input_pipeline (the host's busy core) and
   * schedule_shape (busy helpers, steps above the median) may count time
   * beyond their own rows, and only the idle: other row can hold it. The
   * row is then titled as claimed (gw_diagnosis_row_title_id). */
  double other = dx->total.row_ns[GW_ROW_IDLE_OTHER], claimed = 0;
  for (int i = 0; i < dx->nfindings; i++) {
    const struct gw_rule *r = gw_rule_find(dx->findings[i].class_id);
    if (!r || (strcmp(r->id, "input_pipeline") != 0 && strcmp(r->id, "schedule_shape") != 0))
      continue;
    double beyond = dx->findings[i].share_of_active * dx->active_ns - dx->total.row_ns[r->ledger_row];
    if (beyond > 0)
      claimed += beyond;
  }
  dx->other_claimed_ns = fmin(other, claimed);
}
