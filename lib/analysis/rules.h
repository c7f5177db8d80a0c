/* The bottleneck classes as a table: each rule file (rule_<class>.c)
 * defines its row, analysis/rule_registry.h lists the rows. A row is data
 * only; the class's title and explain texts are worded at render time
 * (render/class_text.c). Adding a class: docs/ARCHITECTURE.md. */
#ifndef GW_RULES_H
#define GW_RULES_H

#include "analysis/diagnosis_model.h"

struct gw_rule {
  const char *id; /* fixed id used in JSON, tests and fixtures; render/class_text.c words it */
  int ledger_row; /* enum gw_ledger_row the class's lost time falls in: its colour in the HTML report */
  /* Fill f (class_id preset, shares and confidence zero) and return 1 when
   * the class holds in this recording; 0 leaves f unused. */
  int (*evaluate)(const struct gw_rule_input *in, struct gw_finding *f);
  /* What the rule reads (enum gw_signal, analysis/rule_signals.h): any one
   * of these lets it see its class; a recording with none of them cannot
   * show the class (a note says so and names sees_with_phrase, a phrase id
   * render/label_text.c words). 0: the rule needs nothing particular. */
  unsigned sees_with;
  const char *sees_with_phrase;
  /* A pattern the class is told by must recur this many times inside the
   * steady run (a period longer than the run over this is not measurable
   * in it); 0: the class is not a recurring pattern. */
  int pattern_repeats;
};

/* The rows, in registry order; gw_nrules == GW_NRULES. */
#define GW_RULE(id) extern const struct gw_rule gw_class_##id;
#include "analysis/rule_registry.h"
#undef GW_RULE
extern const struct gw_rule *const gw_rules[GW_NRULES];
extern const int gw_nrules;

const struct gw_rule *gw_rule_find(const char *id);

/* The GPU whose device memory rises and falls repeatedly (allocations that
 * differ from step to step: varying shapes), or NULL. */
const struct gw_gpu_profile *gw_rule_mem_churn(const struct gw_diagnosis *dx);
/* 1 when the training process itself prepares data: no loader workers and
 * it runs CPU tensor work on several cores as a habit of the run, with no
 * optimizer kept in host memory (gw_rule_host_offload) to explain it. */
int gw_rule_main_prepares_data(const struct gw_diagnosis *dx);
/* 1 when the training process's busy core is not launching the model's
 * kernels: its main thread saturated for half the span and running more than
 * gw_thr.main_per_backward_max times the CPU of the autograd threads that
 * launch the backward (a training step on the GPU: an autograd thread was
 * seen), beside a GPU whose kernels were resident under half the time. The
 * host work is the loop's own (making the batch, CPU compute). */
int gw_rule_main_not_launching(const struct gw_diagnosis *dx);
/* Its other side: a busy main thread that used no more of its core than
 * launching the forward costs beside the autograd thread's backward
 * (thresholds.c main_per_backward_max): measured launching, not making a
 * batch. 0 where the split was not measured. */
int gw_rule_main_launching(const struct gw_diagnosis *dx);
/* The GPU whose PCIe traffic is an optimizer kept in host memory (gradients
 * down, parameters back: gw_pcie_round_trip), or NULL. */
const struct gw_gpu_profile *gw_rule_host_offload(const struct gw_diagnosis *dx);

/* 1 for a distributed job: several GPUs recorded, or a launcher's
 * WORLD_SIZE above 1 (ranks elsewhere). */
int gw_rule_distributed(const struct gw_rule_input *in);
/* Shared by rules: share of the active time of all GPUs held by ns. */
double gw_rule_share(const struct gw_diagnosis *dx, double ns);
/* Evidence id of GPU p over its active time: its median power, its limit
 * and their ratio (how hard the GPU worked), when the power is known. */
void gw_rule_power_evidence(struct gw_finding *f, const struct gw_gpu_profile *p, const char *id);

#endif
