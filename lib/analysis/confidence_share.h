/* A finding's confidence scaled by how much of the lost time it explains
 * and by how much of it stays unexplained (analysis/confidence_share.c says
 * why the shape). */
#ifndef GW_CONFIDENCE_SHARE_H
#define GW_CONFIDENCE_SHARE_H

#include "analysis/diagnosis_model.h"

/* The share of the lost time (all GPUs) in the largest row that nothing
 * explains: the ledger's idle: other less what findings claim of it, or the
 * samples' largest cause charged to no class; at most what the findings
 * leave. 0..1; 0 where nothing was lost. */
double gw_unexplained_row_share(const struct gw_diagnosis *dx);

/* The factor, 0..1, a finding's rule score is scaled by: its share of the
 * lost time up to half of it, times what the largest unexplained row leaves. */
double gw_confidence_share_factor(double share_of_lost, double unexplained_share);

struct gw_compile_shapes;
/* The share of the hook's steps that repeated an input shape seen before
 * (0..1; 1 when the steps carry no shapes): launch overhead's confidence is
 * scaled by it (confidence_share.c says why). */
double gw_repeated_shape_share(const struct gw_compile_shapes *cs);
/* 1 where at least half the steps met an input shape not seen before (none
 * without shapes): new-shape work is then at least as likely in a step's
 * host time as anything the step does every time. */
int gw_steps_mostly_new_shapes(const struct gw_compile_shapes *cs);

/* The share (0..1) of launch overhead's idle time that launches can have
 * paced: less where steps outlast what launches fill, or met new shapes
 * with too few repeats to time a step without one (confidence_share.c). */
double gw_launch_claim_factor(const struct gw_diagnosis *dx);

/* The longest a step paced by kernel launches can plausibly last, s:
 * confidence_share.c says why. */
#define GW_LAUNCH_PACED_STEP_MAX_S 1.0
/* The loop's step as launch overhead is judged against it: the GPUs' working
 * span over the steps the loop finished in it, the one in progress counted;
 * 0 with a kernel trace or without the hook's steps. */
double gw_launch_step_s(const struct gw_diagnosis *dx);
/* 1, or less where the hook's steps (the GPUs' working span over the steps
 * the loop finished) last over a second and no kernel trace counted the launches:
 * launch overhead's confidence is scaled by it (confidence_share.c says why). */
double gw_launch_step_factor(const struct gw_diagnosis *dx);

/* Scales every finding's confidence_raw by that factor and recalibrates its
 * confidence; faults to fix first and runs that lost nothing keep theirs.
 * Run by gw_diagnose once the shares are final (after the verdict). */
void gw_confidence_by_share(struct gw_diagnosis *dx);

#endif
