/* The six bottleneck classes as a table: one row per class, one file per
 * rule (rule_<class>.c). Adding a class is one row and one file. */
#ifndef GW_RULES_H
#define GW_RULES_H

#include "analysis/diagnosis.h"

struct gw_rule {
  const char *id;    /* fixed id used in JSON, tests and fixtures */
  const char *title; /* words for people */
  const char *seed_section;
  /* Fill f (class_id, title preset, shares and confidence zero) and return
   * 1 when the class holds in this recording; 0 leaves f unused. */
  int (*evaluate)(const struct gw_rule_input *in, struct gw_finding *f);
  /* quick reference for `gpuwhy explain` */
  const char *signals, *confirm, *fixes;
};

extern const struct gw_rule gw_rules[];
extern const int gw_nrules;

const struct gw_rule *gw_rule_find(const char *id);

/* The per-class evaluators (rule_<class>.c). */
int gw_rule_input_pipeline(const struct gw_rule_input *in, struct gw_finding *f);
int gw_rule_small_batch(const struct gw_rule_input *in, struct gw_finding *f);
int gw_rule_launch_overhead(const struct gw_rule_input *in, struct gw_finding *f);
int gw_rule_multi_gpu_sync(const struct gw_rule_input *in, struct gw_finding *f);
int gw_rule_hardware_env(const struct gw_rule_input *in, struct gw_finding *f);
int gw_rule_schedule_shape(const struct gw_rule_input *in, struct gw_finding *f);

/* The GPU whose device memory rises and falls repeatedly (allocations that
 * differ from step to step: varying shapes), or NULL. */
const struct gw_gpu_profile *gw_rule_mem_churn(const struct gw_diagnosis *dx);
/* 1 when the training process itself prepares data: no loader workers and
 * it runs CPU tensor work on several cores as a habit of the run. */
int gw_rule_main_prepares_data(const struct gw_diagnosis *dx);

/* Shared by rules: share of the active time of all GPUs held by ns. */
double gw_rule_share(const struct gw_diagnosis *dx, double ns);

#endif
