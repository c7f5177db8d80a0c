/* What each rule declares it reads (struct gw_rule's sees_with), and what a
 * recording holds: the notes that say which class a recording cannot show
 * rest on both. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/rule_signals.h"
#include "analysis/rules.h"
#include "render/label_text.h"
#include "support_test_main.h"

/* Every class of the product declares what it reads, worded by a phrase of
 * its own; only multi_gpu_sync needs none (a job without peers cannot have
 * the class). */
static void every_rule_declares_its_signals(void **state) {
  (void)state;
  for (int r = 0; r < gw_nrules; r++) {
    const struct gw_rule *rule = gw_rules[r];
    if (strcmp(rule->id, "multi_gpu_sync") == 0) {
      assert_int_equal(rule->sees_with, 0);
      continue;
    }
    if (strncmp(rule->id, "test_", 5) == 0)
      continue; /* tests/rule7's classes */
    assert_true(rule->sees_with != 0);
    assert_non_null(rule->sees_with_phrase);
    /* worded: the phrase table knows it (an unknown phrase comes back as itself) */
    assert_string_not_equal(gw_phrase_msgid(rule->sees_with_phrase), rule->sees_with_phrase);
  }
  assert_int_equal(gw_rule_find("schedule_shape")->pattern_repeats, 2);
  assert_int_equal(gw_rule_find("small_batch")->sees_with & GW_SIGNAL_HOST_CPU, 0);
}

/* A recording's signals, added one at a time to one GPU's series. */
static void signals_follow_what_the_recording_holds(void **state) {
  (void)state;
  enum { N = 4 };
  int64_t t[N] = {0, 100000000, 200000000, 300000000};
  double util[N] = {50, 60, NAN, 70}, sm[N] = {NAN, NAN, NAN, NAN}, clock[N] = {NAN, NAN, 1980, NAN};
  double main_cpu[N] = {NAN, NAN, NAN, NAN};
  struct gw_gpu_series g;
  memset(&g, 0, sizeof g);
  g.n = N;
  g.t_ns = t;
  struct gw_value_column util_col = {.n = N, .raw = util}, sm_col = {.n = N, .raw = sm};
  struct gw_value_column clock_col = {.n = N, .raw = clock};
  g.m[GW_M_util_gpu_pct] = &util_col;
  g.m[GW_M_sm_active_pct] = &sm_col; /* a column of unknowns: no SM activity */
  struct gw_recording rec;
  memset(&rec, 0, sizeof rec);
  rec.ngpus = 1;
  rec.gpus = &g;
  rec.host.n = N;
  rec.host.t_ns = t;
  rec.host.main_cpu_pct = main_cpu; /* the process was never sampled */
  assert_int_equal(gw_recording_signals(&rec), GW_SIGNAL_GPU_ACTIVITY);
  sm[1] = 40;
  g.m[GW_M_sm_clock_mhz] = &clock_col;
  main_cpu[3] = 100;
  assert_int_equal(gw_recording_signals(&rec),
                   GW_SIGNAL_GPU_ACTIVITY | GW_SIGNAL_SM_ACTIVITY | GW_SIGNAL_CLOCKS | GW_SIGNAL_HOST_CPU);
  rec.nsteps = 3;
  rec.has_timeline = 1;
  rec.npy_ticks = 1;
  assert_int_equal(gw_recording_signals(&rec), GW_SIGNAL_GPU_ACTIVITY | GW_SIGNAL_SM_ACTIVITY | GW_SIGNAL_CLOCKS |
                                                   GW_SIGNAL_HOST_CPU | GW_SIGNAL_STEPS | GW_SIGNAL_KERNEL_TRACE |
                                                   GW_SIGNAL_STACKS);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_rule_declares_its_signals),
    cmocka_unit_test(signals_follow_what_the_recording_holds),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
