/* record --step-range (lib/store/step_range.c) on a recording made by the
 * real store: two processes with NVTX ranges named train_step, one of which
 * also has the Python hook's steps. By default the hook's steps stay and the
 * other process gets one step per range; with replace the ranges win there
 * too and keep the hook's rank. Marks and ranges of other names are no steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "store/step_range.h"
#include "store/store_sql.h"
#include "store/store.h"
#include "store/store_trace.h"
#include "support_sql.h"
#include "support_test_main.h"

static const int64_t T0 = 1796140852000000000LL;

static sqlite3 *make_recording(struct gw_store **st, char *path, size_t cap) {
  snprintf(path, cap, "%s/gw-step-range-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_create(st, path, &err), GW_OK);
  struct gw_store_trace *tr = NULL;
  assert_int_equal(gw_store_trace_open(&tr, gw_store_db(*st), &err), GW_OK);
  gw_store_trace_close(tr); /* the tracer's tables, as record --trace makes them */
  sqlite3 *db = gw_store_db(*st);
  /* pid 10: the hook's 3 steps (rank 2) and 4 ranges; pid 20: 5 ranges, a
   * mark of the same name and a range of another name. */
  const char *sql =
      "INSERT INTO trace_name VALUES (524289, 10, 'train_step'), (524289, 20, 'train_step'), (524290, 20, 'fwd');"
      "INSERT INTO step (t_start_ns, t_end_ns, step, source, pid, rank) VALUES"
      " (1000, 2000, 1, 'python_hook', 10, 2), (2000, 3000, 2, 'python_hook', 10, 2),"
      " (3000, 4000, 3, 'python_hook', 10, 2);";
  assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  char row[256];
  for (int i = 0; i < 4; i++) {
    snprintf(row, sizeof row, "INSERT INTO marker VALUES (10, 10, %lld, %lld, 524289, 0, 0)", (long long)(T0 + i * 100),
             (long long)(T0 + i * 100 + 90));
    assert_int_equal(sqlite3_exec(db, row, NULL, NULL, NULL), SQLITE_OK);
  }
  for (int i = 4; i >= 0; i--) { /* stored out of order: steps are numbered by start */
    snprintf(row, sizeof row, "INSERT INTO marker VALUES (20, 21, %lld, %lld, 524289, 0, 0)",
             (long long)(T0 + i * 1000), (long long)(T0 + i * 1000 + 900));
    assert_int_equal(sqlite3_exec(db, row, NULL, NULL, NULL), SQLITE_OK);
  }
  assert_int_equal(sqlite3_exec(db,
                                "INSERT INTO marker VALUES (20, 21, 5, 5, 524289, 0, 1);"
                                "INSERT INTO marker VALUES (20, 21, 7, 9, 524290, 0, 0);",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  return db;
}

/* What applying the train_step ranges (replace or not) to a fresh recording
 * counts, and the step rows it leaves. */
struct apply_case {
  int replace;
  uint64_t steps, kept;
  struct support_sql_expect rows[6];
};

static const struct apply_case KEEP_HOOK_STEPS = {
    0,
    5,
    1,
    {
        {"SELECT count(*) FROM step WHERE pid = 10 AND source = 'python_hook'", 3},
        {"SELECT count(*) FROM step WHERE pid = 20 AND source = 'nvtx_range'", 5},
        {"SELECT step FROM step WHERE pid = 20 ORDER BY t_start_ns LIMIT 1", 1},
        {"SELECT max(step) FROM step WHERE pid = 20", 5},
        {"SELECT t_end_ns - t_start_ns FROM step WHERE pid = 20 AND step = 3", 900},
        {"SELECT count(*) FROM step WHERE pid = 20 AND rank IS NOT NULL", 0},
    },
};

static const struct apply_case REPLACE_HOOK_STEPS = {
    1,
    9,
    0,
    {
        {"SELECT count(*) FROM step WHERE source = 'python_hook'", 0},
        {"SELECT count(*) FROM step WHERE pid = 10", 4},
        {"SELECT count(*) FROM step WHERE pid = 10 AND rank = 2", 4},
    },
};

/* Checks one case; a name no range has then changes nothing. */
static void check_apply(const struct apply_case *c) {
  struct gw_store *st = NULL;
  char path[512];
  sqlite3 *db = make_recording(&st, path, sizeof path);
  uint64_t steps = 0, kept = 0;
  struct gw_err err = {{0}};
  assert_int_equal(gw_step_range_apply(db, "train_step", c->replace, &steps, &kept, &err), GW_OK);
  assert_int_equal(steps, c->steps);
  assert_int_equal(kept, c->kept);
  size_t nrows = 0;
  while (nrows < sizeof c->rows / sizeof c->rows[0] && c->rows[nrows].sql)
    nrows++;
  support_sql_expect_all(db, c->rows, nrows);
  assert_int_equal(gw_step_range_apply(db, "no_such", 0, &steps, &kept, &err), GW_OK);
  assert_int_equal(steps + kept, 0);
  gw_store_close(st);
  unlink(path);
}

static void hook_steps_kept_by_default(void **state) {
  (void)state;
  check_apply(&KEEP_HOOK_STEPS);
}

static void ranges_replace_when_asked(void **state) {
  (void)state;
  check_apply(&REPLACE_HOOK_STEPS);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(hook_steps_kept_by_default),
    cmocka_unit_test(ranges_replace_when_asked),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
