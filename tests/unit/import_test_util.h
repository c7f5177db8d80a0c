/* Helpers shared by the importer tests. The including file defines
 * `static char out_path[256]` (the recording an import writes) before
 * including this header, after cmocka.h and sqlite3.h. */
#ifndef GW_IMPORT_TEST_UTIL_H
#define GW_IMPORT_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A file of tests/fixtures/import. */
static inline const char *fixture(const char *name) {
  static char path[1024];
  const char *dir = getenv("GW_FIXTURES");
  snprintf(path, sizeof path, "%s/import/%s", dir ? dir : "tests/fixtures", name);
  return path;
}

/* A SQLite file and its side files. */
static inline void remove_db(const char *path) {
  static const char *const sides[] = {"-wal", "-shm", "-journal"};
  char side[300];
  unlink(path);
  for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
    if (snprintf(side, sizeof side, "%s%s", path, sides[i]) < (int)sizeof side)
      unlink(side);
}

/* Runs sql on out_path; the caller reads column 0 and calls q_close. */
static inline sqlite3_stmt *q_first_row(const char *sql, sqlite3 **db, int need_row) {
  assert_int_equal(sqlite3_open_v2(out_path, db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(*db, sql, -1, &s, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(*db));
  int rc = sqlite3_step(s);
  if (need_row)
    assert_int_equal(rc, SQLITE_ROW);
  return rc == SQLITE_ROW ? s : (sqlite3_finalize(s), (sqlite3_stmt *)NULL);
}

static inline void q_close(sqlite3 *db, sqlite3_stmt *s) {
  sqlite3_finalize(s);
  sqlite3_close(db);
}

/* The first row's one value as an integer and as a number; 1 when it is
 * NULL (both left alone). */
static inline int q_scalar(const char *sql, int64_t *as_int, double *as_num) {
  sqlite3 *db;
  sqlite3_stmt *s = q_first_row(sql, &db, 1);
  int is_null = sqlite3_column_type(s, 0) == SQLITE_NULL;
  if (!is_null) {
    *as_int = sqlite3_column_int64(s, 0);
    *as_num = sqlite3_column_double(s, 0);
  }
  q_close(db, s);
  return is_null;
}

/* One integer; -999 for NULL. */
static inline int64_t q_int(const char *sql) {
  int64_t v;
  double unused;
  return q_scalar(sql, &v, &unused) ? -999 : v;
}

/* One number; -999 for NULL. */
static inline double q_num(const char *sql) {
  int64_t unused;
  double v;
  return q_scalar(sql, &unused, &v) ? -999 : v;
}

/* One text value; "" for no row or NULL. */
static inline const char *q_text(const char *sql) {
  static char buf[4096];
  sqlite3 *db;
  sqlite3_stmt *s = q_first_row(sql, &db, 0);
  buf[0] = '\0';
  if (s && sqlite3_column_text(s, 0))
    snprintf(buf, sizeof buf, "%s", (const char *)sqlite3_column_text(s, 0));
  q_close(db, s);
  return buf;
}

#endif
