#include "step_range.h"
#include "store_sql.h"

#include <stddef.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>
#include <stdio.h>

#include "store/store.h"

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
      gw_store_bind_opt_int(insert, 5, rank >= 0, rank);
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

gw_status gw_step_range_file(const char *src, const char *dst, const char *name, int replace, uint64_t *steps_out,
                             uint64_t *kept_out, struct gw_err *err) {
  *steps_out = *kept_out = 0;
  sqlite3 *db = NULL;
  const char *path = dst ? dst : src;
  gw_status rc = GW_OK;
  if (dst) {
    /* VACUUM INTO: a consistent copy, even of a recording still in WAL mode */
    sqlite3_stmt *s = NULL;
    if (sqlite3_open_v2(src, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "VACUUM INTO ?", -1, &s, NULL) != SQLITE_OK ||
        sqlite3_bind_text(s, 1, dst, -1, SQLITE_STATIC) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE) {
      gw_err_set(err, "%s: cannot copy the recording to %s: %s", src, dst, db ? sqlite3_errmsg(db) : "no memory");
      rc = GW_EIO;
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    db = NULL;
    if (rc != GW_OK)
      return rc;
  }
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    gw_err_set(err, "%s: cannot open the recording: %s", path, db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_close(db);
    return GW_EIO;
  }
  sqlite3_busy_timeout(db, 5000);
  if (!gw_store_table_exists(db, "marker") || !gw_store_table_exists(db, "trace_name") ||
      !gw_store_table_exists(db, "step")) {
    gw_err_set(err, "%s has no NVTX ranges (no marker table): record with --trace", src);
    rc = GW_EINPUT;
  } else if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    rc = fail(db, err, "cannot start a transaction");
  } else {
    rc = gw_step_range_apply(db, name, replace, steps_out, kept_out, err);
    if (sqlite3_exec(db, rc == GW_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && rc == GW_OK)
      rc = fail(db, err, "cannot commit the steps");
  }
  sqlite3_close(db);
  return rc;
}

gw_status gw_store_step_range_apply(struct gw_store *store, const char *name, int replace, uint64_t *steps_out,
                                    uint64_t *kept_out, struct gw_err *err) {
  return gw_step_range_apply(gw_store_db(store), name, replace, steps_out, kept_out, err);
}

int gw_record_steps_from_ranges(const char *src, const char *dst, const char *name, int replace,
                                unsigned long long *steps, unsigned long long *kept, char *msg, unsigned msg_cap) {
  uint64_t made = 0, kept_own = 0;
  struct gw_err err = {{0}};
  gw_status rc = gw_step_range_file(src, dst, name, replace, &made, &kept_own, &err);
  *steps = made;
  *kept = kept_own;
  if (rc != GW_OK) {
    snprintf(msg, msg_cap, "%s", err.msg);
    return GPUWHY_EXIT_INPUT;
  }
  return GPUWHY_EXIT_OK;
}
