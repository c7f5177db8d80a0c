/* Comparing two run summaries (see comparison.h, method in docs/compare.md). */
#include "compare/comparison.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"

const char *gw_verdict_id(enum gw_verdict v) {
  switch (v) {
  case GW_VERDICT_BETTER:
    return "better";
  case GW_VERDICT_WORSE:
    return "worse";
  case GW_VERDICT_SAME:
    return "no_significant_change";
  case GW_VERDICT_UNDECIDED:
    break;
  }
  return "undecided";
}

const char *gw_verdict_title(enum gw_verdict v) {
  return v == GW_VERDICT_SAME ? "no significant change" : gw_verdict_id(v);
}

const char *gw_compare_basis_id(enum gw_compare_basis b) {
  switch (b) {
  case GW_BASIS_STEPS:
    return "step_times";
  case GW_BASIS_REPORTED:
    return "reported_throughput";
  case GW_BASIS_ACTIVITY:
    return "sm_activity";
  case GW_BASIS_NONE:
    break;
  }
  return "none";
}

enum gw_verdict gw_verdict_of(const struct gw_ratio_ci *r, int higher_is_better, double threshold) {
  if (isnan(r->point) || isnan(r->lo) || isnan(r->hi))
    return GW_VERDICT_UNDECIDED;
  int up = r->lo > 1 && r->point >= 1 + threshold;
  int down = r->hi < 1 && r->point <= 1 - threshold;
  if (up)
    return higher_is_better ? GW_VERDICT_BETTER : GW_VERDICT_WORSE;
  if (down)
    return higher_is_better ? GW_VERDICT_WORSE : GW_VERDICT_BETTER;
  return GW_VERDICT_SAME;
}

/* A limit of the comparison: fmt (marked with N_) in English for JSON and
 * translated for people. */
static void note(struct gw_comparison *c, const char *fmt, ...) GW_PRINTF(2, 3);
static void note(struct gw_comparison *c, const char *fmt, ...) {
  if (c->nnotes >= (int)(sizeof c->notes / sizeof c->notes[0]))
    return;
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  vsnprintf(c->notes[c->nnotes], sizeof c->notes[0], fmt, ap);
  vsnprintf(c->notes_shown[c->nnotes], sizeof c->notes_shown[0], gw_gettext(fmt), ap2);
  va_end(ap2);
  va_end(ap);
  c->nnotes++;
}

/* The basis sentence, in English (translate 0, for JSON) or in the language
 * of the messages (translate 1); vsnprintf so that long names are cut, not
 * refused. fmt is marked with N_. */
static void basis(struct gw_comparison *c, int translate, const char *fmt, ...) GW_PRINTF(3, 4);
static void basis(struct gw_comparison *c, int translate, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (translate)
    vsnprintf(c->basis_shown, sizeof c->basis_shown, gw_gettext(fmt), ap);
  else
    vsnprintf(c->basis_text, sizeof c->basis_text, fmt, ap);
  va_end(ap);
}

static int known(double v) {
  return !isnan(v) && v > 0;
}

static void by_steps(struct gw_comparison *c) {
  const struct gw_run_summary *a = c->a, *b = c->b;
  c->basis = GW_BASIS_STEPS;
  c->per_sample = known(a->samples_per_step) && known(b->samples_per_step);
  c->throughput_a = gw_run_throughput(a, c->per_sample);
  c->throughput_b = gw_run_throughput(b, c->per_sample);
  /* Throughput is steps over the time they took, so its ratio is the inverse
   * ratio of mean step times, scaled by the samples each step carries. */
  struct gw_ratio_ci mean;
  double k = c->per_sample ? b->samples_per_step / a->samples_per_step : 1;
  if (gw_bootstrap_ratio(a->step_s, a->nsteps, b->step_s, b->nsteps, GW_BOOT_MEAN, GW_BOOT_RESAMPLES, GW_BOOT_LEVEL,
                         GW_BOOT_SEED, &mean) == 0) {
    c->throughput.point = k / mean.point;
    c->throughput.lo = k / mean.hi;
    c->throughput.hi = k / mean.lo;
  }
  (void)gw_bootstrap_ratio(a->step_s, a->nsteps, b->step_s, b->nsteps, GW_BOOT_MEDIAN, GW_BOOT_RESAMPLES, GW_BOOT_LEVEL,
                           GW_BOOT_SEED, &c->step_median);
  c->verdict = gw_verdict_of(&c->throughput, 1, GW_PRACTICAL_CHANGE);
  c->median_verdict = gw_verdict_of(&c->step_median, 0, GW_PRACTICAL_CHANGE);

  for (int t = 0; t < 2; t++) {
    char sa[400], sb[400];
    gw_step_source_describe(a, t, sa, sizeof sa);
    gw_step_source_describe(b, t, sb, sizeof sb);
    if (a->step_source == b->step_source && a->step_source == GW_STEPS_LOG)
      basis(c, t,
            N_("per-step times from each program's step log (NAME.truth.json beside each recording): %zu and %zu "
               "steps"),
            a->nsteps, b->nsteps);
    else if (a->step_source == b->step_source)
      /* TRANSLATORS: %s is where the step times come from, e.g. "the
       * recording's step table"; then the step counts of the two runs */
      basis(c, t, N_("per-step times from %s: %zu and %zu steps"), sa, a->nsteps, b->nsteps);
    else
      /* TRANSLATORS: "per-step times from SOURCE for RUN and SOURCE for RUN" */
      basis(c, t, N_("per-step times from %s for %s and %s for %s"), sa, a->name, sb, b->name);
  }
  if (a->step_source == GW_STEPS_ACTIVITY || b->step_source == GW_STEPS_ACTIVITY)
    note(c,
         N_("steps estimated from SM activity are only as fine as the sampling interval: mark steps for exact times"));
  if (!c->per_sample && (known(a->samples_per_step) || known(b->samples_per_step)))
    note(c, N_("only one run knows its samples per step, so throughput is compared in steps/s"));
  else if (c->per_sample && a->samples_per_step != b->samples_per_step)
    note(c, N_("samples per step differ (%g and %g): throughput is compared in samples/s"), a->samples_per_step,
         b->samples_per_step);
}

static void by_reported(struct gw_comparison *c) {
  c->basis = GW_BASIS_REPORTED;
  c->per_sample = 1;
  c->throughput_a = c->a->samples_per_s;
  c->throughput_b = c->b->samples_per_s;
  c->throughput.point = c->throughput_b / c->throughput_a;
  c->verdict = c->median_verdict = GW_VERDICT_UNDECIDED;
  for (int t = 0; t < 2; t++)
    basis(c, t,
          N_("the samples/s the programs reported (no step times in %s): single numbers, so no interval and no "
             "verdict"),
          c->a->nsteps < 2 ? c->a->name : c->b->name);
}

static void by_activity(struct gw_comparison *c) {
  c->basis = GW_BASIS_ACTIVITY;
  c->throughput_a = c->throughput_b = NAN;
  c->verdict = c->median_verdict = GW_VERDICT_UNDECIDED;
  for (int t = 0; t < 2; t++)
    basis(c, t,
          N_("mean SM activity only (%.1f%% -> %.1f%%): no step times and no reported throughput; it shows how busy "
             "the GPU was, not how fast the job ran, so there is no verdict"),
          c->a->sm_mean_pct, c->b->sm_mean_pct);
}

void gw_compare_pair(const struct gw_run_summary *a, const struct gw_run_summary *b, const char *const *ignore,
                     int nignore, struct gw_comparison *out) {
  memset(out, 0, sizeof *out);
  out->a = a;
  out->b = b;
  out->throughput = out->step_median = (struct gw_ratio_ci){NAN, NAN, NAN};
  out->throughput_a = out->throughput_b = NAN;
  if (a->nsteps >= 2 && b->nsteps >= 2)
    by_steps(out);
  else if (known(a->samples_per_s) && known(b->samples_per_s))
    by_reported(out);
  else if (!isnan(a->sm_mean_pct) && !isnan(b->sm_mean_pct))
    by_activity(out);
  else {
    out->basis = GW_BASIS_NONE;
    out->verdict = out->median_verdict = GW_VERDICT_UNDECIDED;
    for (int t = 0; t < 2; t++)
      basis(out, t, N_("nothing: one of the runs has no step times, no reported throughput and no GPU activity"));
  }
  gw_run_setup_diff(&a->setup, &b->setup, ignore, nignore, &out->changes);
  out->show_declared = b->setup.change[0] && strcmp(a->setup.change, b->setup.change) != 0;
}
