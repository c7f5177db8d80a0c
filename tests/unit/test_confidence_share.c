/* A finding's confidence falls with the share of the lost time it leaves
 * unexplained (analysis/confidence_share.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/compile_shapes.h"
#include "analysis/confidence_calibration.h"
#include "analysis/confidence_share.h"
#include "analysis/diagnosis.h"
#include "analysis/idle_attribution.h"
#include "support_test_main.h"

static void factor_shape(void **state) {
  (void)state;
  /* the finding's share of the lost time, the largest unexplained row's, the factor */
  static const struct {
    double share, unexplained, factor;
  } cases[] = {
      /* half the lost time or more: the rule's score stands */
      {0.5, 0, 1},
      {0.9, 0, 1},
      /* below half, in proportion */
      {0.25, 0, 0.5},
      {0.05, 0, 0.1},
      /* what the largest unexplained row leaves */
      {1, 0.4, 0.6},
      {0.25, 0.5, 0.25},
      /* bad input never crashes and never raises the score */
      {NAN, 0.2, 1},
      {-1, 0, 0},
      {0.5, 3, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_float_equal(gw_confidence_share_factor(cases[i].share, cases[i].unexplained), cases[i].factor, 1e-12);
}

static struct gw_finding *add(struct gw_diagnosis *dx, const char *id, double share, double raw) {
  struct gw_finding *f = &dx->findings[dx->nfindings++];
  memset(f, 0, sizeof *f);
  f->class_id = id;
  f->share_of_lost = share;
  f->confidence_raw = raw;
  f->confidence = gw_confidence_calibrated(raw);
  return f;
}

static void unexplained_row(void **state) {
  (void)state;
  static struct gw_diagnosis dx;
  memset(&dx, 0, sizeof dx);
  dx.lost_ns = 10e9;
  dx.total.row_ns[GW_ROW_IDLE_OTHER] = 4e9;
  dx.other_claimed_ns = 1e9;
  /* idle: other less what findings claim of it */
  assert_float_equal(gw_unexplained_row_share(&dx), 0.3, 1e-9);
  /* never more than the findings leave */
  add(&dx, "input_pipeline", 0.8, 0.9);
  assert_float_equal(gw_unexplained_row_share(&dx), 0.2, 1e-9);
  dx.lost_ns = 0;
  assert_float_equal(gw_unexplained_row_share(&dx), 0, 1e-12);
}

static void scaled_and_recalibrated(void **state) {
  (void)state;
  static struct gw_diagnosis dx;
  memset(&dx, 0, sizeof dx);
  dx.lost_ns = 10e9;
  struct gw_finding *big = add(&dx, "input_pipeline", 0.6, 0.9);
  struct gw_finding *small = add(&dx, "launch_overhead", 0.1, 0.9);
  struct gw_finding *fault = add(&dx, "hardware_env", 0, 0.9);
  fault->fix_first = 1;
  gw_confidence_by_share(&dx);
  assert_float_equal(big->confidence_raw, 0.9, 1e-12);
  assert_float_equal(small->confidence_raw, 0.9 * 0.2, 1e-12);
  assert_float_equal(fault->confidence_raw, 0.9, 1e-12);
  assert_float_equal(small->confidence, gw_confidence_calibrated(0.18), 1e-12);
  assert_true(small->confidence < big->confidence);
  /* nothing lost: shares say nothing, scores stand */
  dx.lost_ns = 0;
  small->confidence_raw = 0.9;
  gw_confidence_by_share(&dx);
  assert_float_equal(small->confidence_raw, 0.9, 1e-12);
}

static void measured_share_holds_the_rule(void **state) {
  (void)state;
  static struct gw_diagnosis dx;
  static struct gw_idle_attribution attr;
  memset(&dx, 0, sizeof dx);
  memset(&attr, 0, sizeof attr);
  dx.lost_ns = 10e9;
  dx.ngpus = 1;
  dx.attr = &attr;
  dx.measured = 1;
  attr.rows[GW_PYACT_DATA_WAIT].seconds = 2.0;
  attr.rows[GW_PYACT_H2D].seconds = 0.4;
  attr.rows[GW_PYACT_EVAL].seconds = 5.0;
  /* the rule claims 49%, the samples saw the loop wait for data 24% of the lost time */
  struct gw_finding *input = add(&dx, "input_pipeline", 0.49, 0.9);
  struct gw_finding *eval = add(&dx, "schedule_shape", 0.51, 0.9);
  /* small_batch: no sampled activity names it, its own share counts */
  struct gw_finding *small = add(&dx, "small_batch", 0.5, 0.8);
  gw_confidence_by_share(&dx);
  assert_float_equal(input->confidence_raw, 0.9 * 0.24 / 0.5, 1e-9);
  assert_float_equal(eval->confidence_raw, 0.9, 1e-12);
  assert_float_equal(small->confidence_raw, 0.8, 1e-12);
}

/* The H100 recording whose eval pass has its own slow loader: its (older)
 * hook timed the eval pass's batches as the steps' data wait, so the rules
 * charge 70% of the active time to the input pipeline, while the samples saw
 * the thread evaluating in most of it and waiting for training batches in
 * about a third of the loss (23% of the samples; they take their ticks' idle
 * time first, idle_attribution.c). The finding keeps the samples' share (the
 * hook's waits cannot claim the time sampled as evaluating:
 * measured_verdict.c) and prints below the verdict's. */
static void eval_own_loader(void **state) {
  (void)state;
  const char *fx = getenv("GW_FIXTURES");
  char path[1024];
  snprintf(path, sizeof path, "%s/weak_spots_h100/ws_eval_own_loader.db", fx ? fx : "tests/fixtures");
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  if (gw_diagnose_file(path, &dx, &err) != GW_OK)
    skip(); /* the fixture is unpacked at configure */
  assert_string_equal(dx->verdict, "schedule_shape");
  const struct gw_finding *input = NULL;
  for (int i = 0; i < dx->nfindings; i++)
    if (strcmp(dx->findings[i].class_id, "input_pipeline") == 0)
      input = &dx->findings[i];
  assert_non_null(input);
  assert_true(input->share_of_lost > 0.2 && input->share_of_lost < 0.45);
  assert_true(input->share_of_active < 0.5);
  assert_true(input->confidence < dx->findings[0].confidence);
  gw_diagnosis_free(dx);
}

/* Launch overhead where most steps met a new input shape: the launching
 * thread's time may be the new shapes' own host work, and the claim keeps the
 * steps that repeated a shape; steps without shapes leave it alone. */
static void launch_with_new_shapes(void **state) {
  (void)state;
  static struct gw_diagnosis dx = {.lost_ns = 10e9};
  /* 90 of the 100 steps met a shape not seen before */
  dx.compile_shapes = (struct gw_compile_shapes){.shape_known = 1, .nsteps = 100, .first_visits = 90};
  struct gw_finding *launch = add(&dx, "launch_overhead", 0.9, 0.9);
  struct gw_finding *input = add(&dx, "input_pipeline", 0.6, 0.9);
  assert_float_equal(gw_repeated_shape_share(&dx.compile_shapes), 0.1, 1e-12);
  gw_confidence_by_share(&dx);
  assert_float_equal(launch->confidence_raw, 0.9 * 0.1, 1e-12);
  assert_float_equal(input->confidence_raw, 0.9, 1e-12);
  assert_true(launch->confidence < input->confidence);
  /* one shape throughout (the run's first step is warm-up, not a first visit) */
  dx.compile_shapes.first_visits = 0;
  launch->confidence_raw = 0.9;
  gw_confidence_by_share(&dx);
  assert_float_equal(launch->confidence_raw, 0.9, 1e-12);
  /* no shapes recorded */
  memset(&dx.compile_shapes, 0, sizeof dx.compile_shapes);
  assert_float_equal(gw_repeated_shape_share(&dx.compile_shapes), 1, 1e-12);
}

/* Launch overhead where the loop finished one step in 11.6 s of GPU work (a
 * ResNet searching cuDNN's algorithms for a new image size each step, on an
 * H100): steps of 5.8 s would need hundreds of thousands of launches each, so
 * the claim falls in proportion above a second; a kernel trace, which counts
 * the launches, and steps of milliseconds leave it alone. */
static void launch_with_steps_too_long(void **state) {
  (void)state;
  static struct gw_diagnosis dx = {.lost_ns = 10e9, .ngpus = 1};
  dx.total.active_start_ns = 100000000000;
  dx.total.active_end_ns = 111600000000;
  dx.compile_shapes = (struct gw_compile_shapes){.shape_known = 1, .nsteps = 1, .step_total_s = 0.019};
  assert_float_equal(gw_launch_step_factor(&dx), 1 / 5.8, 1e-9);
  struct gw_finding *launch = add(&dx, "launch_overhead", 0.9, 0.9);
  gw_confidence_by_share(&dx);
  assert_float_equal(launch->confidence_raw, 0.9 / 5.8, 1e-9);
  /* 10,000 steps of about a millisecond in the same span */
  dx.compile_shapes.nsteps = 10000;
  dx.compile_shapes.step_total_s = 11.5;
  assert_float_equal(gw_launch_step_factor(&dx), 1, 1e-12);
  /* traced: the launches were counted */
  dx.compile_shapes.nsteps = 1;
  dx.total.from_timeline = 1;
  assert_float_equal(gw_launch_step_factor(&dx), 1, 1e-12);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(factor_shape),
    cmocka_unit_test(unexplained_row),
    cmocka_unit_test(scaled_and_recalibrated),
    cmocka_unit_test(measured_share_holds_the_rule),
    cmocka_unit_test(eval_own_loader),
    cmocka_unit_test(launch_with_new_shapes),
    cmocka_unit_test(launch_with_steps_too_long),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
