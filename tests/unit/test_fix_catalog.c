/* The fixes experiment try applies, their values derived from a diagnosis
 * and the gains predicted (analysis/fix_catalog.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/fix_catalog.h"
#include "render/fix_catalog_text.h"
#include "support_test_main.h"

/* An input-bound run: 8 physical cores, 2 loader workers saturated, the
 * input pipeline 50% of the active time; memory peak 30% of the GPU's. */
static struct gw_diagnosis *input_bound(void) {
  struct gw_diagnosis *dx = calloc(1, sizeof *dx);
  dx->ngpus = 1;
  dx->profiles = calloc(1, sizeof *dx->profiles);
  dx->profiles[0].mem_used_frac = 0.3;
  dx->host.physical_cores = 8;
  dx->host.logical_cpus = 16;
  dx->host.workers_med = 2;
  dx->host.workers_saturated_frac = 0.9;
  dx->nfindings = 1;
  dx->findings[0].class_id = "input_pipeline";
  dx->findings[0].share_of_active = 0.5;
  dx->findings[0].speedup_max = 2.0;
  return dx;
}

/* The same run with a small batch too, 30% of the active time. */
static struct gw_diagnosis *input_bound_small_batch(void) {
  struct gw_diagnosis *dx = input_bound();
  dx->nfindings = 2;
  dx->findings[1].class_id = "small_batch";
  dx->findings[1].share_of_active = 0.3;
  return dx;
}

/* The plan of the --fix argument arg, predicted for dx (NULL: no diagnosis). */
static struct gw_fix_plan planned(const struct gw_diagnosis *dx, const char *arg) {
  struct gw_fix_plan p;
  assert_int_equal(gw_fix_parse(arg, &p), GW_FIX_PARSE_OK);
  gw_fix_predict(dx, &p);
  return p;
}

static void free_dx(struct gw_diagnosis *dx) {
  free(dx->profiles);
  free(dx);
}

static void names_and_values_are_checked(void **state) {
  (void)state;
  struct gw_fix_plan p;
  char err[256];
  assert_int_equal(gw_fix_parse("workers=6", &p), GW_FIX_PARSE_OK);
  assert_string_equal(p.kind->name, "workers");
  assert_int_equal(p.count, 6);
  assert_true(p.given_value);
  assert_int_equal(gw_fix_parse("batch_size=x4", &p), GW_FIX_PARSE_OK);
  assert_true(p.times && p.count == 4 && p.kind->per_sample);
  assert_int_equal(gw_fix_parse("batch_size=256", &p), GW_FIX_PARSE_OK);
  assert_true(!p.times && p.count == 256);
  assert_int_equal(gw_fix_parse("pin_memory", &p), GW_FIX_PARSE_OK);
  assert_int_equal(gw_fix_parse("workers", &p), GW_FIX_PARSE_OK);
  assert_false(p.given_value);
  /* each refusal is a status, worded where it is shown */
  const struct {
    const char *arg;
    enum gw_fix_parse_status status;
  } bad[] = {{"", GW_FIX_PARSE_NO_NAME},
             {"=3", GW_FIX_PARSE_NO_NAME},
             {"nope", GW_FIX_PARSE_UNKNOWN},
             {"workers=0", GW_FIX_PARSE_BAD_COUNT},
             {"workers=-2", GW_FIX_PARSE_BAD_COUNT},
             {"workers=3x", GW_FIX_PARSE_BAD_COUNT},
             {"pin_memory=1", GW_FIX_PARSE_TAKES_NO_VALUE},
             {"tf32=", GW_FIX_PARSE_TAKES_NO_VALUE},
             {"batch_size=x1", GW_FIX_PARSE_BAD_BATCH},
             {"batch_size=x", GW_FIX_PARSE_BAD_BATCH},
             {"prefetch_factor=0", GW_FIX_PARSE_BAD_COUNT}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(gw_fix_parse(bad[i].arg, &p), bad[i].status);
    err[0] = 0;
    gw_fix_parse_status_text(bad[i].status, bad[i].arg, err, sizeof err);
    assert_true(err[0] != 0);
  }
  gw_fix_parse_status_text(GW_FIX_PARSE_TAKES_NO_VALUE, "pin_memory=1", err, sizeof err);
  assert_string_equal(err, "the fix pin_memory takes no value, got 'pin_memory=1'");
  gw_fix_parse_status_text(GW_FIX_PARSE_UNKNOWN, "nope=2", err, sizeof err);
  assert_non_null(strstr(err, "unknown fix 'nope' (there are workers,"));
}

static void workers_come_from_the_cores_and_the_saturated_workers(void **state) {
  (void)state;
  struct gw_diagnosis *dx = input_bound();
  struct gw_fix_plan p = planned(dx, "workers");
  /* 8 physical cores - 1 = 7 is more than twice the 2 saturated workers */
  assert_string_equal(p.text, "workers=7");
  assert_non_null(strstr(p.derivation, "8 cores - 1"));
  /* the finding's share and bound */
  assert_true(fabs(p.addressed_share - 0.5) < 1e-9);
  assert_true(fabs(p.point - 2.0) < 1e-9 && fabs(p.bound - 2.0) < 1e-9);
  assert_int_equal(p.reason, GW_FIXR_INPUT_FINDING);
  /* 3 cores: 2, but the 2 saturated workers measured ask for twice as many */
  dx->host.physical_cores = 3;
  p = planned(dx, "workers");
  assert_string_equal(p.text, "workers=4");
  assert_non_null(strstr(p.derivation, "saturated"));
  /* a given value is kept */
  p = planned(dx, "workers=12");
  assert_string_equal(p.text, "workers=12");
  free_dx(dx);
}

static void a_fix_without_its_cause_predicts_no_change(void **state) {
  (void)state;
  struct gw_diagnosis *dx = input_bound();
  struct gw_fix_plan p = planned(dx, "pin_memory"); /* no attribution: no measured copies */
  char why[256];
  assert_true(p.addressed_share == 0 && p.point == 1.0 && p.bound == 1.0);
  gw_fix_reason_text(&p, 0, why, sizeof why);
  assert_non_null(strstr(why, "no change (<2%)"));
  p = planned(dx, "batch_size"); /* no small_batch finding */
  assert_true(p.point == 1.0);
  assert_true(p.bound == 2.0); /* samples/s at most x2 whatever was found */
  assert_string_equal(p.text, "batch_size=x2");
  /* an absolute batch size without the recorded one: no bound to hold it to */
  p = planned(dx, "batch_size=256");
  assert_true(p.point == 1.0 && isnan(p.bound));
  assert_int_equal(p.reason, GW_FIXR_BATCH_UNKNOWN);
  /* no diagnosis: nothing predicted */
  p = planned(NULL, "workers=3");
  assert_true(isnan(p.point) && isnan(p.bound));
  free_dx(dx);
}

static void small_batch_share_predicts_the_batch_fix(void **state) {
  (void)state;
  struct gw_diagnosis *dx = input_bound_small_batch();
  struct gw_fix_plan p = planned(dx, "batch_size=x2");
  char why[256];
  assert_true(fabs(p.point - 1 / 0.7) < 1e-9 && p.bound == 2.0);
  gw_fix_reason_text(&p, 0, why, sizeof why);
  assert_non_null(strstr(why, "30% of the active time; samples/s at most x2"));
  /* a share past the bound is capped by it */
  dx->findings[1].share_of_active = 0.8;
  gw_fix_predict(dx, &p);
  assert_true(p.point == 2.0);
  free_dx(dx);
}

static void applicable_fixes_follow_the_findings_and_the_memory(void **state) {
  (void)state;
  struct gw_diagnosis *dx = input_bound_small_batch();
  struct gw_fix_plan p[8];
  int n = gw_fix_applicable(dx, p, 8);
  /* workers for the input pipeline, batch_size for the small batch; pin_memory and
   * non_blocking have no measured copies, tf32 no FLOP split */
  assert_int_equal(n, 2);
  assert_string_equal(p[0].text, "workers=7");
  assert_string_equal(p[1].text, "batch_size=x2");
  /* no room in memory for twice the activations */
  dx->profiles[0].mem_used_frac = 0.8;
  assert_int_equal(gw_fix_applicable(dx, p, 8), 1);
  /* as many workers as the cores would give already: nothing to try */
  dx->host.workers_med = 7;
  dx->host.workers_saturated_frac = 0;
  assert_int_equal(gw_fix_applicable(dx, p, 8), 0);
  /* a healthy run: nothing */
  dx->nfindings = 0;
  assert_int_equal(gw_fix_applicable(dx, p, 8), 0);
  free_dx(dx);
}

/* Each fix of the catalogue says what it changes (render/fix_catalog_text.c,
 * keyed by name): English for JSON, and a name without a row gives "". */
static void every_fix_says_what_it_changes(void **state) {
  (void)state;
  for (int i = 0; i < gw_nfix_kinds; i++) {
    const char *changes = gw_fix_kind_changes(gw_fix_kinds[i].name, 0);
    if (!changes[0])
      fail_msg("fix %s: no words for what it changes", gw_fix_kinds[i].name);
    /* the numerics are what the user weighs against the gain */
    if (!strstr(changes, "numerics") && !strstr(changes, "results") && !strstr(changes, "optimisation"))
      fail_msg("fix %s: does not say what happens to the numerics: %s", gw_fix_kinds[i].name, changes);
  }
  assert_string_equal(gw_fix_kind_changes("pin_memory", 0),
                      "DataLoader batches in page-locked memory; numerics unchanged");
  assert_string_equal(gw_fix_kind_changes("tf32", 0),
                      "float32 matmuls and convolutions on tensor cores in TF32: 10-bit mantissa inputs, float32 "
                      "accumulation (changes numerics)");
  assert_string_equal(gw_fix_kind_changes("no_such_fix", 1), "");
  assert_string_equal(gw_fix_kind_changes(NULL, 0), "");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(names_and_values_are_checked),
    cmocka_unit_test(workers_come_from_the_cores_and_the_saturated_workers),
    cmocka_unit_test(a_fix_without_its_cause_predicts_no_change),
    cmocka_unit_test(small_batch_share_predicts_the_batch_fix),
    cmocka_unit_test(applicable_fixes_follow_the_findings_and_the_memory),
    cmocka_unit_test(every_fix_says_what_it_changes),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
