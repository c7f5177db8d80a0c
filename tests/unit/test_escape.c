/* Escaping of recording text for HTML, JSON and Prometheus labels, UTF-8
 * repair, and the command line shown to people. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render/escape.h"
#include "render/run_facts.h"
#include "support_test_main.h"

static void html_reserved_characters(void **state) {
  (void)state;
  char buf[256];
  assert_int_equal(gw_html_escape(buf, sizeof buf, "<script>alert('x') & \"y\"</script>"),
                   (long)strlen("&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"));
  assert_string_equal(buf, "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  /* control characters other than tab and newline are dropped */
  assert_int_equal(gw_html_escape(buf, sizeof buf, "a\x01\x1b[31mb\tc\nd\x7f"), 10);
  assert_string_equal(buf, "a[31mb\tc\nd");
  assert_int_equal(gw_html_escape(buf, sizeof buf, NULL), 0);
  assert_string_equal(buf, "");
}

static void html_truncation_keeps_entities_whole(void **state) {
  (void)state;
  char buf[8];
  /* "ab&amp;" is 7 bytes + NUL = 8: fits; one more entity does not */
  assert_int_equal(gw_html_escape(buf, sizeof buf, "ab&"), 7);
  assert_int_equal(gw_html_escape(buf, sizeof buf, "ab&<"), -1);
  assert_string_equal(buf, "ab&amp;");
  assert_int_equal(gw_html_escape(buf, 0, "x"), -1);
}

static void utf8_validation(void **state) {
  (void)state;
  /* the bytes, how many of them are there to read, the sequence's length (0: invalid) */
  static const struct {
    const char *bytes;
    size_t n, len;
  } seqs[] = {
      {"\xc3\xa9", 2, 2},
      {"\xe4\xb8\xad", 3, 3},
      {"\xf0\x9f\x98\x80", 4, 4},
      {"\xf0\x9f\x98\x80", 3, 0}, /* cut short */
      {"\xc0\xaf", 2, 0},         /* overlong */
      {"\xed\xa0\x80", 3, 0},     /* a surrogate */
      {"\xf4\x90\x80\x80", 4, 0}, /* above U+10FFFF */
      {"\x80", 1, 0},             /* a stray continuation byte */
      {"\xe0\x80\xaf", 3, 0},     /* overlong in three bytes */
  };
  for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
    if (gw_utf8_seq_len((const unsigned char *)seqs[i].bytes, seqs[i].n) != seqs[i].len)
      fail_msg("sequence %zu: length %zu, expected %zu", i,
               gw_utf8_seq_len((const unsigned char *)seqs[i].bytes, seqs[i].n), seqs[i].len);
  char buf[64];
  /* valid Chinese passes, each bad byte becomes U+FFFD */
  gw_html_escape(buf, sizeof buf, "\xe4\xb8\xad<\xff\xc3");
  assert_string_equal(buf, "\xe4\xb8\xad&lt;\xef\xbf\xbd\xef\xbf\xbd");
}

static char *capture(void (*write)(FILE *, const char *), const char *s) {
  static char out[512];
  FILE *f = tmpfile();
  assert_non_null(f);
  write(f, s);
  rewind(f);
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  fclose(f);
  return out;
}

static void json_strings(void **state) {
  (void)state;
  assert_string_equal(capture(gw_json_write_utf8, "a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  assert_string_equal(capture(gw_json_write_utf8, "k\xffz"), "\"k\xef\xbf\xbdz\"");
  assert_string_equal(capture(gw_json_write_utf8, NULL), "\"\"");
  assert_string_equal(capture(gw_html_write, "1 < 2"), "1 &lt; 2");
}

/* One JSON string writer: every path (reports, compare, Perfetto, the
 * buffer form) gives the same bytes for the same text, invalid UTF-8 and
 * control characters included, and the result is valid UTF-8. */
static void json_one_writer_for_invalid_utf8(void **state) {
  (void)state;
  static const char *const inputs[] = {
      "k\xffz",                  /* a byte that starts nothing */
      "\xc3(",                   /* a lead byte without its continuation */
      "\xed\xa0\x80",            /* a surrogate */
      "\xf0\x9f\x98",            /* cut short at the end */
      "ok \xe4\xb8\xad\r\t\x7f", /* valid Chinese, CR, tab, DEL */
  };
  static const char *const want[] = {
      "\"k\xef\xbf\xbdz\"",
      "\"\xef\xbf\xbd(\"",
      "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
      "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
      "\"ok \xe4\xb8\xad\\r\\t\\u007f\"",
  };
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    char a[512], b[512]; /* copies of capture's static buffer (512 bytes, so nothing is cut) */
    snprintf(a, sizeof a, "%s", capture(gw_json_write_string, inputs[i]));
    snprintf(b, sizeof b, "%s", capture(gw_json_write_utf8, inputs[i]));
    char buf[64];
    assert_true(gw_json_quote(buf, sizeof buf, inputs[i]) > 0);
    assert_string_equal(a, want[i]);
    assert_string_equal(b, want[i]);
    assert_string_equal(buf, want[i]);
  }
}

static void prometheus_labels(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(gw_prom_label_escape(buf, sizeof buf, "A \"B\" \\ C\nD"), 15);
  assert_string_equal(buf, "A \\\"B\\\" \\\\ C\\nD");
  assert_int_equal(gw_prom_label_escape(buf, 4, "abcdef"), -1);
}

static void command_lines(void **state) {
  (void)state;
  /* the command as stored (a JSON array of strings), as shown */
  static const struct {
    const char *stored, *shown;
  } cases[] = {
      {"[\"python3\",\"-u\",\"train.py\",\"--lr\",\"1e-3\"]", "python3 -u train.py --lr 1e-3"},
      {"[\"sh\", \"-c\", \"echo 'hi' && ls\", \"a\\\"b\", \"\"]", "sh -c 'echo '\\''hi'\\'' && ls' 'a\"b' ''"},
      {"[\"caf\\u00e9\", \"x\\ty\"]", "caf\xc3\xa9 'x\ty'"},
      {"[\"--pid\", \"42\"]", "--pid 42"},
      /* not an array of strings: shown as stored */
      {"python3 train.py", "python3 train.py"},
      {"[\"unterminated", "[\"unterminated"},
      {"[\"bad escape \\q\"]", "[\"bad escape \\q\"]"},
      {"[]", ""},
  };
  char out[256];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gw_command_for_people(cases[i].stored, out, sizeof out);
    assert_string_equal(out, cases[i].shown);
  }
  char tiny[6];
  gw_command_for_people("[\"abcdefgh\"]", tiny, sizeof tiny);
  assert_true(strlen(tiny) < sizeof tiny);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(html_reserved_characters),
    cmocka_unit_test(html_truncation_keeps_entities_whole),
    cmocka_unit_test(utf8_validation),
    cmocka_unit_test(json_strings),
    cmocka_unit_test(json_one_writer_for_invalid_utf8),
    cmocka_unit_test(prometheus_labels),
    cmocka_unit_test(command_lines),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
