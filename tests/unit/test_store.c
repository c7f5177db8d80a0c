/* The recording store: schema, NULL for unread metrics, version checks,
 * refusal of files that are not recordings. */
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

#include "analysis/series.h"
#include "store/store.h"
#include "store/store_sql.h"
#include "support_sql.h"
#include "support_tmp_files.h"
#include "support_test_main.h"

static char path[256];

static int setup(void **state) {
  (void)state;
  snprintf(path, sizeof path, "/tmp/gw_test_store_%d.db", (int)getpid());
  return 0;
}

static int teardown(void **state) {
  (void)state;
  support_db_remove(path);
  return 0;
}

/* A new recording at path; the test closes it. */
static struct gw_store *create_store(void) {
  struct gw_store *st = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_create(&st, path, &err), GW_OK);
  return st;
}

struct metric_value {
  enum gw_gpu_metric m;
  double v;
};

/* A new recording holding one sample of GPU 0 at 1000 ns with these metrics
 * set, written to the tables (bits of GW_TABLE_*) and committed. */
static struct gw_store *store_with_gpu_sample(const struct metric_value *mv, size_t n, unsigned tables) {
  struct gw_store *st = create_store();
  struct gw_gpu_sample s;
  memset(&s, 0, sizeof s);
  s.t_ns = 1000;
  s.gpu = 0;
  for (size_t i = 0; i < n; i++)
    gw_gpu_set(&s, mv[i].m, mv[i].v);
  assert_int_equal(gw_store_put_gpu_sample(st, &s, tables), GW_OK);
  assert_int_equal(gw_store_commit(st), GW_OK);
  return st;
}

/* What one query reads: NULL (unknown), or this value. */
struct column_expect {
  const char *sql;
  int is_null;
  int64_t value;
};

static void check_columns(sqlite3 *db, const struct column_expect *e, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int null;
    int64_t got = support_query_i64_null(db, e[i].sql, &null);
    if (null != e[i].is_null || (!null && got != e[i].value))
      fail_msg("%s: %s%lld, expected %s%lld", e[i].sql, null ? "NULL " : "", (long long)got, e[i].is_null ? "NULL" : "",
               e[i].is_null ? 0LL : (long long)e[i].value);
  }
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_unread_metrics_are_null(void **state) {
  (void)state;
  static const struct metric_value set[] = {
      {GW_M_power_mw, 400000},
      {GW_M_util_gpu_pct, 0}, /* a real zero must stay zero */
      {GW_M_temp_gpu_c, 55},
  };
  struct gw_store *st = store_with_gpu_sample(set, COUNT(set), (1u << GW_TABLE_FAST) | (1u << GW_TABLE_SLOW));
  static const struct column_expect rows[] = {
      {"SELECT power_mw FROM gpu_sample", 0, 400000},    {"SELECT util_gpu_pct FROM gpu_sample", 0, 0},
      {"SELECT sm_active_pct FROM gpu_sample", 1, 0},    {"SELECT temp_gpu_c FROM gpu_health", 0, 55},
      {"SELECT ecc_dbe_volatile FROM gpu_health", 1, 0},
  };
  check_columns(gw_store_db(st), rows, COUNT(rows));
  gw_store_close(st);
}

/* An integer metric beyond what int64 holds (or not a number) is stored as
 * unknown, never converted: the conversion would be undefined. */
static void test_out_of_range_integers_are_null(void **state) {
  (void)state;
  static const struct metric_value set[] = {
      {GW_M_power_mw, 1e30},
      {GW_M_mem_used_bytes, -1e19},
      {GW_M_sm_clock_mhz, NAN},
      {GW_M_mem_clock_mhz, 8e18}, /* in range: kept */
  };
  struct gw_store *st = store_with_gpu_sample(set, COUNT(set), 1u << GW_TABLE_FAST);
  static const struct column_expect rows[] = {
      {"SELECT power_mw FROM gpu_sample", 1, 0},
      {"SELECT mem_used_bytes FROM gpu_sample", 1, 0},
      {"SELECT sm_clock_mhz FROM gpu_sample", 1, 0},
      {"SELECT mem_clock_mhz FROM gpu_sample", 0, 8000000000000000000LL},
  };
  check_columns(gw_store_db(st), rows, COUNT(rows));
  gw_store_close(st);
}

static void test_host_sample_rows(void **state) {
  (void)state;
  struct gw_store *st = create_store();
  struct gw_cpu_sample cores[2] = {{0, 50, 40, 10, 0, 0}, {1, 100, 100, 0, 0, 0}};
  struct gw_proc_sample procs[2] = {{10, 1, GW_ROLE_TARGET, "python3", 'R', 99.5, 12, 1 << 20, 1},
                                    {11, 10, GW_ROLE_CHILD, "pt_data_worker", 'S', -1, 3, 1 << 20, -1}};
  struct gw_host_sample h;
  memset(&h, 0, sizeof h);
  h.t_ns = 5;
  h.valid = 1u << GW_H_CPU;
  h.total = (struct gw_cpu_sample){-1, 75, 70, 5, 0, 0};
  h.ncores = 2;
  h.cores = cores;
  h.nprocs = 2;
  h.procs = procs;
  assert_int_equal(gw_store_put_host_sample(st, &h), GW_OK);
  assert_int_equal(gw_store_commit(st), GW_OK);
  static const struct column_expect rows[] = {
      {"SELECT count(*) FROM cpu_sample", 0, 2},
      {"SELECT count(*) FROM proc_sample", 0, 2},
      {"SELECT cpu_pct FROM proc_sample WHERE pid = 11", 1, 0}, /* first sample of a process has no rate yet */
      {"SELECT mem_total_bytes FROM host_sample", 1, 0},        /* memory not marked valid */
  };
  check_columns(gw_store_db(st), rows, COUNT(rows));
  gw_store_close(st);
}

static void test_reopen_and_version_checks(void **state) {
  (void)state;
  struct gw_store *st;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_create(&st, path, &err), GW_OK);
  struct gw_run_info run = {.started_ns = 42, .command_json = "[\"python3\"]", .interval_ms = 100};
  assert_int_equal(gw_store_put_run(st, &run), GW_OK);
  gw_store_close(st);

  assert_int_equal(gw_store_open(&st, path, 1, &err), GW_OK);
  assert_int_equal(support_query_i64_null(gw_store_db(st), "SELECT started_ns FROM run", NULL), 42);
  gw_store_close(st);

  /* A newer schema is refused with a message that says so. */
  support_exec_sql_at(path, "PRAGMA user_version = 99");
  assert_int_equal(gw_store_open(&st, path, 1, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "newer gpuwhy"));

  /* Another application's SQLite file. */
  support_exec_sql_at(path, "PRAGMA application_id = 7");
  assert_int_equal(gw_store_open(&st, path, 1, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "not a gpuwhy recording"));
}

static void test_garbage_and_missing_files(void **state) {
  (void)state;
  struct gw_store *st;
  struct gw_err err = {{0}};
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("this is not a database, just text that someone passed by mistake\n", f);
  fclose(f);
  assert_int_equal(gw_store_open(&st, path, 1, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, path));
  assert_null(st);
  assert_int_equal(gw_store_open(&st, "/nonexistent/dir/x.db", 1, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "no such file"));
  assert_int_not_equal(gw_store_create(&st, "/nonexistent/dir/x.db", &err), GW_OK);
  assert_non_null(strstr(err.msg, "/nonexistent/dir/x.db"));
}

static void test_truncated_file(void **state) {
  (void)state;
  struct gw_store *st;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_create(&st, path, &err), GW_OK);
  struct gw_gpu_sample s;
  memset(&s, 0, sizeof s);
  for (int i = 0; i < 2000; i++) {
    s.t_ns = i;
    gw_gpu_set(&s, GW_M_power_mw, i);
    assert_int_equal(gw_store_put_gpu_sample(st, &s, 1u << GW_TABLE_FAST), GW_OK);
  }
  gw_store_close(st);
  /* Fold the WAL back so the main file holds the data, then cut it in half. */
  support_exec_sql_at(path, "PRAGMA journal_mode=DELETE");
  FILE *f = fopen(path, "r+");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fclose(f);
  assert_int_equal(truncate(path, size / 2), 0);
  gw_status rc = gw_store_open(&st, path, 1, &err);
  if (rc == GW_OK) {
    /* The header survived: reading the cut table must fail cleanly, not crash. */
    int r = sqlite3_exec(gw_store_db(st), "SELECT sum(power_mw) FROM gpu_sample", NULL, NULL, NULL);
    assert_int_not_equal(r, SQLITE_OK);
    gw_store_close(st);
  } else {
    assert_int_equal(rc, GW_EINPUT);
  }
}

/* gw_store_table_exists and gw_store_column_exists read SQLite's parsed
 * schema: tables of the main database only (not a view, not a temp table),
 * names without case as SQL resolves them, and a schema change seen at once. */
static void test_table_and_column_checks(void **state) {
  (void)state;
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db,
                                "CREATE TABLE t (a INTEGER, b TEXT); CREATE VIEW v AS SELECT 1 AS a;"
                                " CREATE TEMP TABLE tt (x INTEGER)",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  /* column NULL: the table's check (gw_store_table_exists); else the column's */
  static const struct {
    const char *table, *column;
    int want;
  } checks[] = {
      {"t", NULL, 1}, {"T", NULL, 1}, {"v", NULL, 0}, {"tt", NULL, 0}, {"missing", NULL, 0},
      {"t", "a", 1},  {"t", "B", 1},  {"t", "c", 0},  {"v", "a", 0},   {"missing", "a", 0},
  };
  for (size_t i = 0; i < COUNT(checks); i++) {
    const char *t = checks[i].table, *c = checks[i].column;
    assert_int_equal(c ? gw_store_column_exists(db, t, c) : gw_store_table_exists(db, t), checks[i].want);
  }
  assert_int_equal(gw_store_table_exists(db, NULL), 0);
  assert_int_equal(gw_store_column_exists(db, "t", NULL), 0);
  /* a column added and a table dropped after the schema was first read */
  assert_int_equal(sqlite3_exec(db, "ALTER TABLE t ADD COLUMN c REAL; CREATE TABLE u (z)", NULL, NULL, NULL),
                   SQLITE_OK);
  assert_int_equal(gw_store_column_exists(db, "t", "c"), 1);
  assert_int_equal(gw_store_table_exists(db, "u"), 1);
  assert_int_equal(sqlite3_exec(db, "DROP TABLE u", NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(gw_store_table_exists(db, "u"), 0);
  sqlite3_close(db);
}

/* A recording made in memory writes rows although its statements are
 * prepared at their first use, and an open of a recording that lost a
 * table fails, read-write (as when every statement was prepared there) and
 * read-only (check_tables). */
static void test_statements_prepared_at_first_use(void **state) {
  (void)state;
  struct gw_store *st = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_create(&st, path, &err), GW_OK);
  assert_int_equal(gw_store_put_meta(st, "k", "v"), GW_OK);
  assert_int_equal(gw_store_put_step(st, 1000, 2000, 1, "test"), GW_OK);
  assert_int_equal(gw_store_commit(st), GW_OK);
  assert_int_equal(sqlite3_exec(gw_store_db(st), "DROP TABLE disk_sample", NULL, NULL, NULL), SQLITE_OK);
  gw_store_close(st);
  /* every recording of its version has disk_sample: read-only, it is refused as damaged too */
  assert_int_equal(gw_store_count_rows(path, "SELECT count(*) FROM step", NULL), -1);
  st = NULL;
  assert_int_not_equal(gw_store_open(&st, path, 0, &err), GW_OK);
  assert_null(st);
  assert_non_null(strstr(err.msg, "disk_sample"));
}

/* The value SQLite's own fold gives at one tick (what the loader once read
 * with GROUP BY t_ns), NAN for NULL. */
static double disk_fold_at(sqlite3 *db, const char *fold, int64_t t_ns) {
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT %s FROM disk_sample WHERE t_ns = %lld", fold, (long long)t_ns);
  sqlite3_stmt *s = NULL;
  assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(s), SQLITE_ROW);
  double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
  sqlite3_finalize(s);
  return v;
}

static void assert_same_or_both_nan(double got, double want) {
  if (isnan(want))
    assert_true(isnan(got));
  else
    assert_float_equal(got, want, 1e-9 * (fabs(want) + 1));
}

/* A real recording (two disks) whose host rows were written newest first and
 * whose disk rows have NULLs: the host series reads in time order with the
 * latest governor, and each tick's disk figures are max(util_pct),
 * sum(read_bps) and sum(write_bps) of its rows, as SQLite folds them. */
static void test_host_rows_out_of_order_and_disks_folded(void **state) {
  (void)state;
  const char *fixtures = getenv("GW_FIXTURES");
  if (!fixtures)
    skip();
  char src[512];
  snprintf(src, sizeof src, "%s/scenarios/schedule_eval.db", fixtures);
  support_copy_file(src, path);
  struct gw_recording *in_order = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_recording_load(path, &in_order, &err), GW_OK);
  support_exec_sql_at(path, "CREATE TABLE h AS SELECT * FROM host_sample ORDER BY t_ns DESC; DELETE FROM host_sample;"
                            " INSERT INTO host_sample SELECT * FROM h; DROP TABLE h;"
                            " UPDATE host_sample SET governor = CASE WHEN t_ns = (SELECT max(t_ns) FROM host_sample)"
                            " THEN 'performance' ELSE 'powersave' END;"
                            /* one disk's busy share unknown at the 10th tick; neither disk's reads at the 20th */
                            " UPDATE disk_sample SET util_pct = NULL WHERE rowid = (SELECT min(rowid) FROM disk_sample"
                            " WHERE t_ns = (SELECT t_ns FROM host_sample ORDER BY t_ns LIMIT 1 OFFSET 9));"
                            " UPDATE disk_sample SET read_bps = NULL WHERE t_ns ="
                            " (SELECT t_ns FROM host_sample ORDER BY t_ns LIMIT 1 OFFSET 19);");
  assert_int_equal(support_query_i64_at(path, "SELECT count(DISTINCT dev) FROM disk_sample"), 2);
  struct gw_recording *rec = NULL;
  assert_int_equal(gw_recording_load(path, &rec, &err), GW_OK);
  const struct gw_host_series *h = &rec->host, *h0 = &in_order->host;
  assert_int_equal(h->n, h0->n);
  assert_true(h->n > 100);
  assert_string_equal(h->governor, "performance");
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  for (size_t i = 0; i < h->n; i++) {
    assert_int_equal(h->t_ns[i], h0->t_ns[i]);
    assert_same_or_both_nan(h->cpu_busy_pct[i], h0->cpu_busy_pct[i]);
    assert_same_or_both_nan(h->main_cpu_pct[i], h0->main_cpu_pct[i]);
    assert_same_or_both_nan(h->disk_util_max_pct[i], disk_fold_at(db, "max(util_pct)", h->t_ns[i]));
    assert_same_or_both_nan(h->disk_read_bps[i], disk_fold_at(db, "sum(read_bps)", h->t_ns[i]));
    assert_same_or_both_nan(h->disk_write_bps[i], disk_fold_at(db, "sum(write_bps)", h->t_ns[i]));
  }
  /* the 10th tick kept the other disk's busy share; the 20th tick's reads are unknown */
  assert_false(isnan(h->disk_util_max_pct[9]));
  assert_true(isnan(h->disk_read_bps[19]));
  assert_false(isnan(h->disk_read_bps[18]));
  sqlite3_close(db);
  gw_recording_free(rec);
  gw_recording_free(in_order);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table_and_column_checks),
    cmocka_unit_test_setup_teardown(test_statements_prepared_at_first_use, setup, teardown),
    cmocka_unit_test_setup_teardown(test_unread_metrics_are_null, setup, teardown),
    cmocka_unit_test_setup_teardown(test_out_of_range_integers_are_null, setup, teardown),
    cmocka_unit_test_setup_teardown(test_host_sample_rows, setup, teardown),
    cmocka_unit_test_setup_teardown(test_host_rows_out_of_order_and_disks_folded, setup, teardown),
    cmocka_unit_test_setup_teardown(test_reopen_and_version_checks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_garbage_and_missing_files, setup, teardown),
    cmocka_unit_test_setup_teardown(test_truncated_file, setup, teardown),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
