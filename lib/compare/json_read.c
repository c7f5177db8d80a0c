/* JSON files read through SQLite's JSON functions (see json_read.h). */
#include "compare/json_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  sqlite3_stmt *st = gw_json_query(doc, "SELECT json_valid(?1) AND json_type(?1) = 'object'");
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

sqlite3_stmt *gw_json_query(const struct gw_json_doc *doc, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (!doc->db || sqlite3_prepare_v2(doc->db, sql, -1, &st, NULL) != SQLITE_OK)
    return NULL;
  sqlite3_bind_text(st, 1, doc->text, -1, SQLITE_STATIC);
  return st;
}

/* json_extract of one path; the statement is left on its row for the caller. */
static sqlite3_stmt *extract(const struct gw_json_doc *doc, const char *jpath) {
  sqlite3_stmt *st = gw_json_query(doc, "SELECT json_extract(?1, ?2), json_type(?1, ?2)");
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
