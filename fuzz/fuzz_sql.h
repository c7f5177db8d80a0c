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
/* harness code: no coverage feedback from its byte scan (noinline: inlined
 * into the target's instrumented function at -O1 it would be instrumented) */
static inline __attribute__((no_sanitize("coverage"), noinline)) int fuzz_sql_refused(const char *sql) {
  for (const char *p = sql; *p; p++) /* the first letter first: strncasecmp at every byte was 6% of a run */
    if ((*p == 'v' || *p == 'V') && strncasecmp(p, "vacuum", 6) == 0)
      return 1;
  return 0;
}

/* Run sql on an open database; errors in the SQL are the input's business. */
static inline void fuzz_sql_exec(sqlite3 *db, const char *sql) {
  int steps = 0;
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_progress_handler(db, 1000, fuzz_sql_progress, &steps);
  sqlite3_set_authorizer(db, fuzz_sql_authorize, NULL);
  sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_progress_handler(db, 0, NULL, NULL);
  sqlite3_set_authorizer(db, NULL, NULL);
}

/* A writable in-memory database holding a copy of image (empty when size
 * is 0): the input's SQL runs there, with no file and no fsync. */
static inline sqlite3 *fuzz_sql_memory_db(const unsigned char *image, size_t size) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK)
    abort();
  if (size) {
    unsigned char *copy = sqlite3_malloc64(size);
    if (!copy)
      abort();
    memcpy(copy, image, size);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
      abort();
  }
  return db;
}

/* The database's bytes after the SQL (sqlite3_free them); NULL when it has none. */
static inline unsigned char *fuzz_sql_image(sqlite3 *db, size_t *size) {
  sqlite3_int64 n = 0;
  unsigned char *bytes = sqlite3_serialize(db, "main", &n, 0);
  *size = bytes && n > 0 ? (size_t)n : 0;
  return bytes;
}

#endif
