/* Where a loop's warm-up ends (analysis/steady_steps.c, MSER-5). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analysis/steady_steps.h"
#include "support_test_main.h"

/* A steady 25 ms step with +-1 ms of jitter that repeats every 7 steps. */
static double jittered(size_t i) {
  return 0.025 + 0.001 * (double)((int)(i % 7) - 3) / 3.0;
}

static void a_steady_loop_keeps_every_step(void **state) {
  (void)state;
  double s[60];
  for (size_t i = 0; i < 60; i++)
    s[i] = jittered(i);
  struct gw_steady st;
  gw_steady_find(s, 60, &st);
  /* MSER may cut a batch or two of noise by chance, never the loop */
  assert_int_equal(st.state, GW_STEADY_FOUND);
  assert_true(st.first <= 2 * GW_STEADY_BATCH_STEPS);
  assert_int_equal(st.nsteady, 60 - st.first);
  assert_true(st.warmup_s < 0.3);
}

/* DataLoader workers starting cold: the loop's 2nd and 3rd steps take 0.7 s
 * (the first is left out before), then 25 ms steps. Their batch is cut. */
static void slow_first_steps_are_warm_up(void **state) {
  (void)state;
  double s[80];
  for (size_t i = 0; i < 80; i++)
    s[i] = i < 2 ? 0.7 : jittered(i);
  struct gw_steady st;
  gw_steady_find(s, 80, &st);
  assert_int_equal(st.state, GW_STEADY_FOUND);
  assert_int_equal(st.first, 5);
  assert_int_equal(st.nsteady, 75);
  assert_true(st.warmup_s > 1.4 && st.warmup_s < 1.5);
  assert_true(st.steady_s > 75 * 0.024 && st.steady_s < 75 * 0.026);
}

/* An input-bound loop with two workers: a step whose batch was ready (5 ms)
 * then one that waits (95 ms), in turn; bursty but steady from the start. */
static void a_bursty_loop_is_steady(void **state) {
  (void)state;
  double s[50];
  for (size_t i = 0; i < 50; i++)
    s[i] = i % 2 ? 0.095 : 0.005;
  struct gw_steady st;
  gw_steady_find(s, 50, &st);
  assert_int_equal(st.state, GW_STEADY_FOUND);
  assert_true(st.first <= 5);
}

/* Step times that grow all along never settle: not steady yet. */
static void a_drifting_loop_is_not_steady(void **state) {
  (void)state;
  double s[100];
  for (size_t i = 0; i < 100; i++)
    s[i] = 0.010 + 0.001 * (double)i;
  struct gw_steady st;
  gw_steady_find(s, 100, &st);
  assert_int_equal(st.state, GW_STEADY_NOT_YET);
  assert_int_equal(st.nsteady, 0);
}

/* A short steady loop with noisy step times (5 ms, +-10%, pseudo-random):
 * plain MSER would cut it at whichever batches happen to vary least, often
 * past half of them; the tolerance keeps it whole (as fixed-batch's replay
 * runs of 40 steps were cut on a loaded machine). */
static void a_short_noisy_loop_is_steady(void **state) {
  (void)state;
  unsigned seed = 12345;
  for (int trial = 0; trial < 200; trial++) {
    double s[39];
    for (size_t i = 0; i < 39; i++) {
      seed = seed * 1103515245u + 12345u;
      s[i] = 0.005 * (0.9 + 0.2 * (double)((seed >> 16) & 0x7fff) / 32767.0);
    }
    struct gw_steady st;
    gw_steady_find(s, 39, &st);
    assert_int_equal(st.state, GW_STEADY_FOUND);
    assert_true(st.first <= GW_STEADY_BATCH_STEPS);
  }
}

static void too_few_steps_tell_nothing(void **state) {
  (void)state;
  double s[GW_STEADY_MIN_STEPS - 1];
  for (size_t i = 0; i < GW_STEADY_MIN_STEPS - 1; i++)
    s[i] = 0.02;
  struct gw_steady st;
  gw_steady_find(s, GW_STEADY_MIN_STEPS - 1, &st);
  assert_int_equal(st.state, GW_STEADY_TOO_FEW);
  gw_steady_find(s, 0, &st);
  assert_int_equal(st.state, GW_STEADY_TOO_FEW);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_steady_loop_keeps_every_step), cmocka_unit_test(slow_first_steps_are_warm_up),
    cmocka_unit_test(a_bursty_loop_is_steady),        cmocka_unit_test(a_drifting_loop_is_not_steady),
    cmocka_unit_test(a_short_noisy_loop_is_steady),   cmocka_unit_test(too_few_steps_tell_nothing),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
