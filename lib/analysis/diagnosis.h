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

/* Adds a note to the report: id, a row of render/note_text.c's table, the
 * GPU it is about (-1 for the host or the whole job) and its values (dropped
 * past GW_MAX_NOTES). */
void gw_diagnosis_add_note(struct gw_diagnosis *dx, const char *id, int gpu, int nargs,
                           const struct gw_evidence_arg *args);
/* gw_diagnosis_note(dx, id, gpu, GW_NUM(...), ...): the values listed in
 * place; a note without values calls gw_diagnosis_add_note with 0. */
#define gw_diagnosis_note(dx, id, gpu, ...)                                                                            \
  gw_diagnosis_add_note((dx), (id), (gpu),                                                                             \
                        (int)(sizeof((const struct gw_evidence_arg[]){__VA_ARGS__}) / sizeof(struct gw_evidence_arg)), \
                        (const struct gw_evidence_arg[]){__VA_ARGS__})
/* The ledger row (idle or underfilled, all GPUs) that lost the most time, and
 * its share of the active time; GW_ROW_PRODUCTIVE when none lost any. */
int gw_diagnosis_largest_loss(const struct gw_diagnosis *dx, double *share_of_active);
/* The id of the ledger row's title as this report shows it (worded by
 * render/label_text.c's gw_row_title): the row's id, or without any SM
 * activity (sm_blind) "productive_sm_blind", only "a kernel resident", and
 * "idle_other_claimed" where findings claim most of idle: other. */
const char *gw_diagnosis_row_title_id(const struct gw_diagnosis *dx, int row);

#endif
