/* Running the input as SQL on a scratch database without letting it reach
 * anything else: no ATTACH, no VACUUM (VACUUM INTO writes any file), only
 * the pragmas that set what gpuwhy's readers check, a bound on the work of
 * one input and on the size of one value. */
#ifndef GW_FUZZ_SQL_H
#define GW_FUZZ_SQL_H

#include <sqlite3.h>
#include <strings.h>

#include "fuzz_util.h"

static inline int fuzz_sql_authorize(void *ctx, int action, const char *a, const char *b, const char *db,
                                     const char *trigger) {
  (void)ctx;
  (void)b;
  (void)trigger;
  switch (action) {
  case SQLITE_ATTACH:
  case SQLITE_DETACH:
    return SQLITE_DENY;
  case SQLITE_PRAGMA:
    if (a && (!strcasecmp(a, "application_id") || !strcasecmp(a, "user_version") || !strcasecmp(a, "writable_schema") ||
              !strcasecmp(a, "schema_version")))
      return SQLITE_OK;
    return SQLITE_DENY;
  default:
    /* Only the main database and the temp schema, never another file. */
    if (db && strcmp(db, "main") != 0 && strcmp(db, "temp") != 0)
      return SQLITE_DENY;
    return SQLITE_OK;
  }
}

/* Bounds the work of one input (recursive queries can run forever). */
static inline int fuzz_sql_progress(void *ctx) {
  return ++*(int *)ctx > 2000;
}

/* 1 when the statement text may not be run at all. */
static inline int fuzz_sql_refused(const char *sql) {
  for (const char *p = sql; *p; p++)
    if (strncasecmp(p, "vacuum", 6) == 0)
      return 1;
  return 0;
}

/* Run sql on the database file at path; errors in the SQL are the input's business. */
static inline void fuzz_sql_run(const char *path, const char *sql) {
  sqlite3 *db = NULL;
  if (sqlite3_open(path, &db) != SQLITE_OK)
    abort();
  int steps = 0;
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_progress_handler(db, 1000, fuzz_sql_progress, &steps);
  sqlite3_set_authorizer(db, fuzz_sql_authorize, NULL);
  sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_close(db);
}

#endif
