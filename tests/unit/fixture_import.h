/* For the importer tests: this process's paths, an import that must
 * succeed, and the first row of a query on the recording compared column by
 * column, so that one statement checks one record's fields together.
 * Header-only; include after import_test_util.h (it names out_path and uses
 * q_first_row and remove_db). */
#ifndef GW_FIXTURE_IMPORT_H
#define GW_FIXTURE_IMPORT_H

#include <gpuwhy/import.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* The input path fixture_import_paths named, removed by fixture_import_teardown. */
static const char *fixture_import_input;

/* Names this process's recording out_path and its input *in (in_ext: the
 * input's ending) after the importer, in /tmp. */
static inline void fixture_import_paths(const char *importer, const char *in_ext, char *in, size_t in_cap) {
  snprintf(out_path, sizeof out_path, "/tmp/gw_test_import_%s_%d.db", importer, (int)getpid());
  snprintf(in, in_cap, "/tmp/gw_test_import_%s_%d%s", importer, (int)getpid(), in_ext);
  fixture_import_input = in;
}

/* A cmocka teardown: the recording and the input file go. */
static inline int fixture_import_teardown(void **state) {
  (void)state;
  remove_db(out_path);
  if (fixture_import_input)
    remove_db(fixture_import_input);
  return 0;
}

/* Imports input into out_path; the test fails with the importer's message
 * when it cannot. opts and sum may be NULL. */
static inline void fixture_import_ok(const char *input, const struct gw_import_opts *opts,
                                     struct gw_import_summary *sum) {
  char err[512] = "";
  if (gw_import(input, out_path, opts, sum, err, sizeof err))
    fail_msg("%s: %s", input, err);
}

/* The first row of sql must have n columns, column i reading want_int[i]
 * as an integer, or want_num[i] as a number compared exactly, whichever is
 * given (-999 for NULL, as q_int and q_num read it). */
static inline void fixture_expect_row(const char *sql, const int64_t *want_int, const double *want_num, size_t n) {
  sqlite3 *db;
  sqlite3_stmt *s = q_first_row(sql, &db, 1);
  assert_int_equal(sqlite3_column_count(s), n);
  for (size_t i = 0; i < n; i++) {
    int null = sqlite3_column_type(s, (int)i) == SQLITE_NULL;
    double got = null ? -999 : sqlite3_column_double(s, (int)i), want = want_num ? want_num[i] : NAN;
    int64_t got_int = null ? -999 : sqlite3_column_int64(s, (int)i);
    if (want_int ? got_int != want_int[i] : got != want) {
      q_close(db, s);
      if (want_int)
        fail_msg("%s: column %zu reads %lld, expected %lld", sql, i, (long long)got_int, (long long)want_int[i]);
      fail_msg("%s: column %zu reads %.17g, expected %.17g", sql, i, got, want);
    }
  }
  q_close(db, s);
}

/* EXPECT_INTS("SELECT a, b FROM t", 1, 2): the row's columns, in order. */
#define EXPECT_INTS(sql, ...)                                                                                          \
  fixture_expect_row(sql, (const int64_t[]){__VA_ARGS__}, NULL,                                                        \
                     sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define EXPECT_NUMS(sql, ...)                                                                                          \
  fixture_expect_row(sql, NULL, (const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / sizeof(double))

/* The record counts of an import's summary. */
struct fixture_import_counts {
  uint64_t kernels, memcpys, memsets, syncs, api_calls;
  int gpus;
};

static inline void fixture_expect_counts(const struct gw_import_summary *sum, struct fixture_import_counts want) {
  assert_int_equal(sum->kernels, want.kernels);
  assert_int_equal(sum->memcpys, want.memcpys);
  assert_int_equal(sum->memsets, want.memsets);
  assert_int_equal(sum->syncs, want.syncs);
  assert_int_equal(sum->api_calls, want.api_calls);
  assert_int_equal(sum->gpus, want.gpus);
}

#endif
