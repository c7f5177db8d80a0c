/* MFU and goodput in the report: one line per GPU with a counted step (MFU
 * against the dense peak, at the data sheet's clock and at the run's), one
 * goodput line for the job, and their JSON. */
#ifndef GW_RENDER_MFU_FACTS_H
#define GW_RENDER_MFU_FACTS_H

#include <stdio.h>

#include "analysis/diagnosis.h"

/* MFU lines (none when no GPU has a counted step) and the goodput line. */
void gw_mfu_facts_text(const struct gw_diagnosis *dx, FILE *out, const char *bold, const char *reset);
/* "mfu": [...] or null, "mfu_note", "goodput": {...}, each followed by a comma. */
void gw_mfu_facts_json(const struct gw_diagnosis *dx, FILE *out);
/* 1 when some GPU has a counted step */
int gw_mfu_any_measured(const struct gw_diagnosis *dx);

#endif
