/* Each output reads its recording through one open (issue 36): report in
 * every format, the Perfetto export, a run of compare and the exporter's
 * page each call gw_store_open once per recording; the run's facts and the
 * trace come through the loaded recording's own connection. Counted with the
 * store's own counter (gw_store_file_opens). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <gpuwhy/export.h>
#include <gpuwhy/report.h>

#include "compare/run_load.h"
#include "compare/run_summary.h"
#include "serve/prom_text.h"
#include "store/store.h"
#include "support_test_main.h"

static char fixture[2][1024];

static int setup(void **state) {
  (void)state;
  const char *dir = getenv("GW_FIXTURES");
  if (!dir)
    return -1;
  /* one GPU with a kernel trace, and two GPUs (the multi-GPU summary) */
  snprintf(fixture[0], sizeof fixture[0], "%s/scenarios/launch_tiny_ops.db", dir);
  snprintf(fixture[1], sizeof fixture[1], "%s/scenarios/ddp_balanced.db", dir);
  return 0;
}

static FILE *sink(void) {
  FILE *f = fopen("/dev/null", "w");
  assert_non_null(f);
  return f;
}

static void test_report_opens_once(void **state) {
  (void)state;
  const enum gw_report_format formats[] = {GW_REPORT_TEXT, GW_REPORT_JSON, GW_REPORT_MD, GW_REPORT_HTML};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
      struct gw_report_opts opts = {formats[i], 0, 0};
      FILE *out = sink();
      char err[512] = "";
      unsigned long before = gw_store_file_opens();
      assert_int_equal(gw_report_file(fixture[k], &opts, out, err, sizeof err), 0);
      fclose(out);
      assert_int_equal(gw_store_file_opens() - before, 1);
    }
}

static void test_nodes_open_once_each(void **state) {
  (void)state;
  const char *paths[] = {fixture[0], fixture[1]};
  struct gw_report_opts opts = {GW_REPORT_HTML, 0, 1};
  FILE *out = sink();
  char err[512] = "";
  unsigned long before = gw_store_file_opens();
  assert_int_equal(gw_report_files(paths, 2, &opts, out, err, sizeof err), 0);
  fclose(out);
  assert_int_equal(gw_store_file_opens() - before, 2);
}

static void test_export_opens_once(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    FILE *out = sink();
    char err[512] = "";
    unsigned long long events = 0;
    unsigned long before = gw_store_file_opens();
    assert_int_equal(gw_export_perfetto_file(fixture[k], out, &events, err, sizeof err), 0);
    fclose(out);
    assert_true(events > 0);
    assert_int_equal(gw_store_file_opens() - before, 1);
  }
}

static void test_compare_run_opens_once(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    struct gw_run_summary s;
    struct gw_err err = {{0}};
    unsigned long before = gw_store_file_opens();
    assert_int_equal(gw_run_summary_load(fixture[k], &s, &err), GW_OK);
    assert_int_equal(gw_store_file_opens() - before, 1);
    gw_run_summary_free(&s);
  }
}

static void test_exporter_page_opens_once(void **state) {
  (void)state;
  for (int k = 0; k < 2; k++) {
    struct gw_prom_state st = {0};
    st.mode = "replay";
    FILE *out = sink();
    struct gw_err err = {{0}};
    unsigned long before = gw_store_file_opens();
    assert_int_equal(gw_prom_write(&st, fixture[k], out, &err), GW_OK);
    fclose(out);
    assert_int_equal(gw_store_file_opens() - before, 1);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_report_opens_once),        cmocka_unit_test(test_nodes_open_once_each),
    cmocka_unit_test(test_export_opens_once),        cmocka_unit_test(test_compare_run_opens_once),
    cmocka_unit_test(test_exporter_page_opens_once),
};
SUPPORT_TEST_MAIN(tests, setup, NULL)
