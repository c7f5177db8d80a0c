/* Binding a value that may be unknown: the column gets NULL, never a made-up
 * 0, so that readers keep "unknown" apart from a measured zero. */
#include "store_sql.h"

void gw_store_bind_text(sqlite3_stmt *s, int i, const char *v) {
  if (v)
    sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(s, i);
}

void gw_store_bind_opt_int(sqlite3_stmt *s, int i, int known, int64_t v) {
  if (known)
    sqlite3_bind_int64(s, i, v);
  else
    sqlite3_bind_null(s, i);
}

void gw_store_bind_opt_double(sqlite3_stmt *s, int i, int known, double v) {
  if (known)
    sqlite3_bind_double(s, i, v);
  else
    sqlite3_bind_null(s, i);
}
