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
#include "../unit/support_scenario_report.h"
#include "../unit/support_test_main.h"

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
  struct gw_diagnosis *dx = support_scenario_diagnosis();
  assert_true(dx->nfindings >= 2);
  const struct gw_finding *f = &dx->findings[dx->nfindings - 1];
  assert_string_equal(f->class_id, "test_always");
  assert_float_equal(f->share_of_active, 0.0123, 1e-12);
  assert_string_equal(dx->verdict, "input_pipeline"); /* the fixture's own verdict, as in its truth file */
  gw_diagnosis_free(dx);
}

/* Every report format names the class and gives its evidence (and fix). */
static void reports_show_it(void **state) {
  (void)state;
  static const struct {
    enum gw_report_format format;
    const char *says[4]; /* NULL: no more */
  } reports[] = {
      {GW_REPORT_TEXT,
       {"A test class that always fires", "test_always", "seventh-rule evidence: 1 GPU(s)", "seventh-rule fix"}},
      {GW_REPORT_JSON,
       {"\"class\": \"test_always\"", "\"title\": \"A test class that always fires\"",
        "seventh-rule evidence: 1 GPU(s)", NULL}},
      {GW_REPORT_HTML, {"test_always", "A test class that always fires", "seventh-rule evidence: 1 GPU(s)", NULL}},
  };
  for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
    char *s = support_scenario_report(reports[i].format);
    for (int k = 0; k < 4 && reports[i].says[k]; k++)
      if (!strstr(s, reports[i].says[k]))
        fail_msg("report format %d lacks '%s'", (int)reports[i].format, reports[i].says[k]);
    free(s);
  }
}

/* What gpuwhy explain says of class_id (NULL: the list of all classes). */
static char *explain(const char *class_id) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  assert_int_equal(gw_explain(out, class_id), 0);
  fclose(out);
  return buf;
}

static void explain_lists_it(void **state) {
  (void)state;
  char *buf = explain("test_always");
  assert_non_null(strstr(buf, "test_always: A test class that always fires"));
  assert_non_null(strstr(buf, "seventh-rule signals"));
  assert_non_null(strstr(buf, "seventh-rule confirm"));
  assert_non_null(strstr(buf, "seventh-rule fixes"));
  free(buf);
  /* and in the list of all classes */
  buf = explain(NULL);
  assert_non_null(strstr(buf, "test_always      A test class that always fires"));
  free(buf);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(registry_has_seven_rows),
    cmocka_unit_test(finding_is_last_and_verdict_unchanged),
    cmocka_unit_test(reports_show_it),
    cmocka_unit_test(explain_lists_it),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
