/* compare's building blocks against hand-computed values: the generator,
 * bootstrap intervals, verdicts, per-step times from step marks, step
 * statistics, the knee of a sweep and the differences between run setups. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compare/bootstrap.h"
#include "compare/comparison.h"
#include "compare/run_setup.h"
#include "compare/run_summary.h"
#include "compare/sweep.h"
#include "support_test_main.h"

/* cmocka's assert_float_equal compares in float precision; these values need double. */
#define assert_close(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void splitmix64_reference_outputs(void **state) {
  (void)state;
  struct gw_rng r;
  gw_rng_seed(&r, 0);
  /* the published first outputs of splitmix64 seeded with 0 */
  assert_true(gw_rng_next(&r) == 0xe220a8397b1dcdafULL);
  assert_true(gw_rng_next(&r) == 0x6e789e6aa1b965f4ULL);
  gw_rng_seed(&r, 42);
  size_t hits[3] = {0, 0, 0};
  for (int i = 0; i < 3000; i++) {
    size_t k = gw_rng_below(&r, 3);
    assert_true(k < 3);
    hits[k]++;
  }
  /* each index about a third of the time (binomial sd ~26) */
  for (int k = 0; k < 3; k++)
    assert_in_range(hits[k], 850, 1150);
}

static void median_by_selection(void **state) {
  (void)state;
  double scratch[8];
  double odd[] = {3, 1, 2};
  assert_close((gw_boot_median_scratch(odd, 3, scratch)), 2, 0);
  double even[] = {5, 1, 4, 2};
  assert_close((gw_boot_median_scratch(even, 4, scratch)), 3, 0);
  double dup[] = {7, 7, 1, 7, 7, 1, 1, 9};
  /* sorted 1 1 1 7 7 7 7 9: middle pair 7, 7 */
  assert_close((gw_boot_median_scratch(dup, 8, scratch)), 7, 0);
  double one[] = {4};
  assert_close((gw_boot_median_scratch(one, 1, scratch)), 4, 0);
  assert_true(isnan(gw_boot_median_scratch(one, 0, scratch)));
  /* the input is left alone */
  assert_close(even[0], 5, 0);
}

static void bootstrap_constant_samples_give_exact_ratio(void **state) {
  (void)state;
  double a[] = {2, 2, 2, 2}, b[] = {3, 3, 3};
  struct gw_ratio_ci r;
  assert_int_equal(gw_bootstrap_ratio(a, 4, b, 3, GW_BOOT_MEDIAN, 500, 0.95, 1, &r), 0);
  assert_close(r.point, 1.5, 1e-15);
  assert_close(r.lo, 1.5, 1e-15);
  assert_close(r.hi, 1.5, 1e-15);
}

static void bootstrap_two_point_sample(void **state) {
  (void)state;
  /* A resample of {1, 2} has mean 1 (p 1/4), 1.5 (p 1/2) or 2 (p 1/4), so the
   * ratio of two independent resample means is 0.5 with p 1/16 and 2 with
   * p 1/16: both tails (6.25%) are wider than 2.5%, so the 95% interval is
   * exactly [0.5, 2]. */
  double a[] = {1, 2}, b[] = {1, 2};
  struct gw_ratio_ci r;
  assert_int_equal(gw_bootstrap_ratio(a, 2, b, 2, GW_BOOT_MEAN, GW_BOOT_RESAMPLES, 0.95, GW_BOOT_SEED, &r), 0);
  assert_close(r.point, 1, 1e-15);
  assert_close(r.lo, 0.5, 1e-15);
  assert_close(r.hi, 2, 1e-15);
  /* the same seed gives the same interval */
  struct gw_ratio_ci again;
  assert_int_equal(gw_bootstrap_ratio(a, 2, b, 2, GW_BOOT_MEAN, GW_BOOT_RESAMPLES, 0.95, GW_BOOT_SEED, &again), 0);
  assert_true(again.lo == r.lo && again.hi == r.hi);
}

static void bootstrap_detects_a_shift_and_refuses_empty(void **state) {
  (void)state;
  /* b is a shifted copy of a: every step 10% longer */
  double a[40], b[40];
  for (int i = 0; i < 40; i++) {
    a[i] = 1.0 + 0.01 * (i % 7);
    b[i] = a[i] * 1.1;
  }
  struct gw_ratio_ci r;
  assert_int_equal(gw_bootstrap_ratio(a, 40, b, 40, GW_BOOT_MEDIAN, GW_BOOT_RESAMPLES, 0.95, GW_BOOT_SEED, &r), 0);
  assert_close(r.point, 1.1, 1e-12);
  assert_true(r.lo > 1.0 && r.lo <= 1.1 && r.hi >= 1.1);
  assert_int_equal(gw_bootstrap_ratio(a, 0, b, 40, GW_BOOT_MEAN, 10, 0.95, 1, &r), -1);
  assert_true(isnan(r.point) && isnan(r.lo));
  double zero[] = {0, 0};
  assert_int_equal(gw_bootstrap_ratio(zero, 2, b, 40, GW_BOOT_MEAN, 10, 0.95, 1, &r), -1);
}

static void verdicts(void **state) {
  (void)state;
  struct gw_ratio_ci up = {1.10, 1.05, 1.15}, tiny = {1.01, 1.005, 1.015}, wide = {1.10, 0.95, 1.25},
                     down = {0.90, 0.85, 0.95}, none = {1.10, NAN, NAN};
  assert_int_equal(gw_verdict_of(&up, 1, 0.02), GW_VERDICT_BETTER);
  assert_int_equal(gw_verdict_of(&up, 0, 0.02), GW_VERDICT_WORSE);  /* a longer step time */
  assert_int_equal(gw_verdict_of(&tiny, 1, 0.02), GW_VERDICT_SAME); /* certain but below 2% */
  assert_int_equal(gw_verdict_of(&wide, 1, 0.02), GW_VERDICT_SAME); /* interval holds 1.0 */
  assert_int_equal(gw_verdict_of(&down, 1, 0.02), GW_VERDICT_WORSE);
  assert_int_equal(gw_verdict_of(&down, 0, 0.02), GW_VERDICT_BETTER);
  assert_int_equal(gw_verdict_of(&none, 1, 0.02), GW_VERDICT_UNDECIDED);
  assert_string_equal(gw_verdict_id(GW_VERDICT_SAME), "no_significant_change");
}

static void step_times_run_to_the_next_start(void **state) {
  (void)state;
  /* unsorted marks; the pause between 40 and 50 belongs to the first step */
  int64_t start[] = {100, 0, 50}, end[] = {150, 40, 90};
  double d[3];
  assert_int_equal(gw_step_times_from_marks(start, end, 3, d), 3);
  assert_close(d[0], 50e-9, 1e-21);
  assert_close(d[1], 50e-9, 1e-21);
  assert_close(d[2], 50e-9, 1e-21); /* the last step: its own duration */
  /* a step that overlaps its successor (two ranks marking steps) keeps its own duration */
  int64_t s2[] = {0, 30}, e2[] = {40, 60};
  assert_int_equal(gw_step_times_from_marks(s2, e2, 2, d), 2);
  assert_close(d[0], 40e-9, 1e-21);
  assert_close(d[1], 30e-9, 1e-21);
  /* empty steps are dropped */
  int64_t s3[] = {10}, e3[] = {10};
  assert_int_equal(gw_step_times_from_marks(s3, e3, 1, d), 0);
}

static void step_statistics(void **state) {
  (void)state;
  struct gw_run_summary s;
  memset(&s, 0, sizeof s);
  double steps[] = {1, 2, 3, 4, 10};
  s.step_s = steps;
  s.nsteps = 5;
  s.samples_per_step = 8;
  s.samples_per_s = NAN;
  gw_run_summary_step_stats(&s);
  assert_close(s.step_median_s, 3, 1e-12);
  /* p90 at rank 0.9 * 4 = 3.6: 4 + 0.6 * (10 - 4) */
  assert_close(s.step_p90_s, 7.6, 1e-12);
  assert_close(s.step_p90_over_p50, (7.6 / 3), 1e-12);
  /* mean 4 s: 0.25 steps/s, 8 samples each */
  assert_close(s.steps_per_s, 0.25, 1e-12);
  assert_close(s.samples_per_s, 2, 1e-12);
  assert_int_equal(s.samples_per_s_reported, 0);
  /* sample sd of {1,2,3,4,10} is sqrt(12.5) */
  assert_close(s.step_cv, (sqrt(12.5) / 4), 1e-12);
}

static void knee_of_the_h200_sweep(void **state) {
  (void)state;
  /* samples/s of the batch-size sweep as the scenario README lists them */
  double x[] = {32, 64, 128, 256, 512, 1024, 2048};
  double thr[] = {5689, 11245, 20097, 31327, 42246, 52085, 57611};
  struct gw_sweep_knee k;
  gw_sweep_find_knee(x, thr, 7, GW_SWEEP_MIN_GAIN, &k);
  assert_true(k.computed && k.found);
  assert_int_equal(k.at, 5);
  assert_int_equal(k.next, 6);
  assert_close(k.gain, (57611.0 / 52085 - 1), 1e-12);
  assert_close(k.gain_per_doubling, (57611.0 / 52085 - 1), 1e-12);
  assert_close(k.min_gain_before, (52085.0 / 42246 - 1), 1e-12); /* 1024 over 512: +23.3% */
}

static void knee_with_uneven_steps_and_gaps(void **state) {
  (void)state;
  /* 64 -> 256 is two doublings: (250 / 190) ^ (1/2) - 1 = 14.7% per doubling */
  double x[] = {32, 64, 128, 256}, thr[] = {100, 190, NAN, 250};
  struct gw_sweep_knee k;
  gw_sweep_find_knee(x, thr, 4, 0.20, &k);
  assert_true(k.found);
  assert_int_equal(k.at, 1);
  assert_int_equal(k.next, 3);
  assert_close(k.gain, (250.0 / 190 - 1), 1e-12);
  assert_close(k.gain_per_doubling, (sqrt(250.0 / 190) - 1), 1e-12);
  /* still rising: +50% then +33% per doubling */
  double x2[] = {1, 2, 4}, t2[] = {1, 1.5, 2};
  gw_sweep_find_knee(x2, t2, 3, 0.20, &k);
  assert_true(k.computed && !k.found);
  assert_close(k.last_gain_per_doubling, (2 / 1.5 - 1), 1e-12);
  /* names, not numbers: nothing computed */
  double x3[] = {NAN, 2};
  gw_sweep_find_knee(x3, t2, 2, 0.20, &k);
  assert_false(k.computed);
  /* the knee at the first value */
  double t4[] = {10, 11, 12};
  gw_sweep_find_knee(x2, t4, 3, 0.20, &k);
  assert_true(k.found);
  assert_int_equal(k.at, 0);
  assert_true(isnan(k.min_gain_before));
}

static void setup_of(struct gw_run_setup *f, const char *stem, const char *const *argv, const char *const *env) {
  memset(f, 0, sizeof *f);
  gw_strlcpy(f->stem, stem, sizeof f->stem);
  for (int i = 0; argv[i]; i++)
    gw_run_setup_add_arg(f, argv[i]);
  for (int i = 0; env && env[i]; i += 2)
    gw_run_setup_add_env(f, env[i], env[i + 1]);
  gw_strlcpy(f->host, "node1", sizeof f->host);
}

static const struct gw_change *find_change(const struct gw_change_list *cl, const char *what) {
  for (int i = 0; i < cl->n && i < GW_MAX_CHANGES; i++)
    if (strcmp(cl->items[i].what, what) == 0)
      return &cl->items[i];
  return NULL;
}

static void setup_differences(void **state) {
  (void)state;
  const char *argv_a[] = {"python3",         "-u",     "train.py", "--lr",  "0.1", "--out", "runs/a.db",
                          "--batch-size=32", "--name", "trial_a",  "data/", NULL};
  const char *argv_b[] = {"python3",         "-u",     "train.py", "--lr",  "0.2",   "--out", "runs/b.db",
                          "--batch-size=64", "--name", "trial_b",  "data/", "--amp", NULL};
  const char *env_a[] = {"NCCL_ALGO", "Tree", NULL};
  const char *env_b[] = {"NCCL_ALGO", "Tree", "OMP_NUM_THREADS", "8", NULL};
  struct gw_run_setup a, b;
  setup_of(&a, "trial_a", argv_a, env_a);
  setup_of(&b, "trial_b", argv_b, env_b);
  struct gw_change_list cl;
  gw_run_setup_diff(&a, &b, NULL, 0, &cl);
  assert_true(cl.commands_known);
  assert_int_equal(cl.n, 4);
  const struct gw_change *c = find_change(&cl, "--lr");
  assert_non_null(c);
  assert_string_equal(c->before, "0.1");
  assert_string_equal(c->after, "0.2");
  c = find_change(&cl, "--batch-size");
  assert_non_null(c);
  assert_string_equal(c->before, "32");
  assert_string_equal(c->after, "64");
  c = find_change(&cl, "--amp");
  assert_non_null(c);
  assert_false(c->before_set);
  assert_string_equal(c->after, "(set)");
  c = find_change(&cl, "OMP_NUM_THREADS");
  assert_non_null(c);
  assert_int_equal(c->kind, GW_CHANGE_ENV);
  /* the output path and the run's own name are bookkeeping, not changes */
  assert_null(find_change(&cl, "--out"));
  assert_null(find_change(&cl, "--name"));
  assert_int_equal(cl.nignored, 2);
  char d[256];
  gw_change_describe(find_change(&cl, "--lr"), d, sizeof d);
  assert_string_equal(d, "--lr 0.1 -> 0.2");
  assert_string_equal(gw_run_setup_option(&a, "batch_size"), "32");
  assert_null(gw_run_setup_option(&a, "--missing"));

  /* --ignore-arg drops a difference; a changed script is a program change */
  const char *ignore[] = {"lr"};
  gw_run_setup_diff(&a, &b, ignore, 1, &cl);
  assert_null(find_change(&cl, "--lr"));
  assert_int_equal(cl.n, 3);
  gw_run_setup_free(&b);
  const char *argv_c[] = {"python3",         "-u",     "train2.py", "--lr",  "0.1", "--out", "runs/a.db",
                          "--batch-size=32", "--name", "trial_a",   "data/", NULL};
  setup_of(&b, "trial_c", argv_c, env_a);
  gw_strlcpy(b.driver, "580.1", sizeof b.driver);
  gw_run_setup_diff(&a, &b, NULL, 0, &cl);
  assert_int_equal(cl.n, 1); /* a's driver is unknown: no evidence of a driver change */
  assert_int_equal(cl.items[0].kind, GW_CHANGE_PROGRAM);
  assert_string_equal(cl.items[0].before, "python3 -u train.py");
  assert_string_equal(cl.items[0].after, "python3 -u train2.py");
  gw_run_setup_free(&a);
  gw_run_setup_free(&b);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(splitmix64_reference_outputs),
    cmocka_unit_test(median_by_selection),
    cmocka_unit_test(bootstrap_constant_samples_give_exact_ratio),
    cmocka_unit_test(bootstrap_two_point_sample),
    cmocka_unit_test(bootstrap_detects_a_shift_and_refuses_empty),
    cmocka_unit_test(verdicts),
    cmocka_unit_test(step_times_run_to_the_next_start),
    cmocka_unit_test(step_statistics),
    cmocka_unit_test(knee_of_the_h200_sweep),
    cmocka_unit_test(knee_with_uneven_steps_and_gaps),
    cmocka_unit_test(setup_differences),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
