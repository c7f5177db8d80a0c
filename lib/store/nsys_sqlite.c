/* Reading an Nsight Systems SQLite export (see nsys_sqlite.h). */
#include "nsys_sqlite.h"
#include "store_sql.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

struct gw_nsys_db {
  sqlite3 *db;
  char name[1024];
  char schema_version[32];
  char missing[512];
  /* the names of the main database's views (is_table answers for tables),
   * read at the first question is_table cannot answer (-1: not read yet) */
  char **views;
  int nviews;
};

struct gw_nsys_rows {
  struct gw_nsys_db *db;
  sqlite3_stmt *stmt;
};

static struct gw_nsys_db *new_db(const char *name) {
  struct gw_nsys_db *x = gw_xcalloc(1, sizeof *x);
  gw_strlcpy(x->name, name, sizeof x->name);
  x->nviews = -1;
  return x;
}

gw_status gw_nsys_db_open_file(struct gw_nsys_db **out, const char *path, const char *name, struct gw_err *err) {
  *out = NULL;
  struct gw_nsys_db *x = new_db(name);
  if (sqlite3_open_v2(path, &x->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    gw_err_set(err, "%s: cannot open as SQLite: %s", name, x->db ? sqlite3_errmsg(x->db) : "out of memory");
    gw_nsys_db_close(x);
    return GW_EINPUT;
  }
  *out = x;
  return GW_OK;
}

gw_status gw_nsys_db_open_bytes(struct gw_nsys_db **out, const void *data, size_t len, const char *name,
                                struct gw_err *err) {
  *out = NULL;
  struct gw_nsys_db *x = new_db(name);
  if (sqlite3_open_v2(":memory:", &x->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    gw_nsys_db_close(x);
    gw_err_set(err, "%s: cannot open an in-memory database", name);
    return GW_ERR;
  }
  unsigned char *copy = sqlite3_malloc64(len ? len : 1);
  if (!copy) {
    gw_nsys_db_close(x);
    gw_err_set(err, "%s: out of memory", name);
    return GW_ENOMEM;
  }
  memcpy(copy, data, len);
  if (sqlite3_deserialize(x->db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
    gw_err_set(err, "%s: not a readable SQLite database", name);
    gw_nsys_db_close(x);
    return GW_EINPUT;
  }
  *out = x;
  return GW_OK;
}

void gw_nsys_db_close(struct gw_nsys_db *x) {
  if (!x)
    return;
  sqlite3_close(x->db);
  for (int i = 0; i < x->nviews; i++)
    free(x->views[i]);
  free(x->views);
  free(x);
}

gw_status gw_nsys_db_fail(struct gw_nsys_db *x, const char *what, struct gw_err *err) {
  gw_err_set(err, "%s: %s: %s", x->name, what, sqlite3_errmsg(x->db));
  return GW_EINPUT;
}

void gw_nsys_db_note_missing(struct gw_nsys_db *x, const char *what) {
  if (strstr(x->missing, what))
    return; /* once, not once per process */
  size_t len = strlen(x->missing);
  snprintf(x->missing + len, sizeof x->missing - len, "%s%s", len ? "; " : "", what);
}

const char *gw_nsys_db_missing(const struct gw_nsys_db *x) {
  return x->missing;
}

/* 1 when table is a table of the main database, from SQLite's parsed
 * schema: no statement to prepare (an import asks dozens of times). Views
 * are not tables there, so the callers below ask SQL when this says no. */
static int is_table(struct gw_nsys_db *x, const char *table) {
  return sqlite3_table_column_metadata(x->db, "main", table, NULL, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK;
}

/* The names of the database's views, once: a damaged or partial export
 * misses many tables, and each miss would otherwise prepare a query. */
static void read_views(struct gw_nsys_db *x) {
  x->nviews = 0;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, "SELECT name FROM sqlite_master WHERE type = 'view'", -1, &s, NULL) != SQLITE_OK)
    return;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0);
    if (!name)
      continue;
    x->views = gw_xrealloc(x->views, (size_t)(x->nviews + 1) * sizeof *x->views);
    x->views[x->nviews++] = gw_xstrdup(name);
  }
  sqlite3_finalize(s);
}

int gw_nsys_db_has_table(struct gw_nsys_db *x, const char *table) {
  if (is_table(x, table))
    return 1;
  if (x->nviews < 0)
    read_views(x);
  for (int i = 0; i < x->nviews; i++)
    if (strcmp(x->views[i], table) == 0) /* as sqlite_master's name = ? compared */
      return 1;
  return 0;
}

int gw_nsys_db_has_column(struct gw_nsys_db *x, const char *table, const char *col) {
  if (is_table(x, table)) /* names compare without case, as the queries that follow resolve them */
    return sqlite3_table_column_metadata(x->db, "main", table, col, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

int gw_nsys_db_has_strings(struct gw_nsys_db *x) {
  return gw_nsys_db_has_table(x, "StringIds") && gw_nsys_db_has_column(x, "StringIds", "id") &&
         gw_nsys_db_has_column(x, "StringIds", "value");
}

static int is_nsys_export(struct gw_nsys_db *x) {
  static const char *const markers[] = {"META_DATA_EXPORT",
                                        "StringIds",
                                        "CUPTI_ACTIVITY_KIND_KERNEL",
                                        "CUPTI_ACTIVITY_KIND_RUNTIME",
                                        "NVTX_EVENTS",
                                        "TARGET_INFO_SESSION_START_TIME"};
  for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++)
    if (gw_nsys_db_has_table(x, markers[i]))
      return 1;
  return 0;
}

gw_status gw_nsys_db_check(struct gw_nsys_db *x, struct gw_err *err) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, "SELECT count(*) FROM sqlite_master", -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, "%s: not a readable SQLite database: %s", x->name, sqlite3_errmsg(x->db));
    return GW_EINPUT;
  }
  int ok = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  if (!ok) {
    gw_err_set(err, "%s: not a readable SQLite database: %s", x->name, sqlite3_errmsg(x->db));
    return GW_EINPUT;
  }
  int app_id = 0;
  if (sqlite3_prepare_v2(x->db, "PRAGMA application_id", -1, &s, NULL) == SQLITE_OK) {
    if (sqlite3_step(s) == SQLITE_ROW)
      app_id = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
  }
  if (app_id == GW_STORE_APPLICATION_ID) {
    gw_err_set(err, "%s: already a gpuwhy recording: run gpuwhy report on it directly", x->name);
    return GW_EINPUT;
  }
  if (!is_nsys_export(x)) {
    gw_err_set(err,
               "%s: an SQLite database, but not an Nsight Systems export (no "
               "META_DATA_EXPORT, StringIds, "
               "CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS tables)",
               x->name);
    return GW_EINPUT;
  }
  return GW_OK;
}

/* ---- header facts ---- */

void gw_nsys_db_schema_version(struct gw_nsys_db *x, char *buf, size_t cap) {
  buf[0] = '\0';
  sqlite3_stmt *s;
  if (!gw_nsys_db_has_table(x, "META_DATA_EXPORT") || !gw_nsys_db_has_column(x, "META_DATA_EXPORT", "name") ||
      !gw_nsys_db_has_column(x, "META_DATA_EXPORT", "value")) {
    gw_nsys_db_note_missing(x, "META_DATA_EXPORT (schema version unknown)");
    return;
  }
  if (sqlite3_prepare_v2(x->db,
                         "SELECT value FROM META_DATA_EXPORT WHERE name = "
                         "'EXPORT_SCHEMA_VERSION'",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    gw_strlcpy(x->schema_version, (const char *)sqlite3_column_text(s, 0), sizeof x->schema_version);
  sqlite3_finalize(s);
  gw_strlcpy(buf, x->schema_version, cap);
}

int gw_nsys_db_session_start(struct gw_nsys_db *x, int64_t *ns) {
  sqlite3_stmt *s;
  if (!gw_nsys_db_has_table(x, "TARGET_INFO_SESSION_START_TIME") ||
      !gw_nsys_db_has_column(x, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
    gw_nsys_db_note_missing(x, "TARGET_INFO_SESSION_START_TIME.utcEpochNs");
    return 0;
  }
  if (sqlite3_prepare_v2(x->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", -1, &s, NULL) !=
      SQLITE_OK)
    return 0;
  int found = 0;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL && sqlite3_column_int64(s, 0) > 0) {
    *ns = sqlite3_column_int64(s, 0);
    found = 1;
  }
  sqlite3_finalize(s);
  return found;
}

/* ---- queries ---- */

/* Column list for a SELECT: required columns must exist (else an error
 * naming them), optional ones read as NULL when absent (and are noted). */
static gw_status build_select(struct gw_nsys_db *x, const char *table, const struct gw_nsys_column *cols, int ncols,
                              const char *extra, char *sql, size_t cap, struct gw_err *err) {
  size_t len = (size_t)snprintf(sql, cap, "SELECT ");
  char missing_req[256] = "", missing_opt[256] = "";
  for (int i = 0; i < ncols; i++) {
    int have = gw_nsys_db_has_column(x, table, cols[i].name);
    if (!have) {
      char *dst = cols[i].required ? missing_req : missing_opt;
      size_t l = strlen(dst);
      snprintf(dst + l, 256 - l, "%s%s", l ? ", " : "", cols[i].name);
    }
    len += (size_t)snprintf(sql + len, cap - len, "%s%s\"%s\"", i ? ", " : "", have ? "" : "NULL AS ", cols[i].name);
  }
  if (missing_req[0]) {
    gw_err_set(err,
               "%s: table %s lacks column(s) %s (export schema version %s); "
               "cannot import it",
               x->name, table, missing_req, x->schema_version[0] ? x->schema_version : "unknown");
    return GW_EINPUT;
  }
  if (missing_opt[0]) {
    char what[400];
    snprintf(what, sizeof what, "%s.{%s}", table, missing_opt);
    gw_nsys_db_note_missing(x, what);
  }
  len += (size_t)snprintf(sql + len, cap - len, " FROM \"%s\" %s", table, extra ? extra : "");
  if (len >= cap) {
    gw_err_set(err, "%s: internal: query too long", x->name);
    return GW_ERR;
  }
  return GW_OK;
}

static struct gw_nsys_rows *prepare(struct gw_nsys_db *x, const char *sql) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
    return NULL;
  struct gw_nsys_rows *r = gw_xcalloc(1, sizeof *r);
  r->db = x;
  r->stmt = s;
  return r;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

gw_status gw_nsys_db_list_pids(struct gw_nsys_db *x, uint32_t *pids, int max, int *npids, struct gw_err *err) {
  static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                       "CUPTI_ACTIVITY_KIND_MEMCPY",
                                       "CUPTI_ACTIVITY_KIND_MEMSET",
                                       "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                       "CUPTI_ACTIVITY_KIND_RUNTIME",
                                       "CUPTI_ACTIVITY_KIND_DRIVER",
                                       "NVTX_EVENTS"};
  *npids = 0;
  char sql[256];
  for (int t = 0; t < 7; t++) {
    const char *col = t < 4 ? "globalPid" : "globalTid"; /* GPU activity, then CPU threads */
    if (!gw_nsys_db_has_table(x, tables[t]) || !gw_nsys_db_has_column(x, tables[t], col))
      continue;
    snprintf(sql, sizeof sql, "SELECT DISTINCT (\"%s\" >> 24) & 16777215 FROM \"%s\"", col, tables[t]);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
      return gw_nsys_db_fail(x, "listing processes", err);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      uint32_t p = (uint32_t)sqlite3_column_int64(s, 0);
      int known = 0;
      for (int i = 0; i < *npids && !known; i++)
        known = pids[i] == p;
      if (!known && *npids < max)
        pids[(*npids)++] = p;
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
      return gw_nsys_db_fail(x, "listing processes", err);
  }
  qsort(pids, (size_t)*npids, sizeof *pids, cmp_u32);
  return GW_OK;
}

struct gw_nsys_rows *gw_nsys_db_enum_rows(struct gw_nsys_db *x, const char *table) {
  char sql[128];
  if (!gw_nsys_db_has_table(x, table) || !gw_nsys_db_has_column(x, table, "id") ||
      !gw_nsys_db_has_column(x, table, "name"))
    return NULL;
  snprintf(sql, sizeof sql, "SELECT id, name FROM %s", table);
  return prepare(x, sql);
}

struct gw_nsys_rows *gw_nsys_db_gpu_rows(struct gw_nsys_db *x) {
  if (!gw_nsys_db_has_table(x, "TARGET_INFO_GPU") || !gw_nsys_db_has_column(x, "TARGET_INFO_GPU", "id")) {
    gw_nsys_db_note_missing(x, "TARGET_INFO_GPU (GPU names)");
    return NULL;
  }
  static const struct gw_nsys_column cols[] = {{"id", 1}, {"name", 0}, {"totalMemory", 0}, {"smCount", 0}};
  char sql[512];
  struct gw_err quiet; /* an odd TARGET_INFO_GPU is noted, not fatal */
  if (build_select(x, "TARGET_INFO_GPU", cols, 4, NULL, sql, sizeof sql, &quiet))
    return NULL;
  return prepare(x, sql);
}

gw_status gw_nsys_rows_open(struct gw_nsys_db *x, const struct gw_nsys_query *q, const char *what,
                            struct gw_nsys_rows **out, struct gw_err *err) {
  *out = NULL;
  /* WHERE: one process's rows (a table without the id column belongs to the
   * first process), then the type filter */
  char where[256];
  if (gw_nsys_db_has_column(x, q->table, q->process_column))
    snprintf(where, sizeof where, "WHERE ((\"%s\" >> 24) & 16777215) = %u", q->process_column, q->pid);
  else
    snprintf(where, sizeof where, "%s", q->first_process ? "" : "WHERE 0");
  if (q->type_column && q->ntypes > 0) {
    size_t wl = strlen(where);
    wl += (size_t)snprintf(where + wl, sizeof where - wl, "%s %s IN (", wl ? " AND" : "WHERE", q->type_column);
    for (int i = 0; i < q->ntypes && wl < sizeof where; i++)
      wl += (size_t)snprintf(where + wl, sizeof where - wl, "%s%d", i ? ", " : "", q->types[i]);
    if (wl < sizeof where)
      snprintf(where + wl, sizeof where - wl, ")");
  }
  char sql[2048];
  gw_status rc = build_select(x, q->table, q->cols, q->ncols, where, sql, sizeof sql, err);
  if (rc)
    return rc;
  /* names joined in SQLite: one pass, no name table of our own */
  char joined[2400];
  int by_id = q->name != GW_NSYS_NAME_NONE && gw_nsys_db_has_strings(x) &&
              gw_nsys_db_has_column(x, q->table, q->name_id_column);
  switch (q->name) {
  case GW_NSYS_NAME_NONE:
    snprintf(joined, sizeof joined, "%s", sql);
    break;
  case GW_NSYS_NAME_ID:
    if (by_id)
      snprintf(joined, sizeof joined, "SELECT q.*, s.value FROM (%s) q LEFT JOIN StringIds s ON s.id = q.\"%s\"", sql,
               q->name_id_column);
    else
      snprintf(joined, sizeof joined, "SELECT q.*, NULL FROM (%s) q", sql);
    break;
  case GW_NSYS_NAME_TEXT_OR_ID:
    if (by_id)
      snprintf(joined, sizeof joined,
               "SELECT q.*, COALESCE(q.\"%s\", s.value) FROM (%s) q LEFT JOIN StringIds s ON s.id = q.\"%s\"",
               q->name_text_column, sql, q->name_id_column);
    else
      snprintf(joined, sizeof joined, "SELECT q.*, q.\"%s\" FROM (%s) q", q->name_text_column, sql);
    break;
  }
  struct gw_nsys_rows *r = prepare(x, joined);
  if (!r)
    return gw_nsys_db_fail(x, what, err);
  *out = r;
  return GW_OK;
}

int gw_nsys_rows_next(struct gw_nsys_rows *r) {
  int rc = sqlite3_step(r->stmt);
  return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

void gw_nsys_rows_close(struct gw_nsys_rows *r) {
  if (!r)
    return;
  sqlite3_finalize(r->stmt);
  free(r);
}

int gw_nsys_rows_null(const struct gw_nsys_rows *r, int col) {
  return sqlite3_column_type(r->stmt, col) == SQLITE_NULL;
}

int64_t gw_nsys_rows_i64(const struct gw_nsys_rows *r, int col) {
  return sqlite3_column_int64(r->stmt, col);
}

const char *gw_nsys_rows_text(const struct gw_nsys_rows *r, int col, size_t *len) {
  const char *s = (const char *)sqlite3_column_text(r->stmt, col);
  *len = s ? (size_t)sqlite3_column_bytes(r->stmt, col) : 0;
  return s;
}
