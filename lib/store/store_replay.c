#include "store/store_replay.h"
#include "store_sql.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"
#include "store/store.h"

/* The tables replayed, the column that places a row in time, and a second
 * time column moved along with it. */
static const struct {
  const char *table, *time_col, *other_time_col;
} TABLES[] = {{"gpu_sample", "t_ns", NULL},  {"gpu_health", "t_ns", NULL}, {"gpu_proc", "t_ns", NULL},
              {"host_sample", "t_ns", NULL}, {"cpu_sample", "t_ns", NULL}, {"proc_sample", "t_ns", NULL},
              {"disk_sample", "t_ns", NULL}, {"event", "t_ns", NULL},      {"step", "t_start_ns", "t_end_ns"}};
#define NTABLES (sizeof TABLES / sizeof TABLES[0])

struct gw_replay {
  char copy_path[600];
  int64_t src_t0, src_t1; /* first and last sample of the source */
  int64_t pass_start_ns;  /* wall time at which the current pass began (src_t0 maps to it) */
  int64_t cursor_ns;      /* source time up to which rows were copied */
  struct gw_store *seg;
  sqlite3_stmt *copy[NTABLES];
};

static void finalize_all(struct gw_replay *r) {
  for (size_t i = 0; i < NTABLES; i++) {
    sqlite3_finalize(r->copy[i]);
    r->copy[i] = NULL;
  }
}

static void close_segment(struct gw_replay *r) {
  finalize_all(r);
  if (r->seg) {
    sqlite3_exec(gw_store_db(r->seg), "DETACH DATABASE src", NULL, NULL, NULL);
    gw_store_close(r->seg);
    r->seg = NULL;
  }
}

gw_status gw_replay_open(struct gw_replay **out, const char *src, const char *work_dir, int64_t now_ns,
                         struct gw_err *err) {
  *out = NULL;
  struct gw_store *st = NULL;
  gw_status rc = gw_store_open(&st, src, 1, err);
  if (rc)
    return rc;
  struct gw_replay *r = gw_xcalloc(1, sizeof *r);
  snprintf(r->copy_path, sizeof r->copy_path, "%s/replay-source.db", work_dir);
  gw_store_remove_files(r->copy_path);
  sqlite3 *db = gw_store_db(st);
  sqlite3_stmt *s = NULL;
  /* VACUUM INTO takes a consistent copy even of a recording still in WAL mode */
  if (sqlite3_prepare_v2(db, "VACUUM INTO ?", -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, _("%s: cannot copy: %s"), src, sqlite3_errmsg(db));
    rc = GW_EIO;
    goto out;
  }
  sqlite3_bind_text(s, 1, r->copy_path, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s) != SQLITE_DONE) {
    gw_err_set(err, _("%s: cannot copy to %s: %s"), src, r->copy_path, sqlite3_errmsg(db));
    rc = GW_EIO;
    goto out;
  }
  sqlite3_finalize(s);
  s = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT min(a), max(b) FROM (SELECT min(t_ns) AS a, max(t_ns) AS b FROM gpu_sample"
                         " UNION ALL SELECT min(t_ns), max(t_ns) FROM host_sample)",
                         -1, &s, NULL) != SQLITE_OK ||
      sqlite3_step(s) != SQLITE_ROW || sqlite3_column_type(s, 0) == SQLITE_NULL) {
    gw_err_set(err, _("%s holds no GPU or host samples to replay"), src);
    rc = GW_EINPUT;
    goto out;
  }
  r->src_t0 = sqlite3_column_int64(s, 0);
  r->src_t1 = sqlite3_column_int64(s, 1);
  r->pass_start_ns = now_ns;
  r->cursor_ns = r->src_t0;
out:
  sqlite3_finalize(s);
  gw_store_close(st);
  if (rc) {
    gw_store_remove_files(r->copy_path);
    free(r);
    return rc;
  }
  *out = r;
  return GW_OK;
}

void gw_replay_close(struct gw_replay *r) {
  if (!r)
    return;
  close_segment(r);
  gw_store_remove_files(r->copy_path);
  free(r);
}

int64_t gw_replay_length_ns(const struct gw_replay *r) {
  return r->src_t1 - r->src_t0;
}

/* Columns both the segment and the source have, in the segment's order:
 * the source may come from an older or newer build. */
static int common_columns(sqlite3 *db, const char *table, char *cols, size_t cap, char *select, size_t scap,
                          const char *time_col, const char *other_time_col) {
  char sql[200];
  snprintf(sql, sizeof sql,
           "SELECT m.name FROM pragma_table_info(?1, 'main') m JOIN pragma_table_info(?1, 'src') s ON s.name = m.name"
           " ORDER BY m.cid");
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  size_t len = 0, slen = 0;
  int n = 0;
  cols[0] = select[0] = '\0';
  while (sqlite3_step(s) == SQLITE_ROW) {
    const char *c = (const char *)sqlite3_column_text(s, 0);
    int shifted = strcmp(c, time_col) == 0 || (other_time_col && strcmp(c, other_time_col) == 0);
    int a = snprintf(cols + len, cap - len, "%s\"%s\"", n ? "," : "", c);
    int b = snprintf(select + slen, scap - slen, shifted ? "%s\"%s\" + ?1" : "%s\"%s\"", n ? "," : "", c);
    if (a < 0 || b < 0 || (size_t)a >= cap - len || (size_t)b >= scap - slen) {
      sqlite3_finalize(s);
      return -1;
    }
    len += (size_t)a;
    slen += (size_t)b;
    n++;
  }
  sqlite3_finalize(s);
  return n;
}

static gw_status exec(sqlite3 *db, const char *sql, struct gw_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    gw_err_set(err, "replay: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return GW_EIO;
  }
  return GW_OK;
}

gw_status gw_replay_begin_segment(struct gw_replay *r, const char *seg_path, struct gw_err *err) {
  close_segment(r);
  gw_status rc = gw_store_create(&r->seg, seg_path, err);
  if (rc)
    return rc;
  sqlite3 *db = gw_store_db(r->seg);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS src", -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, "replay: %s", sqlite3_errmsg(db));
    return GW_EIO;
  }
  sqlite3_bind_text(s, 1, r->copy_path, -1, SQLITE_TRANSIENT);
  int ok = sqlite3_step(s) == SQLITE_DONE;
  sqlite3_finalize(s);
  if (!ok) {
    gw_err_set(err, _("replay: cannot attach %s: %s"), r->copy_path, sqlite3_errmsg(db));
    return GW_EIO;
  }
  char cols[4096], sel[4096], sql[9000];
  /* the run and GPU facts, with the run starting now */
  if (common_columns(db, "run", cols, sizeof cols, sel, sizeof sel, "", NULL) > 0) {
    snprintf(sql, sizeof sql,
             "INSERT INTO main.run (%s) SELECT %s FROM src.run; UPDATE main.run SET started_ns = %lld, ended_ns = NULL,"
             " exit_status = NULL, source = 'replay'",
             cols, cols, (long long)(r->pass_start_ns + (r->cursor_ns - r->src_t0)));
    if ((rc = exec(db, sql, err)))
      return rc;
  }
  if (common_columns(db, "gpu", cols, sizeof cols, sel, sizeof sel, "", NULL) > 0) {
    snprintf(sql, sizeof sql, "INSERT INTO main.gpu (%s) SELECT %s FROM src.gpu", cols, cols);
    if ((rc = exec(db, sql, err)))
      return rc;
  }
  for (size_t i = 0; i < NTABLES; i++) {
    int n = common_columns(db, TABLES[i].table, cols, sizeof cols, sel, sizeof sel, TABLES[i].time_col,
                           TABLES[i].other_time_col);
    if (n <= 0)
      continue; /* the source lacks the table: nothing to replay from it */
    snprintf(sql, sizeof sql, "INSERT INTO main.%s (%s) SELECT %s FROM src.%s WHERE \"%s\" >= ?2 AND \"%s\" < ?3",
             TABLES[i].table, cols, sel, TABLES[i].table, TABLES[i].time_col, TABLES[i].time_col);
    if (sqlite3_prepare_v2(db, sql, -1, &r->copy[i], NULL) != SQLITE_OK) {
      gw_err_set(err, "replay: %s: %s", TABLES[i].table, sqlite3_errmsg(db));
      return GW_EIO;
    }
  }
  return GW_OK;
}

static gw_status copy_range(struct gw_replay *r, int64_t lo, int64_t hi, struct gw_err *err) {
  int64_t shift = r->pass_start_ns - r->src_t0;
  for (size_t i = 0; i < NTABLES; i++) {
    sqlite3_stmt *s = r->copy[i];
    if (!s)
      continue;
    sqlite3_bind_int64(s, 1, shift);
    sqlite3_bind_int64(s, 2, lo);
    sqlite3_bind_int64(s, 3, hi);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
      gw_err_set(err, _("replay: copying %s: %s"), TABLES[i].table, sqlite3_errmsg(gw_store_db(r->seg)));
      return GW_EIO;
    }
  }
  return GW_OK;
}

gw_status gw_replay_advance(struct gw_replay *r, int64_t now_ns, struct gw_err *err) {
  if (!r->seg)
    return GW_OK;
  sqlite3 *db = gw_store_db(r->seg);
  gw_status rc = exec(db, "BEGIN", err);
  /* a pass ends one typical tick after the last sample, then starts over */
  const int64_t pass_len = r->src_t1 - r->src_t0 + 100000000LL;
  for (int guard = 0; !rc && guard < 1000; guard++) {
    int64_t target = r->src_t0 + (now_ns - r->pass_start_ns);
    int64_t hi = target < r->src_t1 + 1 ? target : r->src_t1 + 1;
    if (hi > r->cursor_ns) {
      rc = copy_range(r, r->cursor_ns, hi, err);
      r->cursor_ns = hi;
    }
    if (target < r->src_t0 + pass_len)
      break;
    r->pass_start_ns += pass_len;
    r->cursor_ns = r->src_t0;
  }
  if (rc) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
  }
  return exec(db, "COMMIT", err);
}
