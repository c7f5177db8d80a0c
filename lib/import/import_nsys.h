/* Nsight Systems SQLite export (nsys export --type sqlite): kernels, copies,
 * memsets, runtime and driver calls, synchronisations and NVTX ranges. The
 * schema is checked first (META_DATA_EXPORT's EXPORT_SCHEMA_VERSION, the
 * tables and their columns); what is missing is named, not guessed. */
#ifndef GW_IMPORT_NSYS_H
#define GW_IMPORT_NSYS_H

#include <stdint.h>

#include "core/util.h"
#include "import/import_sink.h"
#include "store/nsys_sqlite.h"

struct gw_nsys_result {
  char schema_version[32];
  int time_relative; /* no session start time: times are from the session start
                      */
  uint64_t nvtx_steps, nvtx_markers;
  char missing[512]; /* optional tables or columns that were absent */
};

/* db: the export, opened by lib/store/nsys_sqlite.h; name is the file name
 * for messages. */
GW_NODISCARD gw_status gw_nsys_import(struct gw_nsys_db *db, const char *name, struct gw_import_sink *sink,
                                      struct gw_nsys_result *res, struct gw_err *err);

/* "step 12", "ProfilerStep#12", "iteration 3", "train_step_7" -> 1 and the
 * number; other NVTX names -> 0. */
int gw_nsys_step_number(const char *name, size_t len, int64_t *step);

#endif
