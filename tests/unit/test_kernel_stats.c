#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/kernel_stats.h"
#include "support_test_main.h"

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

static void buckets_are_powers_of_two(void **state) {
  (void)state;
  assert_int_equal(gw_kstats_bucket(0), 0);
  assert_int_equal(gw_kstats_bucket(1999), 0);
  assert_int_equal(gw_kstats_bucket(2000), 1);
  assert_int_equal(gw_kstats_bucket(3999), 1);
  assert_int_equal(gw_kstats_bucket(4000), 2);
  assert_int_equal(gw_kstats_bucket(16383999), 13);
  assert_int_equal(gw_kstats_bucket(16384000), 14);
  assert_int_equal(gw_kstats_bucket(INT64_C(3600000000000)), GW_KSTATS_NBUCKETS - 1);
  assert_float_equal(gw_kstats_bucket_lo_us(0), 0, 0);
  assert_float_equal(gw_kstats_bucket_lo_us(1), 2, 0);
  assert_float_equal(gw_kstats_bucket_lo_us(14), 16384, 0);
}

/* A step loop of plen kernels (names from a fixed pseudo-random draw of
 * nnames), repeated to n kernels; one name in flip_every replaced. */
static int32_t *loop_seq(size_t n, size_t plen, uint32_t nnames, size_t flip_every, uint32_t seed) {
  int32_t *pat = calloc(plen, sizeof *pat), *x = calloc(n, sizeof *x);
  for (size_t i = 0; i < plen; i++)
    pat[i] = (int32_t)(lcg(&seed) % nnames);
  for (size_t i = 0; i < n; i++)
    x[i] = pat[i % plen];
  for (size_t i = flip_every ? flip_every / 2 : n; i < n; i += flip_every)
    x[i] = (int32_t)nnames; /* a name the loop never launches */
  free(pat);
  return x;
}

static void finds_the_step_loop_not_a_multiple(void **state) {
  (void)state;
  int32_t *x = loop_seq(37 * 10, 37, 12, 0, 1);
  double share = 0;
  assert_int_equal(gw_kstats_find_period(x, 37 * 10, GW_KSTATS_PERIOD_MAX, 0.9, &share), 37);
  assert_float_equal(share, 1.0, 1e-12);
  free(x);
  /* a few odd kernels (one in 47) still leave the loop visible */
  x = loop_seq(120 * 12, 120, 16, 47, 2);
  assert_int_equal(gw_kstats_find_period(x, 120 * 12, GW_KSTATS_PERIOD_MAX, 0.9, &share), 120);
  assert_true(share >= 0.9 && share < 1.0);
  free(x);
}

static void no_period_in_random_names(void **state) {
  (void)state;
  enum { N = 3000 };
  int32_t x[N];
  uint32_t s = 5;
  for (int i = 0; i < N; i++)
    x[i] = (int32_t)(lcg(&s) % 40);
  double share = -1;
  assert_int_equal(gw_kstats_find_period(x, N, GW_KSTATS_PERIOD_MAX, 0.9, &share), 0);
  assert_float_equal(share, 0, 0);
  /* one name over and over is no step loop */
  for (int i = 0; i < N; i++)
    x[i] = 7;
  assert_int_equal(gw_kstats_find_period(x, N, GW_KSTATS_PERIOD_MAX, 0.9, NULL), 0);
}

static void needs_three_periods(void **state) {
  (void)state;
  int32_t *x = loop_seq(250, 100, 30, 0, 3); /* 2.5 periods */
  assert_int_equal(gw_kstats_find_period(x, 250, GW_KSTATS_PERIOD_MAX, 0.9, NULL), 0);
  assert_int_equal(gw_kstats_find_period(x, 250, 10, 0.9, NULL), 0); /* and none below the bound */
  free(x);
  x = loop_seq(300, 100, 30, 0, 3);
  assert_int_equal(gw_kstats_find_period(x, 300, GW_KSTATS_PERIOD_MAX, 0.9, NULL), 100);
  free(x);
}

/* A 450k-kernel trace (the size of a long full trace) is searched up to
 * 20000 on sampled positions: the loop is still found, in well under a
 * second (even in a sanitizer build). */
static void long_trace_is_fast(void **state) {
  (void)state;
  size_t n = 450000;
  int32_t *x = loop_seq(n, 3646, 400, 997, 4);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  double share = 0;
  size_t p = gw_kstats_find_period(x, n, GW_KSTATS_PERIOD_MAX, 0.9, &share);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  print_message("450k kernels: period %zu (share %.3f) in %.3f s\n", p, share, s);
  assert_int_equal(p, 3646);
  assert_true(s < 1.0);
  free(x);
}

static void grids_that_vary(void **state) {
  (void)state;
  /* 4 steps of 5 kernels; name 2 (position 2) changes its grid every step;
   * position 4 holds another name in step 1 (not a pair there) */
  int32_t names[20];
  int32_t grid[20][3];
  for (int i = 0; i < 20; i++) {
    names[i] = i % 5;
    grid[i][0] = 64;
    grid[i][1] = grid[i][2] = 1;
    if (i % 5 == 2)
      grid[i][0] = 32 * (1 + i / 5);
  }
  names[9] = 5;
  size_t bounds[] = {0, 5, 10, 15, 20};
  int64_t pairs = 0, varying = 0, pairs_by[6] = {0}, varying_by[6] = {0};
  gw_kstats_shape_variation(names, (const int32_t(*)[3])grid, bounds, 4, &pairs, &varying, pairs_by, varying_by, 6);
  assert_int_equal(pairs, 15 - 2);
  assert_int_equal(varying, 3);
  assert_int_equal(pairs_by[2], 3);
  assert_int_equal(varying_by[2], 3);
  assert_int_equal(varying_by[0], 0);
  assert_int_equal(pairs_by[4], 1);
}

/* Kernels of a loop of plen names, one every 10 us lasting 3 us; grid of
 * name 1 grows by step. */
struct synth {
  size_t n;
  int64_t *start, *end;
  int32_t *name;
  int32_t (*grid)[3];
};

static void synth_loop(struct synth *k, size_t n, size_t plen) {
  k->n = n;
  k->start = calloc(n, sizeof *k->start);
  k->end = calloc(n, sizeof *k->end);
  k->name = calloc(n, sizeof *k->name);
  k->grid = calloc(n, sizeof *k->grid);
  for (size_t i = 0; i < n; i++) {
    k->start[i] = 1000000000 + (int64_t)i * 10000;
    k->end[i] = k->start[i] + 3000;
    k->name[i] = (int32_t)(i % plen);
    k->grid[i][0] = k->name[i] == 1 ? (int32_t)(1 + i / plen) : 8;
    k->grid[i][1] = k->grid[i][2] = 1;
  }
}

static void synth_free(struct synth *k) {
  free(k->start);
  free(k->end);
  free(k->name);
  free(k->grid);
}

static void stats_from_the_sequence(void **state) {
  (void)state;
  struct synth s;
  synth_loop(&s, 200, 20);
  const char *texts[20] = {"void a<1>(int)", "void ns::grow<float>(float*)"};
  for (int i = 2; i < 20; i++)
    texts[i] = "other";
  struct gw_kernel_seq seq = {s.n, s.start, s.end, s.name, (const int32_t(*)[3])s.grid, 20, texts};
  struct gw_kernel_stats st;
  gw_kernel_stats_compute(&seq, NULL, 0, NULL, 0, &st);
  assert_int_equal(st.nkernels, 200);
  assert_false(st.sampled);
  assert_float_equal(st.traced_s, (199 * 10000 + 3000) / 1e9, 1e-12);
  assert_float_equal(st.dur_median_us, 3.0, 1e-9);
  assert_int_equal(st.hist[1], 200); /* 3 us: the 2-4 us bucket */
  assert_int_equal(st.step_source, GW_KSTEPS_SEQUENCE);
  assert_int_equal(st.period_kernels, 20);
  assert_int_equal(st.nsteps, 10);
  assert_float_equal(st.kernels_per_step_median, 20, 0);
  assert_float_equal(st.step_median_s, 200e-6, 1e-12);
  assert_int_equal(st.shape_pairs, 9 * 20);
  assert_int_equal(st.shape_varying, 9);
  assert_int_equal(st.nvarying, 1);
  assert_string_equal(st.top[0].name, "ns::grow");
  assert_int_equal(st.top[0].varying, 9);
  /* no per-parameter kernel among the names */
  assert_float_equal(st.per_param_share, 0, 0);
  assert_float_equal(st.compute_kernel_s, 200 * 3000 / 1e9, 1e-12);
  synth_free(&s);
}

/* The optimizer's foreach kernels (multi_tensor_apply) are per-parameter
 * work; NCCL kernels are left out of the kernel time; without names the
 * share is unknown. */
/* A doubled batch doubles a kernel's blocks: under half a wave they land on
 * SMs that sat empty (same time), a partial wave past half needs a second
 * round, whole waves double, an unknown configuration doubles. */
static void doubling_time_by_waves(void **state) {
  (void)state;
  /* waves of the kernel now, and its time doubled (100 now) */
  static const struct {
    double waves, doubled;
  } cases[] = {
      {0.25, 100}, {0.5, 100}, {0.6, 200}, {1.0, 200}, {1.2, 150} /* 2 rounds now, 3 then */,
      {8.0, 200},  {0, 200},   {NAN, 200},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_float_equal(gw_kstats_doubling_time(100, cases[i].waves), cases[i].doubled, 1e-9);
}

static void per_parameter_share(void **state) {
  (void)state;
  struct synth s;
  synth_loop(&s, 200, 20);
  for (size_t i = 0; i < s.n; i++) /* name 3 lasts 9 us, name 4 (NCCL) 30 us */
    s.end[i] = s.start[i] + (s.name[i] == 3 ? 9000 : s.name[i] == 4 ? 30000 : 3000);
  const char *texts[20] = {"a", "b", "c",
                           "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<4>,"
                           " FusedAdamMathFunctor<float, 4>>(...)",
                           "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
  for (int i = 5; i < 20; i++)
    texts[i] = "void at::native::vectorized_elementwise_kernel<4>(...)";
  struct gw_kernel_seq seq = {s.n, s.start, s.end, s.name, (const int32_t(*)[3])s.grid, 20, texts};
  struct gw_kernel_stats st;
  gw_kernel_stats_compute(&seq, NULL, 0, NULL, 0, &st);
  /* per step: 18 kernels of 3 us and one of 9 us, NCCL not counted */
  assert_float_equal(st.per_param_share, 9.0 / (18 * 3 + 9), 1e-12);
  assert_float_equal(st.compute_kernel_s, 10 * (18 * 3 + 9) * 1e-6, 1e-12);
  assert_true(gw_kstats_per_parameter(texts[3]));
  assert_false(gw_kstats_per_parameter(texts[5]));
  assert_true(gw_kstats_nccl_name(texts[4]));
  seq.name_text = NULL;
  gw_kernel_stats_compute(&seq, NULL, 0, NULL, 0, &st);
  assert_true(isnan(st.per_param_share));
  synth_free(&s);
}

static void stats_from_the_step_table_and_windows(void **state) {
  (void)state;
  struct synth s;
  synth_loop(&s, 200, 20);
  struct gw_kernel_seq seq = {s.n, s.start, s.end, s.name, (const int32_t(*)[3])s.grid, 20, NULL};
  /* the program marked 4 steps of 50 kernels (500 us each), from kernel 0 on */
  struct gw_time_range steps[4];
  for (int i = 0; i < 4; i++)
    steps[i] = (struct gw_time_range){1000000000 + i * 500000, 1000000000 + (i + 1) * 500000};
  struct gw_kernel_stats st;
  gw_kernel_stats_compute(&seq, NULL, 0, steps, 4, &st);
  assert_int_equal(st.step_source, GW_KSTEPS_TABLE);
  assert_int_equal(st.nsteps, 4);
  assert_float_equal(st.kernels_per_step_mean, 50, 0);
  assert_float_equal(st.step_median_s, 500e-6, 1e-12);

  /* sampled: two windows of 1 ms, 100 kernels each; only their time counts */
  struct gw_time_range win[2] = {{1000000000, 1001000000}, {1001000000, 1002000000}};
  gw_kernel_stats_compute(&seq, win, 2, NULL, 0, &st);
  assert_true(st.sampled);
  assert_int_equal(st.nwindows, 2);
  assert_float_equal(st.traced_s, 2e-3, 1e-12);
  assert_float_equal(st.launches_per_s, 100000, 1e-6);
  assert_int_equal(st.step_source, GW_KSTEPS_SEQUENCE);
  assert_int_equal(st.period_kernels, 20);
  assert_int_equal(st.nsteps, 10); /* 5 per window */
  synth_free(&s);
}

static void short_names(void **state) {
  (void)state;
  /* the kernel's name, the room for the short one, the short name */
  static const struct {
    const char *name;
    size_t cap;
    const char *short_name;
  } cases[] = {
      {"void at::native::elementwise_kernel<128, 2, F>(int, F)", 96, "at::native::elementwise_kernel"},
      {"void at::native::(anonymous namespace)::f<float>(float)", 96, "at::native::(anonymous namespace)::f"},
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 96,
       "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
      {"(odd)", 96, "(odd)"},
      {"sm90_xmma_gemm", 5, "sm90"},
  };
  char b[96];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gw_kstats_short_name(cases[i].name, b, cases[i].cap);
    assert_string_equal(b, cases[i].short_name);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(buckets_are_powers_of_two),
    cmocka_unit_test(finds_the_step_loop_not_a_multiple),
    cmocka_unit_test(no_period_in_random_names),
    cmocka_unit_test(needs_three_periods),
    cmocka_unit_test(long_trace_is_fast),
    cmocka_unit_test(grids_that_vary),
    cmocka_unit_test(stats_from_the_sequence),
    cmocka_unit_test(per_parameter_share),
    cmocka_unit_test(doubling_time_by_waves),
    cmocka_unit_test(stats_from_the_step_table_and_windows),
    cmocka_unit_test(short_names),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
