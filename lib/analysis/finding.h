/* A finding: one bottleneck class that holds in a recording, with its
 * shares of the lost time, its confidence, its evidence (data, see
 * evidence.h) and its fixes. What a rule fills; the diagnosis
 * (diagnosis_model.h) holds the findings of a run. */
#ifndef GW_ANALYSIS_FINDING_H
#define GW_ANALYSIS_FINDING_H

#include <stdint.h>

#include "analysis/evidence.h"

#define GW_MAX_EVIDENCE 8
#define GW_MAX_FIXES 6

/* A fix as data: a stable snake_case id ("small_batch.raise_batch"), a row
 * of the message table in render/fix_text.c, which words the change and why
 * it helps at render time. */
struct gw_fix {
  const char *id;
};

struct gw_finding {
  const char *class_id;       /* a registry id (analysis/rule_registry.h); render/class_text.c words its title */
  double share_of_lost;       /* share of the lost GPU time this class explains, 0..1 */
  double share_of_active;     /* the same time as a share of the active GPU time, 0..1 */
  double confidence;          /* 0..1, calibrated: the rate findings of this raw score were right */
  double confidence_raw;      /* the rule's additive evidence score, 0..1 */
  double speedup_max;         /* 1 / (1 - share_of_active): the run's speed-up if this class's time were all removed */
  int fix_first;              /* a fault (Xid, ECC) to fix before anything else: ranks first whatever its share */
  double share_of_active_own; /* the largest share its own signals gave it before the cap (0: never capped) */
  int nevidence;
  struct gw_evidence evidence[GW_MAX_EVIDENCE]; /* data: ids and numbers (analysis/evidence.h) */
  int nfixes;
  struct gw_fix fixes[GW_MAX_FIXES]; /* cheapest first */
};

/* Adds the evidence id with nargs values to f (dropped past GW_MAX_EVIDENCE,
 * values past GW_EVIDENCE_MAX_VALUES); texts are copied. */
void gw_finding_add_evidence(struct gw_finding *f, const char *id, int gpu, int64_t t0_ns, int64_t t1_ns, int nargs,
                             const struct gw_evidence_arg *args);
/* gw_evidence(f, id, gpu, t0_ns, t1_ns, GW_NUM(...), ...): the values listed
 * in place; an evidence without values calls gw_finding_add_evidence with 0. */
#define gw_evidence(f, id, gpu, t0_ns, t1_ns, ...)                                                                     \
  gw_finding_add_evidence(                                                                                             \
      (f), (id), (gpu), (t0_ns), (t1_ns),                                                                              \
      (int)(sizeof((const struct gw_evidence_arg[]){__VA_ARGS__}) / sizeof(struct gw_evidence_arg)),                   \
      (const struct gw_evidence_arg[]){__VA_ARGS__})

/* Adds the fix id to a finding (dropped past GW_MAX_FIXES). */
void gw_finding_fix(struct gw_finding *f, const char *id);
/* Adds the n fix ids in order, as gw_finding_fix each. */
void gw_finding_add_fixes(struct gw_finding *f, int n, const char *const *ids);
/* gw_fixes(f, "class.fix", ...): the fixes listed in place, in the order a
 * user should try them. */
#define gw_fixes(f, ...)                                                                                               \
  gw_finding_add_fixes((f), (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)),                  \
                       (const char *const[]){__VA_ARGS__})

#endif
