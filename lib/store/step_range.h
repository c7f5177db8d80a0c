/* Steps from NVTX ranges: the ranges of one name (record --step-range NAME),
 * recorded by the tracer's NVTX injection into the marker table, become rows
 * of the step table, one per range, per process. */
#ifndef GW_STEP_RANGE_H
#define GW_STEP_RANGE_H

#include <stdint.h>

#include "core/util.h"

struct gw_store;
/* For every process with ranges named name: its steps become those ranges
 * (source 'nvtx_range', numbered 1, 2, ... by start) when the Python hook
 * gave it none, or in place of the hook's when replace is set. *steps_out is
 * how many were stored, *kept_out how many processes kept the hook's steps.
 * On the recording a store is writing (record --step-range); on a connection
 * inside lib/store: gw_step_range_apply (store_sql.h). */
GW_NODISCARD gw_status gw_store_step_range_apply(struct gw_store *store, const char *name, int replace,
                                                 uint64_t *steps_out, uint64_t *kept_out, struct gw_err *err);

/* The same on a recording file: applied to src itself when dst is NULL, else
 * to a copy of src written to dst (src is only read). A recording without
 * the trace tables (made without --trace) is an error naming the file. */
GW_NODISCARD gw_status gw_step_range_file(const char *src, const char *dst, const char *name, int replace,
                                          uint64_t *steps_out, uint64_t *kept_out, struct gw_err *err);

#endif
