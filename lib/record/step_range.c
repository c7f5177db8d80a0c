#include "step_range.h"

#include <stddef.h>

#define SOURCE_RANGE "nvtx_range"

static gw_status fail(sqlite3 *db, struct gw_err *err, const char *what) {
  gw_err_set(err, "recording: steps from NVTX ranges: %s: %s", what, sqlite3_errmsg(db));
  return GW_EIO;
}

static int run(sqlite3 *db, const char *sql, int64_t pid) {
  sqlite3_stmt *s = NULL;
  int ok = sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_bind_int64(s, 1, pid) == SQLITE_OK &&
           sqlite3_step(s) == SQLITE_DONE;
  sqlite3_finalize(s);
  return ok ? 0 : -1;
}

gw_status gw_step_range_apply(sqlite3 *db, const char *name, int replace, uint64_t *steps_out, uint64_t *kept_out,
                              struct gw_err *err) {
  *steps_out = *kept_out = 0;
  sqlite3_stmt *pids = NULL, *ranges = NULL, *insert = NULL, *has = NULL;
  gw_status rc = GW_OK;
  /* Names are per process (the NAME records of its own files); a range ends
   * after it starts, marks (instant) are not steps. */
  if (sqlite3_prepare_v2(db,
                         "SELECT DISTINCT m.pid FROM marker m JOIN trace_name n ON n.pid = m.pid AND n.id = m.name_id"
                         " WHERE n.name = ?1 AND m.instant = 0 AND m.end_ns > m.start_ns ORDER BY m.pid",
                         -1, &pids, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "SELECT m.start_ns, m.end_ns FROM marker m JOIN trace_name n ON n.pid = m.pid AND"
                         " n.id = m.name_id WHERE n.name = ?1 AND m.pid = ?2 AND m.instant = 0 AND"
                         " m.end_ns > m.start_ns ORDER BY m.start_ns",
                         -1, &ranges, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT count(*), max(rank) FROM step WHERE pid = ?1", -1, &has, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(
          db, "INSERT INTO step (t_start_ns, t_end_ns, step, source, pid, rank) VALUES (?,?,?,'" SOURCE_RANGE "',?,?)",
          -1, &insert, NULL) != SQLITE_OK) {
    rc = fail(db, err, "cannot read the marker table or write the step table");
    goto out;
  }
  sqlite3_bind_text(pids, 1, name, -1, SQLITE_STATIC);
  sqlite3_bind_text(ranges, 1, name, -1, SQLITE_STATIC);
  while (rc == GW_OK && sqlite3_step(pids) == SQLITE_ROW) {
    int64_t pid = sqlite3_column_int64(pids, 0);
    sqlite3_bind_int64(has, 1, pid);
    int64_t existing = 0, rank = -1;
    if (sqlite3_step(has) == SQLITE_ROW) {
      existing = sqlite3_column_int64(has, 0);
      if (sqlite3_column_type(has, 1) == SQLITE_INTEGER)
        rank = sqlite3_column_int64(has, 1); /* the hook knew the process's rank */
    }
    sqlite3_reset(has);
    if (existing && !replace) {
      (*kept_out)++;
      continue;
    }
    if (existing && run(db, "DELETE FROM step WHERE pid = ?1", pid) != 0) {
      rc = fail(db, err, "cannot replace the Python hook's steps");
      break;
    }
    sqlite3_bind_int64(ranges, 2, pid);
    int64_t number = 0;
    while (rc == GW_OK && sqlite3_step(ranges) == SQLITE_ROW) {
      sqlite3_bind_int64(insert, 1, sqlite3_column_int64(ranges, 0));
      sqlite3_bind_int64(insert, 2, sqlite3_column_int64(ranges, 1));
      sqlite3_bind_int64(insert, 3, ++number);
      sqlite3_bind_int64(insert, 4, pid);
      if (rank >= 0)
        sqlite3_bind_int64(insert, 5, rank);
      else
        sqlite3_bind_null(insert, 5);
      if (sqlite3_step(insert) != SQLITE_DONE)
        rc = fail(db, err, "cannot write a step");
      else
        (*steps_out)++;
      sqlite3_reset(insert);
    }
    sqlite3_reset(ranges);
  }
out:
  sqlite3_finalize(pids);
  sqlite3_finalize(ranges);
  sqlite3_finalize(has);
  sqlite3_finalize(insert);
  return rc;
}
