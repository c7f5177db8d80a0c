/* JSON files read through SQLite's JSON functions (see json_read.h). */
#include "json_read.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sqlite3_stmt *query(const struct gw_json_doc *doc, const char *sql);

static char *read_whole(const char *path, long max_bytes, struct gw_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    gw_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = gw_xcalloc(cap, 1);
  for (;;) {
    if (len + 1 >= cap) {
      cap *= 2;
      buf = gw_xrealloc(buf, cap);
    }
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if ((long)len > max_bytes) {
      gw_err_set(err, "%s: larger than %ld bytes, not a file gpuwhy wrote", path, max_bytes);
      fclose(f);
      free(buf);
      return NULL;
    }
    if (got == 0)
      break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    gw_err_set(err, "%s: read error", path);
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  if (strlen(buf) != len) {
    gw_err_set(err, "%s: holds NUL bytes, not JSON", path);
    free(buf);
    return NULL;
  }
  return buf;
}

gw_status gw_json_doc_load(const char *path, long max_bytes, struct gw_json_doc *doc, struct gw_err *err) {
  memset(doc, 0, sizeof *doc);
  gw_strlcpy(doc->path, path, sizeof doc->path);
  doc->text = read_whole(path, max_bytes, err);
  if (!doc->text)
    return GW_EINPUT;
  if (sqlite3_open_v2(":memory:", &doc->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
    gw_err_set(err, "%s: cannot open SQLite to read JSON", path);
    gw_json_doc_free(doc);
    return GW_ERR;
  }
  sqlite3_stmt *st = query(doc, "SELECT json_valid(?1) AND json_type(?1) = 'object'");
  int ok = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
  sqlite3_finalize(st);
  if (!ok) {
    gw_err_set(err, "%s: not a JSON object", path);
    gw_json_doc_free(doc);
    return GW_EINPUT;
  }
  return GW_OK;
}

void gw_json_doc_free(struct gw_json_doc *doc) {
  if (doc->db)
    sqlite3_close(doc->db);
  free(doc->text);
  doc->db = NULL;
  doc->text = NULL;
}

/* sql with ?1 bound to the document text. NULL on error. */
static sqlite3_stmt *query(const struct gw_json_doc *doc, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (!doc->db || sqlite3_prepare_v2(doc->db, sql, -1, &st, NULL) != SQLITE_OK)
    return NULL;
  sqlite3_bind_text(st, 1, doc->text, -1, SQLITE_STATIC);
  return st;
}

/* json_extract of one path; the statement is left on its row for the caller. */
static sqlite3_stmt *extract(const struct gw_json_doc *doc, const char *jpath) {
  sqlite3_stmt *st = query(doc, "SELECT json_extract(?1, ?2), json_type(?1, ?2)");
  if (!st)
    return NULL;
  sqlite3_bind_text(st, 2, jpath, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) != SQLITE_ROW) {
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

double gw_json_number(const struct gw_json_doc *doc, const char *jpath) {
  sqlite3_stmt *st = extract(doc, jpath);
  double v = NAN;
  if (st) {
    const unsigned char *type = sqlite3_column_text(st, 1);
    if (type && (strcmp((const char *)type, "integer") == 0 || strcmp((const char *)type, "real") == 0))
      v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
  }
  return v;
}

int gw_json_string(const struct gw_json_doc *doc, const char *jpath, char *buf, size_t cap) {
  sqlite3_stmt *st = extract(doc, jpath);
  int rc = -1;
  if (st) {
    const unsigned char *type = sqlite3_column_text(st, 1);
    if (type && strcmp((const char *)type, "text") == 0) {
      const unsigned char *s = sqlite3_column_text(st, 0);
      gw_strlcpy(buf, s ? (const char *)s : "", cap);
      rc = 0;
    }
    sqlite3_finalize(st);
  }
  return rc;
}

int gw_json_type(const struct gw_json_doc *doc, const char *jpath, char *buf, size_t cap) {
  sqlite3_stmt *st = query(doc, "SELECT json_type(?1, ?2)");
  int rc = -1;
  if (st) {
    sqlite3_bind_text(st, 2, jpath, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char *t = sqlite3_column_text(st, 0);
      if (t) {
        gw_strlcpy(buf, (const char *)t, cap);
        rc = 0;
      }
    }
    sqlite3_finalize(st);
  }
  return rc;
}

/* Row layout: 0 key, then per field its value and its JSON type. */
struct gw_json_members {
  sqlite3_stmt *st;
  int nfields;
};

struct gw_json_members *gw_json_members_open(const struct gw_json_doc *doc, const char *jpath,
                                             const char *const *fields, int nfields, int sorted_by_key) {
  char sql[2048];
  size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT key");
  for (int k = 0; k < nfields && len < sizeof sql; k++) {
    if (strcmp(fields[k], "$") == 0) {
      len += (size_t)snprintf(sql + len, sizeof sql - len, ", value, type");
    } else {
      /* a field path as an SQL string literal: quotes doubled */
      char lit[256];
      size_t n = 0;
      for (const char *c = fields[k]; *c && n + 2 < sizeof lit; c++) {
        if (*c == '\'')
          lit[n++] = '\'';
        lit[n++] = *c;
      }
      lit[n] = '\0';
      len += (size_t)snprintf(sql + len, sizeof sql - len, ", json_extract(value, '%s'), json_type(value, '%s')", lit,
                              lit);
    }
  }
  if (len < sizeof sql)
    len += (size_t)snprintf(sql + len, sizeof sql - len, " FROM json_each(?1, ?2)%s",
                            sorted_by_key ? " ORDER BY key" : "");
  if (len >= sizeof sql)
    return NULL;
  sqlite3_stmt *st = query(doc, sql);
  if (!st)
    return NULL;
  sqlite3_bind_text(st, 2, jpath, -1, SQLITE_TRANSIENT);
  struct gw_json_members *m = gw_xcalloc(1, sizeof *m);
  m->st = st;
  m->nfields = nfields;
  return m;
}

int gw_json_members_next(struct gw_json_members *m) {
  return sqlite3_step(m->st) == SQLITE_ROW;
}

void gw_json_members_close(struct gw_json_members *m) {
  if (!m)
    return;
  sqlite3_finalize(m->st);
  free(m);
}

int gw_json_members_index(const struct gw_json_members *m) {
  return sqlite3_column_int(m->st, 0);
}

const char *gw_json_members_key(const struct gw_json_members *m) {
  return (const char *)sqlite3_column_text(m->st, 0);
}

const char *gw_json_members_type(const struct gw_json_members *m, int k) {
  return (const char *)sqlite3_column_text(m->st, 2 + 2 * k);
}

int gw_json_members_null(const struct gw_json_members *m, int k) {
  return sqlite3_column_type(m->st, 1 + 2 * k) == SQLITE_NULL;
}

double gw_json_members_number(const struct gw_json_members *m, int k) {
  return sqlite3_column_double(m->st, 1 + 2 * k);
}

int64_t gw_json_members_i64(const struct gw_json_members *m, int k) {
  return sqlite3_column_int64(m->st, 1 + 2 * k);
}

const char *gw_json_members_text(const struct gw_json_members *m, int k) {
  return (const char *)sqlite3_column_text(m->st, 1 + 2 * k);
}
