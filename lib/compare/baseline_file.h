/* The baseline file: a run summary saved as JSON (schema
 * "gpuwhy.baseline/2", documented in docs/compare.md), with the per-step times
 * so that a later check can put an interval on the difference. */
#ifndef GW_COMPARE_BASELINE_FILE_H
#define GW_COMPARE_BASELINE_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "compare/run_summary.h"

/* Every JSON document is named "gpuwhy.<command>/<version>" (docs/schema/);
 * version 1 of the baseline file said only "gpuwhy.baseline" and is still read. */
#define GW_BASELINE_SCHEMA "gpuwhy.baseline"
#define GW_BASELINE_SCHEMA_VERSION 2
#define GW_BASELINE_CHECK_JSON_SCHEMA_VERSION 2
#define GW_BASELINE_LIST_JSON_SCHEMA_VERSION 2
#define GW_BASELINE_MAX_BYTES (256L << 20)

void gw_baseline_file_write(FILE *out, const struct gw_run_summary *s, const char *name, int64_t saved_ns);
/* Read a baseline into s (initialised by gw_run_summary_init). */
GW_NODISCARD gw_status gw_baseline_file_read(const char *path, struct gw_run_summary *s, struct gw_err *err);

/* Fields shown by `baseline list`, read without loading everything. */
struct gw_baseline_info {
  char name[128], recording[1024], step_source[32];
  int64_t saved_ns;
  double samples_per_s, steps_per_s, step_median_s;
  long nsteps;
};
GW_NODISCARD gw_status gw_baseline_file_info(const char *path, struct gw_baseline_info *info, struct gw_err *err);

#endif
