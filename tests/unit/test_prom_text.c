/* The exporter's page: metric names derived from gpu_metrics.def with base
 * units, a well-formed exposition of a recording (HELP and TYPE before each
 * family, escaped labels, values in base units), the diagnosis as gauges,
 * and Xid counters that count each event once. */
#include <sqlite3.h>
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/diagnosis.h"
#include "report_synth.h"
#include "serve/prom_names.h"
#include "serve/prom_text.h"
#include "support_fixtures.h"
#include "support_sql.h"
#include "support_starved_recording.h"
#include "support_test_main.h"

static char g_db[128];

static void names_from_the_def(void **state) {
  (void)state;
  char seen[GW_GPU_NMETRICS][112];
  for (int m = 0; m < GW_GPU_NMETRICS; m++) {
    struct gw_prom_metric pm;
    assert_int_equal(gw_prom_gpu_metric(m, &pm), 0);
    assert_int_equal(strncmp(pm.name, "gpuwhy_gpu_", 11), 0);
    for (const char *c = pm.name; *c; c++)
      assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_');
    size_t n = strlen(pm.name);
    int counter = strcmp(pm.type, "counter") == 0;
    assert_int_equal(counter, n > 6 && strcmp(pm.name + n - 6, "_total") == 0);
    assert_null(strstr(pm.name, "_pct")); /* no percent, no milli-units: base units only */
    assert_null(strstr(pm.name, "_mw"));
    assert_null(strstr(pm.name, "_mhz"));
    assert_true(strlen(pm.help) > 10);
    for (int k = 0; k < m; k++)
      assert_string_not_equal(seen[k], pm.name);
    gw_strlcpy(seen[m], pm.name, sizeof seen[m]);
  }
  struct gw_prom_metric pm;
  gw_prom_gpu_metric(GW_M_sm_active_pct, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_sm_active_ratio");
  assert_true(fabs(pm.scale - 0.01) < 1e-12);
  gw_prom_gpu_metric(GW_M_power_mw, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_power_watts");
  assert_true(fabs(pm.scale - 1e-3) < 1e-12);
  gw_prom_gpu_metric(GW_M_sm_clock_mhz, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_sm_clock_hertz");
  gw_prom_gpu_metric(GW_M_viol_power_cap_ns, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_viol_power_cap_seconds_total");
  assert_string_equal(pm.type, "counter");
  gw_prom_gpu_metric(GW_M_energy_mj, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_energy_joules_total");
  gw_prom_gpu_metric(GW_M_temp_gpu_c, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_temp_gpu_celsius");
  gw_prom_gpu_metric(GW_M_pcie_rx_bps, &pm);
  assert_string_equal(pm.name, "gpuwhy_gpu_pcie_rx_bytes_per_second");
  assert_int_equal(gw_prom_gpu_metric(-1, &pm), -1);
  assert_int_equal(gw_prom_gpu_metric(GW_GPU_NMETRICS, &pm), -1);
  char help[16];
  assert_int_equal(gw_prom_help_escape(help, sizeof help, "a\\b\nc"), 7);
  assert_string_equal(help, "a\\\\b\\nc");
}

static char *page_of_path(struct gw_prom_state *st, const char *db) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  struct gw_err err;
  assert_int_equal(gw_prom_write(st, db, f, &err), GW_OK);
  fclose(f);
  return buf;
}

static char *page_of(struct gw_prom_state *st) {
  return page_of_path(st, g_db);
}

/* the sum of the gpuwhy_verdict samples: 1 when exactly one class is the verdict */
static double verdict_sum(const char *page) {
  double sum = 0;
  for (const char *p = page; (p = strstr(p, "\ngpuwhy_verdict{")); p++)
    sum += strtod(strchr(p, '}') + 2, NULL);
  return sum;
}

/* The value of the sample line that starts with prefix ("name{labels}"), NAN when absent. */
static double sample(const char *page, const char *prefix) {
  size_t n = strlen(prefix);
  for (const char *line = page; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (strncmp(line, prefix, n) == 0 && line[n] == ' ')
      return strtod(line + n + 1, NULL);
  return NAN;
}

static void exposition_is_well_formed(void **state) {
  (void)state;
  struct gw_prom_state st;
  gw_prom_state_init(&st, SYNTH_T0_NS, "replay", 600);
  char *page = page_of(&st);
  /* every sample's family was announced with HELP then TYPE, once */
  char announced[256][128];
  int nann = 0;
  const char *last_help = "";
  char help_name[128] = "";
  size_t samples = 0;
  for (char *line = page; line && *line;) {
    char *nl = strchr(line, '\n');
    assert_non_null(nl); /* every line ends with a newline */
    *nl = '\0';
    char name[128];
    if (sscanf(line, "# HELP %127s", name) == 1) {
      gw_strlcpy(help_name, name, sizeof help_name);
      last_help = line;
    } else if (sscanf(line, "# TYPE %127s", name) == 1) {
      assert_string_equal(name, help_name);
      for (int k = 0; k < nann; k++)
        assert_string_not_equal(announced[k], name);
      assert_true(nann < 256);
      gw_strlcpy(announced[nann++], name, sizeof announced[0]);
    } else {
      size_t len = strcspn(line, "{ ");
      assert_true(len > 0 && len < sizeof name);
      memcpy(name, line, len);
      name[len] = '\0';
      assert_true(nann > 0);
      assert_string_equal(name, announced[nann - 1]); /* samples follow their own family */
      char *end;
      strtod(strrchr(line, ' ') + 1, &end);
      assert_int_equal(*end, '\0');
      samples++;
    }
    *nl = '\n';
    line = nl + 1;
  }
  (void)last_help;
  assert_true(samples > 60);
  /* the synthetic run's last tick: SM 9.5 or 10%, util 11-13%, 231 W, 1980 MHz; limit 700 W */
  const char *labels = "{gpu=\"0\",uuid=\"\",name=\"NVIDIA H200\"}";
  char key[256];
  snprintf(key, sizeof key, "gpuwhy_gpu_sm_active_ratio%s", labels);
  double sm = sample(page, key);
  assert_true(sm >= 0.095 - 1e-9 && sm <= 0.10 + 1e-9);
  snprintf(key, sizeof key, "gpuwhy_gpu_power_watts%s", labels);
  assert_true(fabs(sample(page, key) - 231) < 1e-6);
  snprintf(key, sizeof key, "gpuwhy_gpu_power_limit_watts%s", labels);
  assert_true(fabs(sample(page, key) - 700) < 1e-6);
  snprintf(key, sizeof key, "gpuwhy_gpu_sm_clock_hertz%s", labels);
  assert_true(fabs(sample(page, key) - 1.98e9) < 1);
  snprintf(key, sizeof key,
           "gpuwhy_gpu_clock_event_reason_active{gpu=\"0\",uuid=\"\",name=\"NVIDIA H200\",reason=\"sw_power_cap\"}");
  assert_true(sample(page, key) == 0);
  /* an unknown metric is absent, never 0 */
  assert_null(strstr(page, "gpuwhy_gpu_nvlink_rx_bytes_per_second{"));
  assert_true(sample(page, "gpuwhy_gpus") == 1);
  assert_non_null(strstr(page, "gpuwhy_build_info{version=\""));
  assert_non_null(strstr(page, "mode=\"replay\"} 1\n"));
  /* the verdict gauge names the diagnosis' verdict and only it */
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose_file(g_db, &dx, &err), GW_OK);
  snprintf(key, sizeof key, "gpuwhy_verdict{class=\"%s\"}", dx->verdict);
  assert_true(sample(page, key) == 1);
  assert_int_equal(strcmp(dx->verdict, "input_pipeline"), 0);
  double share = sample(page, "gpuwhy_finding_share{class=\"input_pipeline\"}");
  assert_true(fabs(share - dx->findings[0].share_of_lost) < 1e-6);
  assert_true(verdict_sum(page) == 1);
  double rows = 0;
  for (const char *p = page; (p = strstr(p, "\ngpuwhy_ledger_share{")); p++)
    rows += strtod(strchr(p, '}') + 2, NULL);
  assert_true(fabs(rows - 1) < 1e-6); /* the ledger rows of the one GPU add up */
  gw_diagnosis_free(dx);
  free(page);
}

static void labels_are_escaped(void **state) {
  (void)state;
  support_exec_sql_at(g_db, "UPDATE gpu SET name = 'A \"q\" \\ b', uuid = 'GPU-1'");
  struct gw_prom_state st;
  gw_prom_state_init(&st, SYNTH_T0_NS, "live", 600);
  char *page = page_of(&st);
  assert_non_null(strstr(page, "gpuwhy_gpu_power_watts{gpu=\"0\",uuid=\"GPU-1\",name=\"A \\\"q\\\" \\\\ b\"} 231\n"));
  free(page);
  support_exec_sql_at(g_db, "UPDATE gpu SET name = 'NVIDIA H200', uuid = ''");
}

static void xid_counted_once(void **state) {
  (void)state;
  const char *labels = "{gpu=\"0\",uuid=\"\",name=\"NVIDIA H200\"}";
  char key[256];
  /* one Xid from before the exporter started (kernel-log history), two after it, one of them for no known GPU */
  support_exec_sql_at(g_db, "INSERT INTO event VALUES (1699999990000000000, 'xid', 0, 31, 0, 'history');"
                            "INSERT INTO event VALUES (1700000005000000000, 'xid', 0, 79, 0, 'fell off the bus');"
                            "INSERT INTO event VALUES (1700000006000000000, 'xid', NULL, 13, 0, 'unknown PCI address');"
                            "INSERT INTO event VALUES (1700000007000000000, 'gpu_lost', 0, 0, 0, 'lost');");
  struct gw_prom_state st;
  gw_prom_state_init(&st, SYNTH_T0_NS, "live", 600);
  for (int round = 0; round < 2; round++) { /* a second build sees the same events: no double count */
    char *page = page_of(&st);
    snprintf(key, sizeof key, "gpuwhy_gpu_xid_events_total%s", labels);
    assert_true(sample(page, key) == 1);
    snprintf(key, sizeof key, "gpuwhy_gpu_last_xid%s", labels);
    assert_true(sample(page, key) == 79);
    snprintf(key, sizeof key, "gpuwhy_gpu_lost%s", labels);
    assert_true(sample(page, key) == 1);
    assert_true(sample(page, "gpuwhy_xid_events_unattributed_total") == 1);
    free(page);
  }
  support_exec_sql_at(g_db, "INSERT INTO event VALUES (1700000008000000000, 'xid', 0, 48, 0, 'double-bit ECC');");
  char *page = page_of(&st);
  snprintf(key, sizeof key, "gpuwhy_gpu_xid_events_total%s", labels);
  assert_true(sample(page, key) == 2);
  snprintf(key, sizeof key, "gpuwhy_gpu_last_xid%s", labels);
  assert_true(sample(page, key) == 48);
  free(page);
  support_exec_sql_at(g_db, "DELETE FROM event WHERE kind IN ('xid', 'gpu_lost')");
}

static void empty_recording(void **state) {
  (void)state;
  char db[160];
  support_tmpdir_path(db, sizeof db, "empty.db");
  struct gw_store *st = NULL;
  struct gw_err err;
  assert_int_equal(gw_store_create(&st, db, &err), GW_OK);
  gw_store_close(st);
  struct gw_prom_state ps;
  gw_prom_state_init(&ps, 0, "live", 600);
  char *buf = page_of_path(&ps, db);
  assert_true(sample(buf, "gpuwhy_verdict{class=\"no_data\"}") == 1);
  assert_true(verdict_sum(buf) == 1);
  assert_true(sample(buf, "gpuwhy_gpus") == 0);
  assert_null(strstr(buf, "gpuwhy_gpu_power_watts"));
  free(buf);
  unlink(db);
}

/* An unexplained diagnosis has its own series: a real H100 recording whose
 * verdict is unexplained (a fetch that sleeps in its store) gives exactly one
 * verdict series at 1, the unexplained one. */
static void unexplained_verdict_is_served(void **state) {
  (void)state;
  char db[512];
  support_fixture_path(db, sizeof db, "weak_spots_h100/oos_fetch_store.db");
  if (access(db, R_OK) != 0)
    skip(); /* the .db.xz is unpacked at configure time */
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose_file(db, &dx, &err), GW_OK);
  assert_string_equal(dx->verdict, "unexplained");
  gw_diagnosis_free(dx);
  struct gw_prom_state ps;
  gw_prom_state_init(&ps, 0, "replay", 600);
  char *buf = page_of_path(&ps, db);
  assert_true(sample(buf, "gpuwhy_verdict{class=\"unexplained\"}") == 1);
  assert_true(verdict_sum(buf) == 1);
  free(buf);
}

static int setup(void **state) {
  return support_starved_setup(state, 60, g_db, sizeof g_db);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(names_from_the_def), cmocka_unit_test(exposition_is_well_formed),
    cmocka_unit_test(labels_are_escaped), cmocka_unit_test(xid_counted_once),
    cmocka_unit_test(empty_recording),    cmocka_unit_test(unexplained_verdict_is_served),
};
SUPPORT_TEST_MAIN(tests, setup, support_tmpdir_teardown)
