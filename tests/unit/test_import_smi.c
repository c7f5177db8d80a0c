/* gpuwhy import of nvidia-smi logs: dmon (with and without date/time
 * columns, plain and CSV) and --query-gpu CSV, into gpu_sample as counters
 * only; errors name the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/import.h>
#include <sqlite3.h>

#include "import/import_smi.h"

#define NS 1000000000LL
/* 2026-11-29 10:00:00 and 18:25:06 UTC */
#define T_10H 1795946400LL
#define T_1825 1795976706LL

static char out_path[256], in_path[256];

#include "import_test_util.h"
#include "fixture_import.h"
#include "support_test_main.h"

static int setup(void **state) {
  (void)state;
  fixture_import_paths("smi", ".log", in_path, sizeof in_path);
  /* nvidia-smi writes local time: read it as UTC here */
  setenv("TZ", "UTC", 1);
  tzset();
  return 0;
}

static void counters_only(void) {
  assert_string_equal(q_text("SELECT source FROM run"), "import:nvidia-smi");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'counters_only'"), "1");
  assert_true(q_num("SELECT count(*) FROM kernel") == 0);
}

static void test_dmon_without_times(void **state) {
  (void)state;
  struct gw_import_opts opts = {.smi_start_ns = T_1825 * NS, .smi_interval_s = 2};
  struct gw_import_summary sum;
  fixture_import_ok(fixture("h200_dmon_pucvmet.txt"), &opts, &sum);
  assert_int_equal(sum.format, GW_IMPORT_SMI_DMON);
  assert_int_equal(sum.gpu_samples, 8);
  counters_only();
  /* times laid out from --start at --interval: one GPU, so one row a sample */
  EXPECT_NUMS("SELECT min(t_ns), max(t_ns) FROM gpu_sample", (double)(T_1825 * NS), (double)((T_1825 + 14) * NS));
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.times_assumed'"), "1");
  /* the first line: pwr 122 W, sm 0 %, mclk 3201, pclk 525, fb 0 MB, rx 18 MB/s */
  EXPECT_NUMS("SELECT power_mw, util_gpu_pct, mem_clock_mhz, sm_clock_mhz, pcie_rx_bps FROM gpu_sample"
              " ORDER BY t_ns LIMIT 1",
              122000, 0, 3201, 525, 18 * 1048576.0);
  assert_true(q_num("SELECT mem_used_bytes FROM gpu_sample ORDER BY t_ns DESC LIMIT 1") == 549 * 1048576.0);
  /* dmon's sm is GPU-Util; SM activity stays unknown, not 0 */
  assert_true(q_num("SELECT sm_active_pct FROM gpu_sample LIMIT 1") == -999);
  assert_true(q_num("SELECT temp_gpu_c FROM gpu_health ORDER BY t_ns LIMIT 1") == 37);
  assert_non_null(strstr(q_text("SELECT value FROM meta WHERE key = 'input.0.columns_not_imported'"), "pviol"));
}

static void test_dmon_with_date_time_two_gpus(void **state) {
  (void)state;
  fixture_import_ok(fixture("dmon_2gpu_pucvmet_dt.txt"), NULL, NULL);
  counters_only();
  EXPECT_NUMS("SELECT count(*), count(DISTINCT gpu), min(t_ns), max(t_ns) FROM gpu_sample", 6, 2, (double)(T_10H * NS),
              (double)((T_10H + 2) * NS));
  EXPECT_NUMS("SELECT power_mw, util_gpu_pct FROM gpu_sample WHERE gpu = 0 ORDER BY t_ns LIMIT 1", 697000, 100);
  /* "-" is no sample: NULL, never 0 */
  assert_true(q_num("SELECT pcie_rx_bps FROM gpu_sample WHERE gpu = 1 LIMIT 1") == -999);
  assert_true(q_num("SELECT power_mw FROM gpu_sample WHERE gpu = 0 ORDER BY "
                    "t_ns DESC LIMIT 1") == -999);
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.times_assumed'"), "");
}

static void test_dmon_csv_and_real_dt(void **state) {
  (void)state;
  struct gw_import_opts opts = {.smi_start_ns = T_1825 * NS};
  fixture_import_ok(fixture("h200_dmon_pucvmet.csv"), &opts, NULL);
  EXPECT_NUMS("SELECT count(*), max(t_ns) - min(t_ns) FROM gpu_sample", 8, 7.0 * NS);
  assert_true(q_num("SELECT power_mw FROM gpu_sample ORDER BY t_ns LIMIT 1") == 122000);
  fixture_import_ok(fixture("h200_dmon_pucvmet_dt.txt"), NULL, NULL);
  assert_true(q_num("SELECT min(t_ns) FROM gpu_sample") == (double)(T_1825 * NS));
}

static void test_query_csv(void **state) {
  (void)state;
  struct gw_import_summary sum;
  fixture_import_ok(fixture("query_2gpu.csv"), NULL, &sum);
  assert_int_equal(sum.format, GW_IMPORT_SMI_QUERY);
  counters_only();
  EXPECT_NUMS("SELECT count(*), min(t_ns) FROM gpu_sample", 4, (double)(T_10H * NS + 250000000));
  assert_string_equal(q_text("SELECT name FROM gpu WHERE gpu = 1"), "Test GPU B");
  assert_string_equal(q_text("SELECT uuid FROM gpu WHERE gpu = 0"), "GPU-00000000-0000-0000-0000-000000000000");
  assert_string_equal(q_text("SELECT pci_bus_id FROM gpu WHERE gpu = 0"), "00000000:17:00.0");
  assert_true(q_num("SELECT mem_total_bytes FROM gpu WHERE gpu = 0") == 81559 * 1048576.0);
  assert_true(q_num("SELECT power_mw FROM gpu_sample WHERE gpu = 0 ORDER BY "
                    "t_ns LIMIT 1") == 650500);
  assert_true(q_num("SELECT clock_reasons FROM gpu_sample WHERE gpu = 0 LIMIT 1") == 4);
  EXPECT_NUMS("SELECT pstate, util_gpu_pct, power_mw FROM gpu_sample WHERE gpu = 1 ORDER BY t_ns DESC LIMIT 1", 2, -999,
              -999);
  assert_true(q_num("SELECT ecc_dbe_volatile FROM gpu_health WHERE gpu = 0 LIMIT 1") == 0);
  assert_true(q_num("SELECT ecc_dbe_volatile FROM gpu_health WHERE gpu = 1 LIMIT 1") == -999);
  assert_true(q_num("SELECT temp_gpu_c FROM gpu_health WHERE gpu = 0 ORDER BY "
                    "t_ns LIMIT 1") == 61);
  /* the real log from the H200 */
  fixture_import_ok(fixture("h200_query_gpu.csv"), NULL, NULL);
  assert_true(q_num("SELECT count(*) FROM gpu_sample") == 9);
  assert_true(q_num("SELECT sm_clock_mhz FROM gpu_sample ORDER BY t_ns DESC LIMIT 1") == 1980);
  assert_true(q_num("SELECT power_limit_mw FROM gpu_health LIMIT 1") == 700000);
  assert_true(q_num("SELECT sm_clock_max_mhz FROM gpu") == 1980);
}

static int import_text(const char *text, char *err, size_t cap) {
  FILE *f = fopen(in_path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return gw_import(in_path, out_path, NULL, NULL, err, cap);
}

/* Readings too large for the GPU facts' integers (a damaged log; the fuzzer's
 * 1.1e10 MHz once made the float-to-unsigned conversion undefined) leave the
 * fact unknown; the samples still import. */
static void test_query_values_out_of_range(void **state) {
  (void)state;
  char err[512] = "";
  if (import_text("timestamp, index, name, memory.total [MiB], clocks.max.sm [MHz], clocks.max.mem [MHz], "
                  "power.default_limit [W], pcie.link.gen.max, pcie.link.width.max, clocks.current.sm [MHz]\n"
                  "2026/11/29 10:00:00.250, 0, GPU A, 99999999999999 MiB, 11111111111 MHz, 22222222222 MHz, "
                  "5000000000 W, 4444444444, 5555555555, 1755 MHz\n",
                  err, sizeof err))
    fail_msg("%s", err);
  assert_true(q_num("SELECT count(*) FROM gpu_sample") == 1);
  assert_true(q_num("SELECT sm_clock_mhz FROM gpu_sample") == 1755);
  const char *facts[] = {"sm_clock_max_mhz", "mem_clock_max_mhz", "power_default_limit_mw",
                         "pcie_gen_max",     "pcie_width_max",    "mem_total_bytes"};
  for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT coalesce(%s, 0) FROM gpu WHERE gpu = 0", facts[i]);
    if (q_num(sql) != 0)
      fail_msg("%s: %.0f, not unknown", facts[i], q_num(sql));
  }
}

static void expect_error(const char *text, const char *needle1, const char *needle2) {
  char err[512] = "";
  assert_int_equal(import_text(text, err, sizeof err), GPUWHY_EXIT_INPUT);
  if (!strstr(err, in_path) || !strstr(err, needle1) || (needle2 && !strstr(err, needle2)))
    fail_msg("message lacks '%s' / '%s': %s", needle1, needle2 ? needle2 : "", err);
}

static void test_bad_logs(void **state) {
  (void)state;
  static const char head[] = "# gpu    pwr     sm\n# Idx      W      %\n";
  char text[512];
  snprintf(text, sizeof text, "%s    0    100     50\n    0    100\n", head);
  expect_error(text, "line 4", "expected 3 values");
  snprintf(text, sizeof text, "%s    0    lots     50\n", head);
  expect_error(text, "line 3", "column pwr: expected a number, found 'lots'");
  snprintf(text, sizeof text, "%s    x    100     50\n", head);
  expect_error(text, "line 3", "GPU index");
  snprintf(text, sizeof text, "# gpu    pwr     sm\n    0    100     50\n");
  expect_error(text, "line 2", "units line");
  snprintf(text, sizeof text,
           "%s    0    100     50\n# gpu    pwr  mclk\n# Idx      W   MHz\n    "
           "0    100  300\n",
           head);
  expect_error(text, "line 4", "header changed");
  /* pmon is per process: not a log this imports */
  expect_error("# gpu         pid   type     sm    mem    enc    dec    jpg    "
               "ofa    command\n"
               "# Idx           #    C/G      %      %      %      %      %    "
               "  %    name\n",
               "not a format gpuwhy imports", NULL);
  expect_error("timestamp, index, power.draw [W]\n2026/11/29 10:00:00.000, 0, "
               "plenty W\n",
               "line 2", "column power.draw: expected a number");
  expect_error("timestamp, index, power.draw [W]\n29.11.2026 10:00, 0, 100 W\n", "line 2", "expected a timestamp");
}

static void test_sniff(void **state) {
  (void)state;
  static const struct {
    const char *first_line;
    enum gw_smi_kind kind;
  } cases[] = {
      {"# gpu    pwr  gtemp  mtemp     sm    mem", GW_SMI_DMON},
      {"#Date        Time         gpu    pwr", GW_SMI_DMON},
      {"#gpu, pwr, gtemp", GW_SMI_DMON},
      {"timestamp, index, utilization.gpu [%]", GW_SMI_QUERY},
      {"name, age, city", GW_SMI_NONE},
      {"# just a comment", GW_SMI_NONE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (gw_smi_sniff(cases[i].first_line, strlen(cases[i].first_line)) != cases[i].kind)
      fail_msg("'%s': sniffed as %d, expected %d", cases[i].first_line,
               (int)gw_smi_sniff(cases[i].first_line, strlen(cases[i].first_line)), (int)cases[i].kind);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_dmon_without_times, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_dmon_with_date_time_two_gpus, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_dmon_csv_and_real_dt, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_query_csv, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_query_values_out_of_range, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_bad_logs, setup, fixture_import_teardown),
    cmocka_unit_test(test_sniff),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
