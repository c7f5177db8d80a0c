/* A streaming JSON reader made for gigabyte traces: a push parser like yajl
 * (same callbacks, same strict RFC 8259 grammar, same string decoding) that
 * takes whole tokens from the caller's buffer without copying them, and scans
 * strings eight bytes at a time. The caller keeps the bytes of an unfinished
 * token and passes them again with more after them.
 *
 * Why by hand rather than yajl, the library it replaces: the import must read
 * a gigabyte trace at least ten times faster than jq merely parses it, and
 * yajl's tokenizer alone took 2.85 s of the 3.1 s that leaves for a 1.1 GB
 * trace on the 2-core build machine (bench/import/README.md); this reader
 * takes about 1.0 s. yajl stays the reference: tests/unit/
 * test_import_json_stream.c checks that both accept, reject and report the
 * same on valid, damaged and randomly cut documents. */
#ifndef GW_CORE_JSON_STREAM_H
#define GW_CORE_JSON_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* Callbacks return 1 to go on and 0 to stop the parse (GW_JSON_CANCELED).
 * start_map and start_array may also return GW_JSON_SKIP: the container is
 * still checked and its end still reported, but nothing inside it is. */
#define GW_JSON_SKIP 2

struct gw_json_callbacks {
  int (*null_value)(void *ctx);
  int (*boolean)(void *ctx, int value);
  int (*number)(void *ctx, const char *text, size_t len); /* the text as written */
  int (*string)(void *ctx, const unsigned char *s, size_t len);
  int (*start_map)(void *ctx);
  int (*map_key)(void *ctx, const unsigned char *s, size_t len);
  int (*end_map)(void *ctx);
  int (*start_array)(void *ctx);
  int (*end_array)(void *ctx);
};

enum gw_json_status {
  GW_JSON_OK,         /* all whole tokens taken; at the end: the document is complete */
  GW_JSON_CANCELED,   /* a callback returned 0 */
  GW_JSON_ERROR,      /* not JSON here: gw_json_error says why, gw_json_offset where */
  GW_JSON_TOO_DEEP,   /* containers nested deeper than max_depth */
  GW_JSON_INCOMPLETE, /* at the end: the document stops inside a value */
};

struct gw_json;

struct gw_json *gw_json_new(const struct gw_json_callbacks *cb, void *ctx, int max_depth);
void gw_json_free(struct gw_json *j);

/* Parses buf[0, n): *used_bytes is how much was taken (whole tokens); the
 * caller passes the rest again, followed by more input. at_end: no more
 * input follows, so a token that reaches n is complete or cut short. */
enum gw_json_status gw_json_parse(struct gw_json *j, const unsigned char *buf, size_t n, int at_end,
                                  size_t *used_bytes);

/* Absolute input offset just after the token being reported (inside a
 * callback) or just after the offending byte (after an error). */
uint64_t gw_json_offset(const struct gw_json *j);

/* Why the last GW_JSON_ERROR or GW_JSON_INCOMPLETE. */
const char *gw_json_error(const struct gw_json *j);

#endif
