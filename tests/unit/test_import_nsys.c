/* gpuwhy import of an Nsight Systems SQLite export: the schema check names
 * what is missing; rows land in the tracer's tables with wall-clock times,
 * CUPTI's numbering and one process per pid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/import.h>
#include <sqlite3.h>

#include "import/import_nsys.h"

#define BASE_NS 1790857026000000000LL

static char out_path[256], in_path[256];

#include "import_test_util.h"
#include "fixture_import.h"
#include "support_test_main.h"

/* Build the export from the fixture's SQL, then run extra statements on it. */
static void make_export(const char *extra_sql) {
  FILE *f = fopen(fixture("nsys_small.sql"), "r");
  assert_non_null(f);
  static char sql[65536];
  size_t n = fread(sql, 1, sizeof sql - 1, f);
  fclose(f);
  sql[n] = '\0';
  remove_db(in_path);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(in_path, &db), SQLITE_OK);
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
    fail_msg("fixture SQL: %s", msg);
  if (extra_sql && sqlite3_exec(db, extra_sql, NULL, NULL, &msg) != SQLITE_OK)
    fail_msg("extra SQL: %s", msg);
  sqlite3_close(db);
}

static int setup(void **state) {
  (void)state;
  fixture_import_paths("nsys", ".sqlite", in_path, sizeof in_path);
  return 0;
}

static void test_export_rows(void **state) {
  (void)state;
  make_export(NULL);
  struct gw_import_summary sum;
  fixture_import_ok(in_path, NULL, &sum);
  assert_int_equal(sum.format, GW_IMPORT_NSYS);
  fixture_expect_counts(&sum, (struct fixture_import_counts){
                                  .kernels = 3, .memcpys = 1, .memsets = 1, .syncs = 1, .api_calls = 4, .gpus = 2});
  assert_string_equal(q_text("SELECT source FROM run"), "import:nsys");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.nsys_schema_version'"), "3.16.1");
  /* times: session start + ns offsets; pid from the serialised globalPid */
  EXPECT_INTS("SELECT start_ns, end_ns, pid, dynamic_shmem_bytes FROM kernel WHERE correlation = 11", BASE_NS + 1000000,
              BASE_NS + 1012000, 5001, 1024);
  EXPECT_INTS("SELECT pid, graph_node_id, device FROM kernel WHERE correlation = 21", 5002, 77, 1);
  /* names through StringIds (demangled) */
  assert_string_equal(q_text("SELECT n.name FROM kernel k JOIN trace_name n ON "
                             "n.pid = k.pid AND n.id = k.name_id"
                             " WHERE k.correlation = 11"),
                      "void sgemm_kernel<float>(int)");
  assert_int_equal(q_int("SELECT nccl FROM kernel WHERE correlation = 12"), 1);
  /* nsys's memory kinds (0 pageable, 2 device) become CUPTI's (1, 3) */
  EXPECT_INTS("SELECT (SELECT copy_kind * 100 + src_kind * 10 + dst_kind FROM memcpy),"
              " (SELECT mem_kind FROM memset), (SELECT sync_type FROM sync)",
              113, 3, 3);
  /* runtime calls: tid decoded, cbid from CUPTI's function name */
  EXPECT_INTS("SELECT tid, cbid FROM api WHERE correlation = 11", 5010, 211);
  assert_int_equal(q_int("SELECT cbid FROM api WHERE correlation = 13"), 131);
  /* NVTX: "step 1" of the first process is a step; others are markers */
  assert_int_equal(q_int("SELECT count(*) FROM step WHERE source = 'nsys'"), 1);
  EXPECT_INTS("SELECT t_start_ns, step FROM step", BASE_NS + 800000, 1);
  assert_int_equal(q_int("SELECT count(*) FROM marker"), 2);
  assert_int_equal(q_int("SELECT instant FROM marker m JOIN trace_name n ON "
                         "n.pid = m.pid AND n.id = m.name_id"
                         " WHERE n.name = 'checkpoint'"),
                   1);
  assert_string_equal(q_text("SELECT name FROM gpu WHERE gpu = 1"), "Test GPU B");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'gpu.0.num_sms'"), "132");
}

static void test_missing_pieces(void **state) {
  (void)state;
  char err[512] = "";
  /* a required column gone: named, with the schema version */
  make_export("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN streamId;");
  assert_int_equal(gw_import(in_path, out_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "CUPTI_ACTIVITY_KIND_KERNEL"));
  assert_non_null(strstr(err, "streamId"));
  assert_non_null(strstr(err, "3.16.1"));
  /* optional tables and columns gone: imported, and the gaps said */
  make_export("DROP TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION; DROP TABLE "
              "TARGET_INFO_SESSION_START_TIME;"
              " DROP TABLE ENUM_CUDA_MEM_KIND; ALTER TABLE "
              "CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN gridZ;");
  struct gw_import_summary sum;
  fixture_import_ok(in_path, NULL, &sum);
  const char *missing = q_text("SELECT value FROM meta WHERE key = 'input.0.nsys_missing'");
  assert_non_null(strstr(missing, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
  assert_non_null(strstr(missing, "TARGET_INFO_SESSION_START_TIME"));
  assert_non_null(strstr(missing, "gridZ"));
  assert_non_null(strstr(sum.notes, "session start"));
  /* without the session start, times count from it */
  EXPECT_INTS("SELECT start_ns, grid_z FROM kernel WHERE correlation = 11", 1000000, 0);
  /* without the enum table, the documented numbers give the same kinds */
  assert_int_equal(q_int("SELECT copy_kind * 100 + src_kind * 10 + dst_kind FROM memcpy"), 113);
  /* kernels without any name column cannot be imported */
  make_export("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName;"
              " ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName;");
  assert_int_equal(gw_import(in_path, out_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "neither demangledName nor shortName"));
}

static void test_not_an_export(void **state) {
  (void)state;
  char err[512] = "";
  remove_db(in_path);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(in_path, &db), SQLITE_OK);
  assert_int_equal(
      sqlite3_exec(db, "CREATE TABLE pets (name TEXT); INSERT INTO pets VALUES ('rex');", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  assert_int_equal(gw_import(in_path, out_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "not an Nsight Systems export"));
  /* a gpuwhy recording is not an export either */
  make_export(NULL);
  assert_int_equal(gw_import(in_path, out_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_OK);
  assert_int_equal(gw_import(out_path, in_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "already a gpuwhy recording"));
  /* a damaged file: the SQLite header and then garbage, through the buffer
   * entry point */
  unsigned char junk[4096];
  memset(junk, 0x41, sizeof junk);
  memcpy(junk, "SQLite format 3", 16);
  assert_int_equal(gw_import_nsys_buffer(junk, sizeof junk, "junk.sqlite", ":memory:", err, sizeof err),
                   GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "junk.sqlite"));
}

static void test_step_names(void **state) {
  (void)state;
  int64_t n;
  assert_true(gw_nsys_step_number("step 12", 7, &n) && n == 12);
  assert_true(gw_nsys_step_number("ProfilerStep#7", 14, &n) && n == 7);
  assert_true(gw_nsys_step_number("iteration_3", 11, &n) && n == 3);
  assert_true(gw_nsys_step_number("Train Step 40", 13, &n) && n == 40);
  assert_true(gw_nsys_step_number("step=5", 6, &n) && n == 5);
  assert_false(gw_nsys_step_number("forward", 7, &n));
  assert_false(gw_nsys_step_number("layer 3", 7, &n));
  assert_false(gw_nsys_step_number("step", 4, &n));
  assert_false(gw_nsys_step_number("stepper 2", 9, &n));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_export_rows, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_missing_pieces, setup, fixture_import_teardown),
    cmocka_unit_test_setup_teardown(test_not_an_export, setup, fixture_import_teardown),
    cmocka_unit_test(test_step_names),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
