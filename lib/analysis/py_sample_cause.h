/* What a Python stack sample of one process says its training thread was
 * doing, as the idle attribution and the step breakdown both read it: the
 * hook's activity, with the two corrections only the whole recording allows
 * (a function named for a checkpoint, a function that makes the batch). */
#ifndef GW_ANALYSIS_PY_SAMPLE_CAUSE_H
#define GW_ANALYSIS_PY_SAMPLE_CAUSE_H

#include <stdint.h>

#include "store/store_model.h"

/* Tables by frame id, built once per process from its samples and frames. */
struct gw_py_causes {
  unsigned char *batch_maker; /* the frame's function makes the batch; NULL when none does */
  int32_t nbatch_maker;
  unsigned char *checkpoint_fn; /* the frame's function is named for a checkpoint; NULL when none is */
  int32_t ncheckpoint_fn;
};

void gw_py_causes_init(struct gw_py_causes *c, const struct gw_recording *rec, int64_t pid);
void gw_py_causes_free(struct gw_py_causes *c);
/* The sample's activity (enum gw_py_activity) as the idle time is charged. */
int gw_py_sample_cause(const struct gw_py_causes *c, const struct gw_py_tick *p);

#endif
