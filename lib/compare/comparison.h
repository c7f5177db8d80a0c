/* One run against another: the throughput and median step-time ratios with
 * bootstrap intervals, a plain verdict, and what changed between them. */
#ifndef GW_COMPARE_COMPARISON_H
#define GW_COMPARE_COMPARISON_H

#include "compare/bootstrap.h"
#include "compare/run_summary.h"

/* A change smaller than this is not worth a "better" or "worse", however
 * certain: 2% is within the run-to-run spread of most training jobs. */
#define GW_PRACTICAL_CHANGE 0.02

enum gw_verdict { GW_VERDICT_BETTER, GW_VERDICT_WORSE, GW_VERDICT_SAME, GW_VERDICT_UNDECIDED };
const char *gw_verdict_id(enum gw_verdict v);    /* "better", "worse", "no_significant_change", "undecided" */
const char *gw_verdict_title(enum gw_verdict v); /* "better", "worse", "no significant change", "undecided" */

/* What the comparison rests on. */
enum gw_compare_basis {
  GW_BASIS_STEPS,    /* per-step times of both runs: ratios with intervals */
  GW_BASIS_REPORTED, /* throughput the programs reported, no step times: a point value only */
  GW_BASIS_ACTIVITY, /* neither: mean SM activity, a proxy for work done */
  GW_BASIS_NONE,     /* nothing comparable */
};
const char *gw_compare_basis_id(enum gw_compare_basis b);

struct gw_comparison {
  const struct gw_run_summary *a, *b;
  enum gw_compare_basis basis;
  int per_sample; /* throughput in samples/s (both runs know their samples per step), else steps/s */
  double throughput_a, throughput_b;
  struct gw_ratio_ci throughput;  /* b / a, higher is better; lo/hi NAN without step times */
  struct gw_ratio_ci step_median; /* b / a, lower is better */
  enum gw_verdict verdict;        /* on throughput (or the basis' proxy) */
  enum gw_verdict median_verdict; /* the same test on the median step time */
  char basis_text[400];           /* what the comparison rests on, in words (English, for JSON) */
  char basis_shown[600];          /* the same in the language of the messages (text, Markdown) */
  int nnotes;
  char notes[4][320];       /* its limits (English, for JSON) */
  char notes_shown[4][480]; /* the same in the language of the messages */
  int show_declared;        /* b's declared change differs from a's and b directly follows a */
  struct gw_change_list changes;
};

/* Verdict of ratio r (b / a) with its interval: better when the interval
 * excludes 1.0 and the change exceeds threshold in the good direction, worse
 * in the other, no significant change otherwise; undecided without interval. */
enum gw_verdict gw_verdict_of(const struct gw_ratio_ci *r, int higher_is_better, double threshold);

void gw_compare_pair(const struct gw_run_summary *a, const struct gw_run_summary *b, const char *const *ignore,
                     int nignore, struct gw_comparison *out);

#endif
