#include "store/store_window.h"
#include "store_sql.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"
#include "store/store.h"

struct gw_window {
  char dir[512];
  int64_t span_ns;
  pthread_mutex_t mu; /* segment list against builds */
  int have_current;
  unsigned current;
};

/* Tables with samples, and the column that dates each row. cpu_sample is
 * left out: neither the analysis nor the exporter reads it. */
static const struct {
  const char *table, *time_col;
} SAMPLE_TABLES[] = {{"gpu_sample", "t_ns"},  {"gpu_health", "t_ns"},  {"gpu_proc", "t_ns"}, {"host_sample", "t_ns"},
                     {"proc_sample", "t_ns"}, {"disk_sample", "t_ns"}, {"event", "t_ns"},    {"step", "t_start_ns"}};

gw_status gw_window_open(struct gw_window **out, const char *dir, int64_t span_ns, struct gw_err *err) {
  *out = NULL;
  struct gw_window *w = gw_xcalloc(1, sizeof *w);
  if (gw_strlcpy(w->dir, dir, sizeof w->dir)) {
    gw_err_set(err, _("folder name too long: %s"), dir);
    free(w);
    return GW_ERR;
  }
  w->span_ns = span_ns;
  pthread_mutex_init(&w->mu, NULL);
  *out = w;
  return GW_OK;
}

void gw_window_segment_path(const struct gw_window *w, unsigned k, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/seg-%u.db", w->dir, k);
}

static void window_path(const struct gw_window *w, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/window.db", w->dir);
}

void gw_window_close(struct gw_window *w) {
  if (!w)
    return;
  char path[600];
  if (w->have_current) {
    for (unsigned k = w->current > 0 ? w->current - 1 : 0; k <= w->current; k++) {
      gw_window_segment_path(w, k, path, sizeof path);
      gw_store_remove_files(path);
    }
  }
  window_path(w, path, sizeof path);
  gw_store_remove_files(path);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

void gw_window_segment_started(struct gw_window *w, unsigned k) {
  pthread_mutex_lock(&w->mu);
  /* everything older than the previous segment has left the window */
  unsigned from = w->have_current ? (w->current > 0 ? w->current - 1 : 0) : 0;
  for (unsigned old = from; old + 1 < k; old++) {
    char path[600];
    gw_window_segment_path(w, old, path, sizeof path);
    gw_store_remove_files(path);
  }
  w->current = k;
  w->have_current = 1;
  pthread_mutex_unlock(&w->mu);
}

static int exec(sqlite3 *db, const char *sql, struct gw_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    gw_err_set(err, _("building the window: %s"), msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}

static int64_t newest_sample(sqlite3 *db, const char *schema) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT max(t) FROM (SELECT max(t_ns) AS t FROM %s.gpu_sample UNION ALL SELECT max(t_ns) FROM "
           "%s.host_sample)",
           schema, schema);
  sqlite3_stmt *s;
  int64_t t = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
      t = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  return t;
}

static int copy_rows(sqlite3 *db, const char *schema, int64_t cutoff, struct gw_err *err) {
  for (size_t i = 0; i < sizeof SAMPLE_TABLES / sizeof SAMPLE_TABLES[0]; i++) {
    char sql[300];
    snprintf(sql, sizeof sql, "INSERT INTO main.%s SELECT * FROM %s.%s WHERE %s >= %lld", SAMPLE_TABLES[i].table,
             schema, SAMPLE_TABLES[i].table, SAMPLE_TABLES[i].time_col, (long long)cutoff);
    if (exec(db, sql, err))
      return -1;
  }
  return 0;
}

gw_status gw_window_build(struct gw_window *w, char *path, size_t cap, struct gw_err *err) {
  window_path(w, path, cap);
  pthread_mutex_lock(&w->mu);
  struct gw_store *st = NULL;
  gw_status rc = gw_store_create(&st, path, err);
  if (rc) {
    pthread_mutex_unlock(&w->mu);
    return rc;
  }
  sqlite3 *db = gw_store_db(st);
  /* attach the previous segment as s0 and the current as s1, when they exist */
  const char *names[2] = {"s0", "s1"};
  int attached[2] = {0, 0};
  for (int i = 0; i < 2 && w->have_current; i++) {
    if (i == 0 && w->current == 0)
      continue;
    char seg[600];
    gw_window_segment_path(w, w->current - 1 + (unsigned)i, seg, sizeof seg);
    if (access(seg, R_OK) != 0)
      continue;
    sqlite3_stmt *s;
    char sql[64];
    snprintf(sql, sizeof sql, "ATTACH DATABASE ? AS %s", names[i]);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
      continue;
    sqlite3_bind_text(s, 1, seg, -1, SQLITE_TRANSIENT);
    attached[i] = sqlite3_step(s) == SQLITE_DONE;
    sqlite3_finalize(s);
  }
  int newest = attached[1] ? 1 : attached[0] ? 0 : -1;
  if (newest >= 0) {
    int64_t t_new = newest_sample(db, names[newest]);
    if (attached[0] && newest == 1) {
      int64_t t_old = newest_sample(db, names[0]);
      if (t_old > t_new)
        t_new = t_old;
    }
    int64_t cutoff = t_new - w->span_ns;
    char sql[400];
    int bad = exec(db, "BEGIN", err);
    snprintf(sql, sizeof sql,
             "INSERT INTO main.run SELECT * FROM %s.run; INSERT OR IGNORE INTO main.gpu SELECT * FROM %s.gpu;",
             names[newest], names[newest]);
    bad = bad || exec(db, sql, err);
    for (int i = 0; i < 2 && !bad; i++)
      if (attached[i])
        bad = copy_rows(db, names[i], cutoff, err);
    /* the window's run starts with its first sample, in whichever segment that lies */
    bad = bad || exec(db,
                      "UPDATE main.run SET started_ns = (SELECT min(t) FROM (SELECT min(t_ns) AS t FROM main.gpu_sample"
                      " UNION ALL SELECT min(t_ns) FROM main.host_sample)) WHERE EXISTS (SELECT 1 FROM main.gpu_sample"
                      " UNION ALL SELECT 1 FROM main.host_sample)",
                      err);
    if (bad) {
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
      rc = GW_EIO;
    } else if (exec(db, "COMMIT", err)) {
      rc = GW_EIO;
    }
  }
  for (int i = 0; i < 2; i++)
    if (attached[i]) {
      char sql[32];
      snprintf(sql, sizeof sql, "DETACH DATABASE %s", names[i]);
      sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
  gw_store_close(st);
  pthread_mutex_unlock(&w->mu);
  return rc;
}
