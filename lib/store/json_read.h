/* Reading small JSON files (ground-truth files beside recordings, saved
 * baselines) through SQLite's built-in JSON functions, so gpuwhy needs no
 * JSON library of its own. It lives in lib/store because only lib/store
 * talks to SQLite; its users (lib/compare) see paths and values, no SQL.
 * Paths are SQLite JSON paths: "$.a.b", "$.list[2]". */
#ifndef GW_STORE_JSON_READ_H
#define GW_STORE_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

struct sqlite3;

struct gw_json_doc {
  char path[1024];
  char *text;
  struct sqlite3 *db; /* in-memory, for json_extract and json_each */
};

/* Read path (at most max_bytes) and check that it holds one valid JSON
 * object. GW_EINPUT with a message naming the file otherwise. */
GW_NODISCARD gw_status gw_json_doc_load(const char *path, long max_bytes, struct gw_json_doc *doc, struct gw_err *err);
void gw_json_doc_free(struct gw_json_doc *doc);

/* The number at json path jpath ("$.a.b"), NAN when absent or not a number. */
double gw_json_number(const struct gw_json_doc *doc, const char *jpath);
/* The string at jpath into buf; returns 0, or -1 when absent or not a string. */
int gw_json_string(const struct gw_json_doc *doc, const char *jpath, char *buf, size_t cap);
/* The JSON type at jpath into buf ("null", "true", "false", "integer",
 * "real", "text", "array", "object"): 0, or -1 when absent. */
int gw_json_type(const struct gw_json_doc *doc, const char *jpath, char *buf, size_t cap);

/* The members of the array or the object at jpath, one at a time: in the
 * document's order, or by key (sorted_by_key: arrays by index, objects by
 * name). Of each member, the values at fields, paths within the member ("$"
 * the member itself, "$.start_ns" one of its fields); field k below is
 * fields[k]. A scalar at jpath is one member without a key. */
struct gw_json_members;
/* NULL when the document cannot be queried. */
struct gw_json_members *gw_json_members_open(const struct gw_json_doc *doc, const char *jpath,
                                             const char *const *fields, int nfields, int sorted_by_key);
/* 1: the next member is there; 0: no more (or the member is not JSON that the
 * fields can be read in). */
int gw_json_members_next(struct gw_json_members *m);
void gw_json_members_close(struct gw_json_members *m);
/* The member's index in an array (0 for an object member). */
int gw_json_members_index(const struct gw_json_members *m);
/* Its key in an object, its index as text in an array; NULL for none. */
const char *gw_json_members_key(const struct gw_json_members *m);
/* Field k's JSON type as gw_json_type names it, NULL when absent. */
const char *gw_json_members_type(const struct gw_json_members *m, int k);
/* 1 when field k is absent or JSON null. */
int gw_json_members_null(const struct gw_json_members *m, int k);
/* Field k as a number (0 when not one), as an integer, as text (NULL when
 * absent or null; a number as SQLite prints it; valid until the next member). */
double gw_json_members_number(const struct gw_json_members *m, int k);
int64_t gw_json_members_i64(const struct gw_json_members *m, int k);
const char *gw_json_members_text(const struct gw_json_members *m, int k);

#endif
