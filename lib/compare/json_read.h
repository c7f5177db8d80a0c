/* Reading small JSON files (ground-truth files beside recordings, saved
 * baselines) through SQLite's built-in JSON functions, so gpuwhy needs no
 * JSON library of its own. */
#ifndef GW_COMPARE_JSON_READ_H
#define GW_COMPARE_JSON_READ_H

#include <sqlite3.h>

#include "core/util.h"

struct gw_json_doc {
  char path[1024];
  char *text;
  sqlite3 *db; /* in-memory, for json_extract and json_each */
};

/* Read path (at most max_bytes) and check that it holds one valid JSON
 * object. GW_EINPUT with a message naming the file otherwise. */
GW_NODISCARD gw_status gw_json_doc_load(const char *path, long max_bytes, struct gw_json_doc *doc, struct gw_err *err);
void gw_json_doc_free(struct gw_json_doc *doc);

/* The number at json path jpath ("$.a.b"), NAN when absent or not a number. */
double gw_json_number(const struct gw_json_doc *doc, const char *jpath);
/* The string at jpath into buf; returns 0, or -1 when absent or not a string. */
int gw_json_string(const struct gw_json_doc *doc, const char *jpath, char *buf, size_t cap);
/* Prepare sql with ?1 bound to the document text (for json_each). NULL on error. */
sqlite3_stmt *gw_json_query(const struct gw_json_doc *doc, const char *sql);

#endif
