/* A seventh bottleneck class added the way docs/ARCHITECTURE.md says (a rule
 * file, a registry line, the rows of its evidence, fix and class words) shows
 * up in every report format, in explain, and the findings array has room for
 * it. Built against gpuwhy_lib_rule7 only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/report.h>

#include "analysis/diagnosis.h"
#include "analysis/rules.h"

static char fixture[1024];

static char *report(enum gw_report_format format) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  struct gw_report_opts opts = {format, 0};
  char err[256] = "";
  assert_int_equal(gw_report_file(fixture, &opts, out, err, sizeof err), GPUWHY_EXIT_OK);
  fclose(out);
  return buf;
}

static void registry_has_seven_rows(void **state) {
  (void)state;
  assert_int_equal(gw_nrules, 7);
  assert_int_equal(GW_MAX_FINDINGS, 7);
  assert_string_equal(gw_rules[6]->id, "test_always");
  assert_ptr_equal(gw_rule_find("test_always"), gw_rules[6]);
  assert_string_equal(gw_class_id_at(6), "test_always");
  assert_null(gw_class_id_at(7));
}

static void finding_is_last_and_verdict_unchanged(void **state) {
  (void)state;
  struct gw_diagnosis *dx = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_diagnose_file(fixture, &dx, &err), GW_OK);
  assert_true(dx->nfindings >= 2);
  const struct gw_finding *f = &dx->findings[dx->nfindings - 1];
  assert_string_equal(f->class_id, "test_always");
  assert_float_equal(f->share_of_active, 0.0123, 1e-12);
  assert_string_equal(dx->verdict, "input_pipeline"); /* the fixture's own verdict, as in its truth file */
  gw_diagnosis_free(dx);
}

static void text_report_shows_it(void **state) {
  (void)state;
  char *s = report(GW_REPORT_TEXT);
  assert_non_null(strstr(s, "A test class that always fires"));
  assert_non_null(strstr(s, "test_always"));
  assert_non_null(strstr(s, "seventh-rule evidence: 1 GPU(s)"));
  assert_non_null(strstr(s, "seventh-rule fix"));
  free(s);
}

static void json_report_shows_it(void **state) {
  (void)state;
  char *s = report(GW_REPORT_JSON);
  assert_non_null(strstr(s, "\"class\": \"test_always\""));
  assert_non_null(strstr(s, "\"title\": \"A test class that always fires\""));
  assert_non_null(strstr(s, "seventh-rule evidence: 1 GPU(s)"));
  free(s);
}

static void html_report_shows_it(void **state) {
  (void)state;
  char *s = report(GW_REPORT_HTML);
  assert_non_null(strstr(s, "test_always"));
  assert_non_null(strstr(s, "A test class that always fires"));
  assert_non_null(strstr(s, "seventh-rule evidence: 1 GPU(s)"));
  free(s);
}

static void explain_lists_it(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_int_equal(gw_explain(out, "test_always"), 0);
  fclose(out);
  assert_non_null(strstr(buf, "test_always: A test class that always fires"));
  assert_non_null(strstr(buf, "seventh-rule signals"));
  assert_non_null(strstr(buf, "seventh-rule confirm"));
  assert_non_null(strstr(buf, "seventh-rule fixes"));
  free(buf);
  /* and in the list of all classes */
  out = open_memstream(&buf, &len);
  assert_int_equal(gw_explain(out, NULL), 0);
  fclose(out);
  assert_non_null(strstr(buf, "test_always      A test class that always fires"));
  free(buf);
}

int main(void) {
  const char *dir = getenv("GW_FIXTURES");
  if (!dir)
    return 77;
  snprintf(fixture, sizeof fixture, "%s/scenarios/input_cpu_transforms.db", dir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(registry_has_seven_rows), cmocka_unit_test(finding_is_last_and_verdict_unchanged),
      cmocka_unit_test(text_report_shows_it),    cmocka_unit_test(json_report_shows_it),
      cmocka_unit_test(html_report_shows_it),    cmocka_unit_test(explain_lists_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
