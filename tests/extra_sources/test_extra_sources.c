/* A GPU backend and a recorder source added as docs/ARCHITECTURE.md says:
 * each is one file plus one line (gpu_backends_extra.h,
 * record_sources_extra.h), compiled only into this test with the backend list
 * and the source table (GW_EXTRA_GPU_BACKENDS, GW_EXTRA_RECORD_SOURCES). A
 * recording made through the product's recorder has the fake GPUs' facts and
 * samples and the fake source's events and meta row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/sm_fill.h"
#include "record/gpu_backends.h"
#include "../unit/support_test_main.h"

static sqlite3 *db;

static double q_num(const char *sql) {
  sqlite3_stmt *s = NULL;
  double v = NAN;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
      sqlite3_column_type(s, 0) != SQLITE_NULL)
    v = sqlite3_column_double(s, 0);
  else
    fprintf(stderr, "query failed or empty: %s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(s);
  return v;
}

static void q_text(const char *sql, char *out, size_t cap) {
  sqlite3_stmt *s = NULL;
  out[0] = '\0';
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
      sqlite3_column_text(s, 0))
    snprintf(out, cap, "%s", (const char *)sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
}

/* Record `sleep 1.3` at 10 Hz with the fake backend and the fake source. */
static int record_fake(void **state) {
  (void)state;
  static char dir[] = "/tmp/gw_extra_sources_XXXXXX";
  if (!mkdtemp(dir))
    return -1;
  static char path[128];
  snprintf(path, sizeof path, "%s/fake.db", dir);
  setenv("GPUWHY_GPU_BACKEND", "fake", 1);
  char *argv[] = {"sleep", "1.3", NULL};
  struct gw_record_opts o = {
      .out_path = path,
      .interval_ms = 100,
      .gpm_interval_ms = 1000,
      .argv = argv,
      .quiet = 1,
      .no_trace = 1,
      .no_nccl_log = 1,
      .no_python_hook = 1,
  };
  char msg[512];
  int rc = gw_record_run(&o, msg, sizeof msg);
  if (rc != 0) {
    fprintf(stderr, "record failed (%d): %s\n", rc, msg);
    return -1;
  }
  return sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK ? 0 : -1;
}

static int close_recording(void **state) {
  (void)state;
  sqlite3_close(db);
  return 0;
}

static void test_fake_backend_reaches_the_recording(void **state) {
  (void)state;
  char text[128];
  assert_int_equal((int)q_num("select count(*) from gpu"), 2);
  q_text("select name from gpu where gpu = 1", text, sizeof text);
  assert_string_equal(text, "Fake GPU 1");
  q_text("select driver_version from run", text, sizeof text);
  assert_string_equal(text, "fake-driver-1");
  assert_int_equal((int)q_num("select gpm_supported from gpu where gpu = 0"), 1);
  /* 1.3 s at 10 Hz: about 13 ticks; 5 leaves room for a loaded machine */
  assert_true(q_num("select count(*) from gpu_sample where gpu = 1") >= 5);
  assert_true(q_num("select min(util_gpu_pct) from gpu_sample where gpu = 1") == 61.0);
  assert_true(q_num("select max(util_gpu_pct) from gpu_sample where gpu = 1") == 61.0);
  assert_true(q_num("select min(sm_active_pct) from gpu_sample where gpu = 0") == 30.0);
  assert_true(q_num("select max(sm_active_pct) from gpu_sample where gpu = 1") == 31.0);
}

static void test_fake_source_reaches_the_recording(void **state) {
  (void)state;
  /* once a second over 1.3 s: the first tick and the one a second later */
  assert_true(q_num("select count(*) from event where kind = 'fake_source'") >= 1);
  assert_true(q_num("select min(code) from event where kind = 'fake_source'") == 1.0);
  /* the source ticked with every tick of the recorder, and stopped once */
  double ticks = q_num("select cast(value as integer) from meta where key = 'fake_source_ticks'");
  assert_true(ticks >= 5);
  assert_true(ticks == q_num("select cast(value as integer) from meta where key = 'recorder_ticks'"));
}

static void test_unknown_backend_lists_the_fake(void **state) {
  (void)state;
  setenv("GPUWHY_GPU_BACKEND", "nope", 1);
  struct gw_gpu *g = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_gpu_open(&g, NULL, &err), GW_EINPUT);
  assert_null(g);
  assert_non_null(strstr(err.msg, "known: nvml, replay, fake"));
}

/* Each filler of windowed SM activity is one the analysis names as the
 * source of a GPU's SM activity; a recording filler can be opened. */
static void test_fillers_are_sources_the_analysis_names(void **state) {
  (void)state;
  size_t n = 0;
  const struct gw_sm_filler *f = gw_sm_fillers(&n);
  assert_int_equal((int)n, 3);
  static const enum gw_sm_activity_source named[] = {GW_SM_SOURCE_DCGM, GW_SM_SOURCE_PM_SAMPLING,
                                                     GW_SM_SOURCE_LAUNCH_CONFIG};
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(f[i].name, gw_sm_activity_source_name(named[i]));
    assert_true(f[i].applies_when[0] && f[i].entry[0]);
    int recording = f[i].stage == GW_SM_FILL_RECORDING;
    assert_int_equal(recording, f[i].open != NULL);
    assert_int_equal(recording, f[i].ops != NULL);
    if (f[i].ops)
      assert_string_equal(f[i].ops->name, f[i].name);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fake_backend_reaches_the_recording),
    cmocka_unit_test(test_fake_source_reaches_the_recording),
    cmocka_unit_test(test_unknown_backend_lists_the_fake),
    cmocka_unit_test(test_fillers_are_sources_the_analysis_names),
};
SUPPORT_TEST_MAIN(tests, record_fake, close_recording)
