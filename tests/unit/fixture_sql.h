/* SQLite statements for the unit tests that read or fill a recording
 * directly. Header-only; include after <cmocka.h>. */
#ifndef GW_FIXTURE_SQL_H
#define GW_FIXTURE_SQL_H

#include <sqlite3.h>

/* sql prepared on db; the test fails with SQLite's message when it cannot be. */
static inline sqlite3_stmt *fixture_prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  return st;
}

/* sql prepared and stepped to its first row, which must exist; the caller
 * reads it, steps on and finalizes. */
static inline sqlite3_stmt *fixture_first_row(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = fixture_prepare(db, sql);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  return st;
}

#endif
