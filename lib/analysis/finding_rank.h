/* The findings in rank order, their shares capped so that together they
 * explain at most the lost time. Apart from diagnosis.c because the
 * measured verdict re-ranks too, and it uses the rule registry. */
#ifndef GW_ANALYSIS_FINDING_RANK_H
#define GW_ANALYSIS_FINDING_RANK_H

#include "analysis/diagnosis_model.h"

/* Caps the findings' shares in rank order so they add up to at most the
 * lost time, and sets other_claimed_ns. run by gw_diagnose after the rules. */
void gw_diagnosis_cap_shares(struct gw_diagnosis *dx);
/* qsort order of findings: faults first, then the largest speed-up, then confidence. */
int gw_finding_cmp(const void *a, const void *b);
/* The finding of class class_id, or NULL (a class has at most one). Not
 * const, as strchr: the measured verdict amends the finding it finds. */
struct gw_finding *gw_finding_of_class(const struct gw_diagnosis *dx, const char *class_id);
/* Takes finding f (one of dx->findings) out of the list, the rest keeping their order. */
void gw_finding_remove(struct gw_diagnosis *dx, struct gw_finding *f);

#endif
