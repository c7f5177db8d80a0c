/* A fifth report format added the way docs/ARCHITECTURE.md says (a renderer
 * file and the rows of GW_EXTRA_REPORT_FORMATS) is offered by name, listed
 * among the formats, and renders a recording's diagnosis; the product's
 * formats are unchanged. Built with lib/render/report_file.c compiled again
 * with the extra rows; the rest of the library is the product's. */
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
#include "../unit/support_scenario_report.h"
#include "../unit/support_test_main.h"
#include "report_formats_extra.h"

static void offered_by_name_and_listed(void **state) {
  (void)state;
  enum gw_report_format f = GW_REPORT_TEXT;
  assert_int_equal(gw_report_format_from_name("csv", &f), 0);
  assert_int_equal(f, GW_REPORT_CSV);
  assert_true(gw_report_formats() & GW_FORMAT_BIT(GW_REPORT_CSV));
  char list[128];
  gw_format_list(gw_report_formats(), list, sizeof list);
  assert_string_equal(list, "text, json, md, html, csv");
  enum gw_report_format picked = GW_REPORT_TEXT;
  assert_int_equal(gw_format_pick(gw_report_formats(), "csv", &picked, list, sizeof list), 0);
  assert_int_equal(picked, GW_REPORT_CSV);
}

static void renders_the_diagnosis(void **state) {
  (void)state;
  struct gw_diagnosis *dx = support_scenario_diagnosis();
  char *s = support_scenario_report(GW_REPORT_CSV);
  assert_non_null(strstr(s, "kind,class,share_of_active,confidence\n"));
  char line[128];
  snprintf(line, sizeof line, "verdict,%s,,\n", dx->verdict);
  assert_non_null(strstr(s, line));
  assert_string_equal(dx->verdict, "input_pipeline"); /* the fixture's truth */
  for (int i = 0; i < dx->nfindings; i++) {
    snprintf(line, sizeof line, "finding,%s,%.4f,", dx->findings[i].class_id, dx->findings[i].share_of_active);
    assert_non_null(strstr(s, line));
  }
  gw_diagnosis_free(dx);
  free(s);
}

static void product_formats_unchanged(void **state) {
  (void)state;
  char *s = support_scenario_report(GW_REPORT_JSON);
  assert_int_equal(s[0], '{');
  assert_null(strstr(s, "kind,class"));
  free(s);
  s = support_scenario_report(GW_REPORT_TEXT);
  assert_non_null(strstr(s, "Verdict:"));
  free(s);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(offered_by_name_and_listed),
    cmocka_unit_test(renders_the_diagnosis),
    cmocka_unit_test(product_formats_unchanged),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
