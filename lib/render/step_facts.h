/* The Python hook's steps in the report: steps/s, samples/s, the step-time
 * distribution and the data-wait share, per process (rank). */
#ifndef GW_RENDER_STEP_FACTS_H
#define GW_RENDER_STEP_FACTS_H

#include <stdio.h>

#include "analysis/diagnosis.h"

/* A "Steps" section; nothing when the recording has no per-process steps. */
void gw_step_facts_text(const struct gw_diagnosis *dx, FILE *out, const char *bold, const char *reset);
/* "steps_by_process": [...], (with the trailing comma); always written, [] when none. */
void gw_step_facts_json(const struct gw_diagnosis *dx, FILE *out);

/* A "Steps decomposed" section (analysis/step_breakdown.h); nothing without steps. */
void gw_step_breakdown_text(const struct gw_diagnosis *dx, FILE *out, const char *bold, const char *reset);
/* "steps_breakdown": {...}, (with the trailing comma); nothing without steps (older reports keep their shape). */
void gw_step_breakdown_json(const struct gw_diagnosis *dx, FILE *out);

#endif
