/* A tracked scenario recording and its report in one format, as the tests of
 * the extension points (tests/format5: a fifth report format, tests/rule7: a
 * seventh rule) read them. Header-only; include after <cmocka.h>. */
#ifndef GW_SUPPORT_SCENARIO_REPORT_H
#define GW_SUPPORT_SCENARIO_REPORT_H

#include <stdio.h>
#include <stdlib.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/report.h>

#include "analysis/diagnosis.h"
#include "support_fixtures.h"

/* The scenario both extension tests report on: its truth is input_pipeline. */
#define SUPPORT_SCENARIO "scenarios/input_cpu_transforms.db"

/* The path of SUPPORT_SCENARIO; skips the test where GW_FIXTURES is unset. */
static inline void support_scenario_path(char *out, size_t cap) {
  support_fixture_path(out, cap, SUPPORT_SCENARIO);
}

/* The report of SUPPORT_SCENARIO in the format, as gpuwhy report writes it
 * (malloc'd: the caller frees it). */
static inline char *support_scenario_report(enum gw_report_format format) {
  char path[1024];
  support_scenario_path(path, sizeof path);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  struct gw_report_opts opts = {.format = format};
  char err[256] = "";
  assert_int_equal(gw_report_file(path, &opts, out, err, sizeof err), GPUWHY_EXIT_OK);
  fclose(out);
  return buf;
}

/* The diagnosis of SUPPORT_SCENARIO (gw_diagnosis_free it). */
static inline struct gw_diagnosis *support_scenario_diagnosis(void) {
  char path[1024];
  support_scenario_path(path, sizeof path);
  struct gw_diagnosis *dx = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_diagnose_file(path, &dx, &err), GW_OK);
  return dx;
}

#endif
