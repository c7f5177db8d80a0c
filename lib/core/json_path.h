/* Small JSON files read by path: a truth file beside a recording, a saved
 * baseline, the recorded command. Built on the streaming parser
 * (json_stream.h), the project's one JSON reader: no tree is built; a value
 * is a span of the document's text, and each lookup parses only that span
 * again, skipping every container off its path. Made for files of at most
 * some tens of MB read a few dozen times; a big trace is streamed instead.
 *
 * A path names fields and array elements below a value: "a.b[2].c"; ""
 * is the value itself. (Keys holding '.' or '[' cannot be named.) */
#ifndef GW_CORE_JSON_PATH_H
#define GW_CORE_JSON_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum gw_json_type {
  GW_JSON_ABSENT, /* no value at that path */
  GW_JSON_NULL,
  GW_JSON_FALSE,
  GW_JSON_TRUE,
  GW_JSON_NUMBER,
  GW_JSON_STRING,
  GW_JSON_ARRAY,
  GW_JSON_OBJECT,
};

struct gw_json_doc {
  char path[1024]; /* the file, for messages */
  char *text;
  size_t len;
};

/* A value of a document: its text is doc->text[start, end). An object's
 * member also has its key's text (quotes included) at [key_start, key_end). */
struct gw_json_value {
  const struct gw_json_doc *doc;
  size_t start, end, key_start, key_end;
  enum gw_json_type type;
};

/* Read path (at most max_bytes) and check that it holds one valid JSON
 * object; otherwise GW_EINPUT with a message naming the file, "not a JSON
 * object" and why (the parser's reason and the byte offset). */
GW_NODISCARD gw_status gw_json_doc_load(const char *path, long max_bytes, struct gw_json_doc *doc, struct gw_err *err);
/* The same on text in memory (copied); name is for messages. */
GW_NODISCARD gw_status gw_json_doc_from_text(const char *name, const char *text, size_t len, struct gw_json_doc *doc,
                                             struct gw_err *err);
void gw_json_doc_free(struct gw_json_doc *doc);
struct gw_json_value gw_json_root(const struct gw_json_doc *doc);

/* The value at path below v; its type is GW_JSON_ABSENT when there is none. */
struct gw_json_value gw_json_get(struct gw_json_value v, const char *path);
enum gw_json_type gw_json_type_at(struct gw_json_value v, const char *path);
/* The number at path, NAN when absent or not a number. */
double gw_json_number(struct gw_json_value v, const char *path);
/* The integer at path (a number written without fraction or exponent that
 * fits 64 bits) into *out: 0, or -1 otherwise. */
int gw_json_i64(struct gw_json_value v, const char *path, int64_t *out);
/* The string at path, decoded, into buf (cut to cap, always terminated):
 * 0, or -1 when absent or not a string. */
int gw_json_string(struct gw_json_value v, const char *path, char *buf, size_t cap);
/* The key of an object's member (from gw_json_members) into buf: 0, or -1
 * when v is no object member. */
int gw_json_key(struct gw_json_value v, char *buf, size_t cap);

/* The members of the array or object v in the document's order, into a
 * new array *out (free() it); returns their number, 0 for a scalar or an
 * absent value. */
size_t gw_json_members(struct gw_json_value v, struct gw_json_value **out);

#endif
