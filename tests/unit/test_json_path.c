/* Path lookups in small JSON documents (lib/core/json_path.c): values found
 * at every depth, skipped siblings that hold the same keys, absent values,
 * members with their keys and spans, and the messages for bad documents. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/json_path.h"
#include "support_test_main.h"

static struct gw_json_doc load(const char *text) {
  struct gw_json_doc doc;
  struct gw_err err = {{0}};
  assert_int_equal(gw_json_doc_from_text("t.json", text, strlen(text), &doc, &err), GW_OK);
  return doc;
}

static const char *DOC = " {\"a\": {\"x\": [1, {\"c\": 9}], \"b\": [10, 20, {\"c\": \"deep\\u00e9\"}]},\n"
                         "  \"n\": -1.5e3, \"t\": true, \"f\": false, \"z\": null, \"big\": 4000000000000000000,\n"
                         "  \"a.b\": 7, \"frac\": 2.0, \"s\": \"q\\\"uote\", \"e\": {}, \"arr\": []}";

static void lookups(void **state) {
  (void)state;
  struct gw_json_doc doc = load(DOC);
  struct gw_json_value root = gw_json_root(&doc);
  char buf[64];
  assert_int_equal(gw_json_string(root, "a.b[2].c", buf, sizeof buf), 0);
  assert_string_equal(buf, "deep\xc3\xa9");
  assert_true(gw_json_number(root, "a.b[1]") == 20);
  assert_true(gw_json_number(root, "a.x[1].c") == 9); /* "c" also inside a.b: not confused */
  assert_true(gw_json_number(root, "n") == -1500);
  assert_int_equal(gw_json_type_at(root, "t"), GW_JSON_TRUE);
  assert_int_equal(gw_json_type_at(root, "f"), GW_JSON_FALSE);
  assert_int_equal(gw_json_type_at(root, "z"), GW_JSON_NULL);
  assert_int_equal(gw_json_type_at(root, "a"), GW_JSON_OBJECT);
  assert_int_equal(gw_json_type_at(root, "e"), GW_JSON_OBJECT);
  assert_int_equal(gw_json_type_at(root, "arr"), GW_JSON_ARRAY);
  assert_int_equal(gw_json_string(root, "s", buf, sizeof buf), 0);
  assert_string_equal(buf, "q\"uote");
  /* cut to the buffer, still terminated */
  char small[3];
  assert_int_equal(gw_json_string(root, "s", small, sizeof small), 0);
  assert_string_equal(small, "q\"");
  int64_t i = 0;
  assert_int_equal(gw_json_i64(root, "big", &i), 0);
  assert_true(i == 4000000000000000000LL);
  assert_int_equal(gw_json_i64(root, "frac", &i), -1); /* written with a fraction */
  assert_int_equal(gw_json_i64(root, "s", &i), -1);
  /* absent: unknown, never 0 */
  assert_true(isnan(gw_json_number(root, "missing")));
  assert_true(isnan(gw_json_number(root, "a.b[3]")));
  assert_true(isnan(gw_json_number(root, "a.b[0].c"))); /* a number has no fields */
  assert_true(isnan(gw_json_number(root, "a[0]")));     /* an object has no elements */
  assert_true(isnan(gw_json_number(root, "s")));        /* a string is no number */
  assert_true(isnan(gw_json_number(root, "a.b")));      /* the key "a.b" cannot be named */
  assert_int_equal(gw_json_string(root, "n", buf, sizeof buf), -1);
  assert_int_equal(gw_json_type_at(root, "a..b"), GW_JSON_ABSENT);
  assert_int_equal(gw_json_type_at(root, "a.b[x]"), GW_JSON_ABSENT);
  /* a value found once can be looked in again */
  struct gw_json_value b = gw_json_get(root, "a.b");
  assert_int_equal(b.type, GW_JSON_ARRAY);
  assert_true(gw_json_number(b, "[0]") == 10);
  assert_int_equal(gw_json_string(gw_json_get(b, "[2]"), "c", buf, sizeof buf), 0);
  gw_json_doc_free(&doc);
}

static void members(void **state) {
  (void)state;
  struct gw_json_doc doc = load(DOC);
  struct gw_json_value root = gw_json_root(&doc);
  struct gw_json_value *m = NULL;
  size_t n = gw_json_members(gw_json_get(root, "a.b"), &m);
  assert_int_equal(n, 3);
  assert_true(gw_json_number(m[0], "") == 10);
  assert_int_equal(m[2].type, GW_JSON_OBJECT);
  assert_int_equal(strncmp(doc.text + m[2].start, "{\"c\": \"deep\\u00e9\"}", m[2].end - m[2].start), 0);
  char key[16];
  assert_int_equal(gw_json_key(m[0], key, sizeof key), -1); /* array elements have no key */
  free(m);
  n = gw_json_members(root, &m);
  assert_int_equal(n, 11);
  assert_int_equal(gw_json_key(m[0], key, sizeof key), 0);
  assert_string_equal(key, "a");
  assert_int_equal(m[0].type, GW_JSON_OBJECT);
  assert_int_equal(gw_json_key(m[6], key, sizeof key), 0);
  assert_string_equal(key, "a.b");
  assert_true(gw_json_number(m[6], "") == 7);
  assert_int_equal(gw_json_key(m[10], key, sizeof key), 0);
  assert_string_equal(key, "arr");
  free(m);
  assert_int_equal(gw_json_members(gw_json_get(root, "arr"), &m), 0);
  free(m);
  assert_int_equal(gw_json_members(gw_json_get(root, "n"), &m), 0); /* a scalar has none */
  free(m);
  assert_int_equal(gw_json_members(gw_json_get(root, "nothing"), &m), 0);
  free(m);
  gw_json_doc_free(&doc);
}

static void expect_bad(const char *text, size_t len, const char *why) {
  struct gw_json_doc doc;
  struct gw_err err = {{0}};
  assert_int_equal(gw_json_doc_from_text("bad.json", text, len, &doc, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "bad.json: not a JSON object"));
  if (!strstr(err.msg, why))
    fail_msg("\"%s\" does not say \"%s\"", err.msg, why);
}

static void bad_documents(void **state) {
  (void)state;
  expect_bad("", 0, "premature EOF at byte 0");
  expect_bad("{\"steps\": [", 11, "premature EOF at byte 11");
  expect_bad("[1, 2]", 6, "the document is an array");
  expect_bad("\"x\"", 3, "the document is a string");
  expect_bad("{\"a\": 1} x", 10, "trailing garbage at byte 10");
  expect_bad("{\"a\": 01}", 9, "at byte 8");
  expect_bad("{\"a\":\0 1}", 8, "holds NUL bytes");
  char deep[200] = "{\"a\":";
  for (int k = 0; k < 70; k++)
    strcat(deep, "[");
  expect_bad(deep, strlen(deep), "nested deeper than 64");
  /* a file that is not there names itself */
  struct gw_json_doc doc;
  struct gw_err err = {{0}};
  assert_int_equal(gw_json_doc_load("/nonexistent/t.json", 1 << 20, &doc, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "/nonexistent/t.json: cannot open"));
}

static void file_limits(void **state) {
  (void)state;
  char path[] = "/tmp/gw_json_path_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *text = "{\"k\": [1, 2, 3]}";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  struct gw_json_doc doc;
  struct gw_err err = {{0}};
  assert_int_equal(gw_json_doc_load(path, 8, &doc, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "larger than 8 bytes"));
  assert_int_equal(gw_json_doc_load(path, 1 << 20, &doc, &err), GW_OK);
  assert_true(gw_json_number(gw_json_root(&doc), "k[2]") == 3);
  gw_json_doc_free(&doc);
  unlink(path);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(lookups),
    cmocka_unit_test(members),
    cmocka_unit_test(bad_documents),
    cmocka_unit_test(file_limits),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
