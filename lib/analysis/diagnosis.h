/* Diagnosing a recording: the ledger, the profiles, the rules of the
 * registry, the multi-GPU summary and the measured verdict run into a
 * struct gw_diagnosis (diagnosis_model.h), which renderers read. */
#ifndef GW_DIAGNOSIS_H
#define GW_DIAGNOSIS_H

#include "analysis/diagnosis_model.h"
#include "analysis/finding_rank.h"

/* Run the ledger and the rules on a loaded recording. *out is owned by the
 * caller and released with gw_diagnosis_free. */
GW_NODISCARD gw_status gw_diagnose(const struct gw_recording *rec, struct gw_diagnosis **out, struct gw_err *err);
/* Load the file, diagnose it, free the recording. */
GW_NODISCARD gw_status gw_diagnose_file(const char *path, struct gw_diagnosis **out, struct gw_err *err);
void gw_diagnosis_free(struct gw_diagnosis *dx);

/* Adds a line to the report's notes (dropped past GW_MAX_NOTES). */
void gw_diagnosis_note(struct gw_diagnosis *dx, const char *fmt, ...) GW_PRINTF(2, 3);
/* The ledger row (idle or underfilled, all GPUs) that lost the most time, and
 * its share of the active time; GW_ROW_PRODUCTIVE when none lost any. */
int gw_diagnosis_largest_loss(const struct gw_diagnosis *dx, double *share_of_active);
/* The ledger row's title as this report shows it: without any SM activity
 * (sm_blind) the productive row is only "a kernel resident". */
const char *gw_diagnosis_row_title(const struct gw_diagnosis *dx, int row);

#endif
