/* Golden outputs of the three renderers on a synthetic starved run.
 * GW_UPDATE_GOLDEN=1 rewrites tests/expected/ instead of comparing. */
#include <gpuwhy/report.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "support_starved_recording.h"
#include "support_test_main.h"

static char g_db[128];

static int setup(void **state) {
  return support_starved_setup(state, 30, g_db, sizeof g_db);
}

/* The report of the starved recording in fmt, NUL-terminated (free it). */
static char *report_of(enum gw_report_format fmt, int color, size_t *len) {
  FILE *out = tmpfile();
  assert_non_null(out);
  struct gw_report_opts opts = {fmt, color};
  char err[512] = "";
  if (gw_report_file(g_db, &opts, out, err, sizeof err) != 0)
    fail_msg("report failed: %s", err);
  char *s = support_slurp(out, len);
  fclose(out);
  return s;
}

static void check_golden(enum gw_report_format fmt, const char *name) {
  size_t got_len;
  char *got = report_of(fmt, 0, &got_len);
  const char *src = getenv("GW_SOURCE_DIR");
  if (!src)
    skip();
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/expected/%s", src, name);
  const char *update = getenv("GW_UPDATE_GOLDEN");
  if (update && update[0] == '1') {
    FILE *w = fopen(path, "w");
    assert_non_null(w);
    fwrite(got, 1, got_len, w);
    fclose(w);
  } else {
    FILE *r = fopen(path, "r");
    if (!r)
      fail_msg("missing golden file %s (run with GW_UPDATE_GOLDEN=1)", path);
    size_t want_len;
    char *want = support_slurp(r, &want_len);
    fclose(r);
    if (got_len != want_len || memcmp(got, want, got_len) != 0)
      fail_msg("%s differs from the renderer's output:\n%s", path, got);
    free(want);
  }
  free(got);
}

static void text_matches_golden(void **state) {
  (void)state;
  check_golden(GW_REPORT_TEXT, "report_starved.txt");
}
static void json_matches_golden(void **state) {
  (void)state;
  check_golden(GW_REPORT_JSON, "report_starved.json");
}
static void md_matches_golden(void **state) {
  (void)state;
  check_golden(GW_REPORT_MD, "report_starved.md");
}

static void json_is_versioned_and_names_the_class(void **state) {
  (void)state;
  size_t len;
  char *s = report_of(GW_REPORT_JSON, 0, &len);
  assert_non_null(strstr(s, "\"schema\": \"gpuwhy.report/2\""));
  assert_non_null(strstr(s, "\"schema_version\": 2"));
  assert_non_null(strstr(s, "\"verdict\": \"input_pipeline\""));
  assert_non_null(strstr(s, "\"row\": \"startup\""));
  assert_null(strstr(s, "nan"));
  /* balanced braces and brackets outside strings */
  int depth = 0, in_str = 0;
  for (size_t i = 0; i < len; i++) {
    if (in_str) {
      if (s[i] == '\\')
        i++;
      else if (s[i] == '"')
        in_str = 0;
    } else if (s[i] == '"')
      in_str = 1;
    else if (s[i] == '{' || s[i] == '[')
      depth++;
    else if (s[i] == '}' || s[i] == ']')
      assert_true(--depth >= 0);
  }
  assert_int_equal(depth, 0);
  free(s);
}

static void color_only_when_asked(void **state) {
  (void)state;
  size_t len;
  char *s = report_of(GW_REPORT_TEXT, 1, &len);
  assert_non_null(strchr(s, '\033'));
  free(s);
}

static void bad_input_is_exit_3_with_reason(void **state) {
  (void)state;
  char err[512] = "";
  struct gw_report_opts opts = {GW_REPORT_TEXT, 0};
  assert_int_equal(gw_report_file("/nonexistent/x.db", &opts, stdout, err, sizeof err), 3);
  assert_non_null(strstr(err, "no such file"));
  char path[] = "/tmp/gw_notdb_XXXXXX";
  int fd = mkstemp(path);
  assert_true(write(fd, "hello, not sqlite", 17) == 17);
  close(fd);
  assert_int_equal(gw_report_file(path, &opts, stdout, err, sizeof err), 3);
  assert_non_null(strstr(err, "not a gpuwhy recording"));
  unlink(path);
}

static void explain_lists_six_and_rejects_unknown(void **state) {
  (void)state;
  FILE *out = tmpfile();
  assert_int_equal(gw_explain(out, NULL), 0);
  size_t len;
  char *s = support_slurp(out, &len);
  fclose(out);
  const char *ids[] = {"input_pipeline", "small_batch",  "launch_overhead",
                       "multi_gpu_sync", "hardware_env", "schedule_shape"};
  for (int i = 0; i < 6; i++)
    assert_non_null(strstr(s, ids[i]));
  free(s);
  out = tmpfile();
  assert_int_equal(gw_explain(out, "launch_overhead"), 0);
  fclose(out);
  assert_int_equal(gw_explain(stdout, "bogus"), -1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(text_matches_golden),
    cmocka_unit_test(json_matches_golden),
    cmocka_unit_test(md_matches_golden),
    cmocka_unit_test(json_is_versioned_and_names_the_class),
    cmocka_unit_test(color_only_when_asked),
    cmocka_unit_test(bad_input_is_exit_3_with_reason),
    cmocka_unit_test(explain_lists_six_and_rejects_unknown),
};
SUPPORT_TEST_MAIN(tests, setup, support_tmpdir_teardown)
