/* A run as compare, baseline and sweep take it: a recording or a saved
 * baseline file, told apart by their first byte. Its own module so that the
 * summary (run_summary.h) and the baseline file (baseline_file.h), which
 * writes and reads summaries, do not include each other. */
#ifndef GW_COMPARE_RUN_LOAD_H
#define GW_COMPARE_RUN_LOAD_H

#include "compare/run_summary.h"

/* Load a recording (or a baseline JSON file) and summarise it; free with
 * gw_run_summary_free. */
GW_NODISCARD gw_status gw_run_summary_load(const char *path, struct gw_run_summary *s, struct gw_err *err);

#endif
