/* Direct SQLite reads of what the store wrote, for checks that do not go
 * through the store. Header-only; include after <cmocka.h>. */
#ifndef GW_SUPPORT_SQL_H
#define GW_SUPPORT_SQL_H

#include <sqlite3.h>
#include <stdint.h>

/* The first column of the first row of sql; *is_null (when given) says
 * whether it was NULL, which reads as 0. */
static inline int64_t support_query_i64_null(sqlite3 *db, const char *sql, int *is_null) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  assert_int_equal(sqlite3_step(s), SQLITE_ROW);
  if (is_null)
    *is_null = sqlite3_column_type(s, 0) == SQLITE_NULL;
  int64_t v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

static inline int64_t support_query_i64(sqlite3 *db, const char *sql) {
  return support_query_i64_null(db, sql, NULL);
}

/* The same on a recording's file, opened for this one query. */
static inline int64_t support_query_i64_at(const char *path, const char *sql) {
  sqlite3 *h;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  int64_t v = support_query_i64(h, sql);
  sqlite3_close(h);
  return v;
}

/* Runs sql (several statements allowed) on a recording's file. */
static inline void support_exec_sql_at(const char *path, const char *sql) {
  sqlite3 *h;
  assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
  char *msg = NULL;
  if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
    fail_msg("%s: %s", sql, msg);
  sqlite3_close(h);
}

/* An integer that must be there: one row of sql and the value it should have. */
struct support_sql_expect {
  const char *sql;
  int64_t want;
};

/* Checks each expectation of a table on db. */
static inline void support_sql_expect_all(sqlite3 *db, const struct support_sql_expect *e, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int64_t got = support_query_i64(db, e[i].sql);
    if (got != e[i].want)
      fail_msg("%s: %lld, expected %lld", e[i].sql, (long long)got, (long long)e[i].want);
  }
}

#endif
