/* The import's streaming JSON reader (lib/core/json_stream.c) against
 * yajl, which it replaced: the same callbacks with the same bytes for every
 * document, however the input is cut into reads; the same documents
 * refused; skipping; the depth limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_parse.h>

#include "core/json_stream.h"
#include "support_test_main.h"

/* Every callback as text, so two parses compare with one strcmp. */
struct log {
  char *text;
  size_t len, cap;
  int skip_key; /* return GW_JSON_SKIP for the object after key "skip" */
  int last_key_skip;
};

static void put(struct log *l, const char *tag, const void *bytes, size_t n) {
  size_t need = l->len + strlen(tag) + n + 32;
  if (need > l->cap) {
    l->cap = need * 2;
    l->text = realloc(l->text, l->cap);
    assert_non_null(l->text);
  }
  l->len += (size_t)sprintf(l->text + l->len, "%s%zu:", tag, n);
  memcpy(l->text + l->len, bytes, n);
  l->len += n;
  l->text[l->len++] = '|';
  l->text[l->len] = '\0';
}

static int on_null(void *c) {
  put(c, "null", "", 0);
  return 1;
}
static int on_bool(void *c, int v) {
  put(c, v ? "true" : "false", "", 0);
  return 1;
}
static int on_number(void *c, const char *s, size_t n) {
  put(c, "num", s, n);
  return 1;
}
static int on_string(void *c, const unsigned char *s, size_t n) {
  put(c, "str", s, n);
  return 1;
}
static int on_start_map(void *c) {
  struct log *l = c;
  put(c, "{", "", 0);
  if (l->skip_key && l->last_key_skip)
    return GW_JSON_SKIP;
  return 1;
}
static int on_key(void *c, const unsigned char *s, size_t n) {
  struct log *l = c;
  l->last_key_skip = n == 4 && memcmp(s, "skip", 4) == 0;
  put(c, "key", s, n);
  return 1;
}
static int on_end_map(void *c) {
  put(c, "}", "", 0);
  return 1;
}
static int on_start_array(void *c) {
  put(c, "[", "", 0);
  return 1;
}
static int on_end_array(void *c) {
  put(c, "]", "", 0);
  return 1;
}

static const struct gw_json_callbacks CB = {on_null, on_bool,    on_number,      on_string,   on_start_map,
                                            on_key,  on_end_map, on_start_array, on_end_array};

/* yajl with the options the importer used: 1 when the document is valid */
static int run_yajl(const unsigned char *doc, size_t n, struct log *l) {
  static const yajl_callbacks Y = {
      .yajl_null = on_null,
      .yajl_boolean = on_bool,
      .yajl_number = on_number,
      .yajl_string = on_string,
      .yajl_start_map = on_start_map,
      .yajl_map_key = on_key,
      .yajl_end_map = on_end_map,
      .yajl_start_array = on_start_array,
      .yajl_end_array = on_end_array,
  };
  yajl_handle h = yajl_alloc(&Y, NULL, l);
  yajl_config(h, yajl_dont_validate_strings, 1);
  int ok = yajl_parse(h, doc, n) == yajl_status_ok && yajl_complete_parse(h) == yajl_status_ok;
  yajl_free(h);
  return ok;
}

/* The reader fed reads of at most step bytes (the rest of an unfinished
 * token carried over as the importer does): 1 when valid. */
static int run_stream(const unsigned char *doc, size_t n, size_t step, struct log *l) {
  struct gw_json *j = gw_json_new(&CB, l, 64);
  unsigned char *buf = malloc(n + 1);
  assert_non_null(buf);
  size_t keep = 0, off = 0;
  int ok = 0;
  for (;;) {
    size_t got = n - off < step ? n - off : step;
    memcpy(buf + keep, doc + off, got);
    off += got;
    size_t used;
    enum gw_json_status st = gw_json_parse(j, buf, keep + got, got == 0, &used);
    if (st != GW_JSON_OK)
      break;
    if (got == 0) {
      ok = 1;
      break;
    }
    keep = keep + got - used;
    memmove(buf, buf + used, keep);
  }
  free(buf);
  gw_json_free(j);
  return ok;
}

static void check_doc(const char *name, const unsigned char *doc, size_t n) {
  struct log y = {0}, whole = {0};
  int y_ok = run_yajl(doc, n, &y);
  int ok = run_stream(doc, n, n + 1, &whole);
  if (ok != y_ok)
    fail_msg("%s: yajl says %s, the reader %s", name, y_ok ? "valid" : "invalid", ok ? "valid" : "invalid");
  if (ok && strcmp(y.text ? y.text : "", whole.text ? whole.text : "") != 0)
    fail_msg("%s: callbacks differ:\n yajl   %s\n reader %s", name, y.text, whole.text);
  /* every read size gives the same callbacks as one read */
  for (size_t step = 1; step <= n && step <= 40; step++) {
    struct log cut = {0};
    int cut_ok = run_stream(doc, n, step, &cut);
    if (cut_ok != ok || (ok && strcmp(whole.text ? whole.text : "", cut.text ? cut.text : "") != 0))
      fail_msg("%s: reads of %zu bytes differ from one read", name, step);
    free(cut.text);
  }
  free(y.text);
  free(whole.text);
}

static const char *const DOCS[] = {
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5119690658867.795, "
    "\"dur\": 1.5, \"pid\": 0, \"tid\": 7, \"args\": {\"grid\": [1, 2, 3], \"device\": 0}}]}",
    "[{\"ts\": -0.5e+10, \"x\": 1E5, \"y\": 0, \"z\": -0, \"w\": 12.000}]",
    "{\"a\": true, \"b\": false, \"c\": null, \"d\": [], \"e\": {}, \"f\": [[]], \"g\": [{}]}",
    "\"escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
    "[\"\\u00e9\\u4e2d\\ud83d\\ude00\\u0000x\", \"\\u0041\\u00DF\"]",
    "[\"lone \\ud800x\", \"\\udc00\", \"end \\ud800\"]",
    "[\"\\ud800\\n after\", \"\\ud800\\u0041\"]",
    "[\"raw \xc3\xa9 and bad \xff\xfe bytes\"]",
    " \t\r\n\v\f[1]\n\v ",
    "123",
    "-7",
    "\"just a string\"",
    "{\"k\":[1,2,{\"n\":[null,true]}],\"long\":\"0123456789abcdef0123456789abcdef0123456789\"}",
    /* refused */
    "",
    "   ",
    "[1,]",
    "{\"a\":1,}",
    "{\"a\" 1}",
    "{1: 2}",
    "[01]",
    "[1.]",
    "[.5]",
    "[-]",
    "[1e]",
    "[1e+]",
    "[tru]",
    "[nul]",
    "[truex]",
    "[1] 2",
    "[1]]",
    "{\"a\": [}",
    "[\"ctl \x01 char\"]",
    "[\"bad escape \\x\"]",
    "[\"short \\u12\"]",
    "[\"unterminated",
    "{\"traceEvents\": [",
    "[1, 2",
    "[+1]",
    "[1-2]",
    "{\"ph\": \"X\", x}",
};

static void test_same_as_yajl(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof DOCS / sizeof DOCS[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "doc %zu", i);
    check_doc(name, (const unsigned char *)DOCS[i], strlen(DOCS[i]));
  }
}

/* Documents damaged at random, a byte at a time: both parsers agree on
 * which are JSON and, for those, on every callback. */
static void test_damaged_documents_agree(void **state) {
  (void)state;
  static const char base[] = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\\\"b\\u00e9\", "
                             "\"ts\": 12.5, \"dur\": -3e2, \"args\": {\"l\": [true, false, null]}}, {}]}";
  static const char alphabet[] = "{}[]:,\"\\ u0123456789.eE+-tfnrlasx\x01\xff";
  size_t n = sizeof base - 1;
  unsigned char doc[sizeof base];
  uint32_t seed = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(doc, base, n);
    for (int k = 0; k < 1 + iter % 3; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % n;
      seed = seed * 1103515245u + 12345u;
      doc[at] = (unsigned char)alphabet[(seed >> 8) % (sizeof alphabet - 1)];
    }
    size_t len = n - (iter % 7 == 0 ? (seed >> 4) % n : 0); /* some cut short */
    struct log y = {0}, r = {0};
    int y_ok = run_yajl(doc, len, &y), r_ok = run_stream(doc, len, 16, &r);
    if (y_ok != r_ok || (y_ok && strcmp(y.text ? y.text : "", r.text ? r.text : "") != 0))
      fail_msg("iteration %d: yajl %d, reader %d: %.*s", iter, y_ok, r_ok, (int)len, doc);
    free(y.text);
    free(r.text);
  }
}

static void test_skip_reports_only_the_ends(void **state) {
  (void)state;
  const char *doc = "{\"skip\": {\"a\": [1, {\"b\": \"c\"}], \"d\": 2}, \"keep\": {\"e\": 3}}";
  struct log l = {.skip_key = 1};
  assert_int_equal(run_stream((const unsigned char *)doc, strlen(doc), 7, &l), 1);
  assert_string_equal(l.text, "{0:|key4:skip|{0:|}0:|key4:keep|{0:|key1:e|num1:3|}0:|}0:|");
  free(l.text);
  /* a skipped object is still checked */
  struct log bad = {.skip_key = 1};
  const char *broken = "{\"skip\": {\"a\": [1,]}}";
  assert_int_equal(run_stream((const unsigned char *)broken, strlen(broken), 100, &bad), 0);
  free(bad.text);
}

static void test_depth_limit_and_offsets(void **state) {
  (void)state;
  char doc[200];
  for (int depth = 63; depth <= 65; depth++) {
    memset(doc, '[', (size_t)depth);
    memset(doc + depth, ']', (size_t)depth);
    struct log l = {0};
    struct gw_json *j = gw_json_new(&CB, &l, 64);
    size_t used;
    enum gw_json_status st = gw_json_parse(j, (const unsigned char *)doc, (size_t)(2 * depth), 1, &used);
    assert_int_equal(st, depth <= 64 ? GW_JSON_OK : GW_JSON_TOO_DEEP);
    gw_json_free(j);
    free(l.text);
  }
  /* the offset names the byte after the offending one, counted across reads */
  struct log l = {0};
  struct gw_json *j = gw_json_new(&CB, &l, 64);
  size_t used;
  const char *a = "[1, 2, ", *b = "x]";
  assert_int_equal(gw_json_parse(j, (const unsigned char *)a, strlen(a), 0, &used), GW_JSON_OK);
  assert_int_equal(used, strlen(a));
  assert_int_equal(gw_json_parse(j, (const unsigned char *)b, strlen(b), 0, &used), GW_JSON_ERROR);
  assert_int_equal(gw_json_offset(j), strlen(a) + 1);
  assert_true(strlen(gw_json_error(j)) > 0);
  gw_json_free(j);
  free(l.text);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_as_yajl),
    cmocka_unit_test(test_damaged_documents_agree),
    cmocka_unit_test(test_skip_reports_only_the_ends),
    cmocka_unit_test(test_depth_limit_and_offsets),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
