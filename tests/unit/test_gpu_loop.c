/* The training loop seen from the GPU (lib/analysis/gpu_loop.c): which
 * process's steps speak for a GPU, its DataLoader waits as intervals, and
 * its steady span after the warm-up step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/gpu_loop.h"
#include "analysis/timeline.h"
#include "fixture_timeline.h"
#include "support_test_main.h"

#define MS 1000000LL

/* One GPU ticking every 100 ms for 3 s, and steps of one process: the first
 * 1 s long (warm-up), then 100 ms steps whose first 40 ms wait for data. */
struct fixture {
  struct gw_recording rec;
  struct gw_gpu_series gpu;
  int64_t t_ns[30];
  struct gw_step_row steps[21];
};

static void build(struct fixture *f, int64_t wait_ns) {
  *f = (struct fixture){0};
  for (int i = 0; i < 30; i++)
    f->t_ns[i] = i * 100 * MS;
  f->gpu.n = 30;
  f->gpu.t_ns = f->t_ns;
  f->steps[0] = (struct gw_step_row){.start_ns = 0,
                                     .end_ns = 1000 * MS,
                                     .step = 1,
                                     .pid = 42,
                                     .rank = -1,
                                     .data_wait_ns = 2 * MS,
                                     .batch_size = 8,
                                     .samples = 8};
  for (int i = 1; i < 21; i++)
    f->steps[i] = (struct gw_step_row){.start_ns = (900 + 100 * i) * MS,
                                       .end_ns = (1000 + 100 * i) * MS,
                                       .step = i + 1,
                                       .pid = 42,
                                       .rank = -1,
                                       .data_wait_ns = wait_ns,
                                       .batch_size = 8,
                                       .samples = 8};
  f->rec.ngpus = 1;
  f->rec.gpus = &f->gpu;
  f->rec.nsteps = 21;
  f->rec.steps = f->steps;
  f->rec.nnodes = 1;
}

static void waits_open_each_step(void **state) {
  (void)state;
  struct fixture f;
  build(&f, 40 * MS);
  struct gw_data_waits w;
  gw_data_waits_for_gpu(&f.rec, 0, &w);
  assert_int_equal(w.n, 21);
  assert_true(w.measured);
  assert_int_equal(w.iv[1].start_ns, 1000 * MS);
  assert_int_equal(w.iv[1].end_ns, 1040 * MS);
  /* a tick of 100 ms over one step: 40% waiting; over the warm-up: 2 ms in 1 s */
  assert_true(gw_data_wait_share_in(&w, 0, 1000 * MS) > 0.0019 && gw_data_wait_share_in(&w, 0, 1000 * MS) < 0.0021);
  assert_true(gw_data_wait_share_in(&w, 1500 * MS, 1600 * MS) > 0.399);
  assert_true(gw_data_wait_share_in(&w, 1500 * MS, 1600 * MS) < 0.401);
  gw_data_waits_free(&w);
}

static void unknown_waits_are_not_measured(void **state) {
  (void)state;
  struct fixture f;
  build(&f, -1); /* no DataLoader batch in the steps after the first */
  struct gw_data_waits w;
  gw_data_waits_for_gpu(&f.rec, 0, &w);
  assert_false(w.measured);
  assert_int_equal(w.n, 1); /* the warm-up step's own wait */
  gw_data_waits_free(&w);
}

static void a_traced_rank_without_steps_has_no_waits(void **state) {
  (void)state;
  struct fixture f;
  build(&f, 40 * MS);
  struct gw_gpu_series two[2] = {f.gpu, f.gpu};
  two[0].trace_pid = 42;
  two[1].trace_pid = 43; /* another rank, which wrote no steps */
  two[1].node_gpu = 1;
  f.rec.gpus = two;
  f.rec.ngpus = 2;
  struct gw_data_waits w;
  gw_data_waits_for_gpu(&f.rec, 1, &w);
  assert_int_equal(w.n, 0);
  gw_data_waits_free(&w);
  gw_data_waits_for_gpu(&f.rec, 0, &w);
  assert_int_equal(w.n, 21);
  gw_data_waits_free(&w);
}

static void the_warm_up_step_is_cut_from_the_span(void **state) {
  (void)state;
  struct fixture f;
  build(&f, 40 * MS);
  size_t first = 0, last = 29;
  assert_true(gw_loop_clip_span(&f.rec, 0, &first, &last));
  assert_int_equal(first, 10); /* the tick at 1.0 s, where the first step ended */
  assert_int_equal(last, 29);  /* the last step ends at 3.0 s, after the last tick */
  int64_t t0 = 0, t1 = 2500 * MS;
  assert_true(gw_loop_clip_times(&f.rec, 0, &t0, &t1));
  assert_int_equal(t0, 1000 * MS);
  assert_int_equal(t1, 2500 * MS);
  /* two steps are not enough to tell a warm-up from the loop */
  f.rec.nsteps = 2;
  first = 0, last = 29;
  assert_false(gw_loop_clip_span(&f.rec, 0, &first, &last));
  assert_int_equal(first, 0);
}

static void occasional_long_steps_are_found(void **state) {
  (void)state;
  struct fixture f;
  build(&f, 40 * MS);
  /* step 11 (index 10) takes 1 s more, as an evaluation would: the steps
   * after it move on by 1 s */
  f.steps[10].end_ns += 1000 * MS;
  for (int i = 11; i < 21; i++) {
    f.steps[i].start_ns += 1000 * MS;
    f.steps[i].end_ns += 1000 * MS;
  }
  struct gw_data_waits w;
  gw_data_waits_for_gpu(&f.rec, 0, &w);
  assert_int_equal(w.noutliers, 1);
  assert_int_equal(w.outliers[0].start_ns, f.steps[10].start_ns);
  assert_true(gw_outlier_share_in(&w, 2500 * MS, 2600 * MS) > 0.999);
  assert_true(gw_outlier_share_in(&w, 3500 * MS, 3600 * MS) < 0.001);
  gw_data_waits_free(&w);
  /* every third step that long (7 of 20): a rhythm of the loop, not occasional work */
  build(&f, 40 * MS);
  for (int i = 2; i < 21; i += 3)
    f.steps[i].end_ns += 1000 * MS;
  gw_data_waits_for_gpu(&f.rec, 0, &w);
  assert_int_equal(w.noutliers, 0);
  gw_data_waits_free(&w);
}

static void a_gap_the_loop_waited_through_is_input(void **state) {
  (void)state;
  /* two kernels 2 ms apart; the loop waited for data for 1.5 ms of the gap */
  struct gw_interval k[] = {{0, 10000}, {2010000, 2020000}};
  struct gw_interval waits[] = {{100000, 1600000}};
  struct gw_timeline_input in = fixture_timeline(k, 2, 2020000);
  in.waits = waits;
  in.nwaits = 1;
  struct gw_gap_split sp;
  gw_timeline_split(&in, &sp);
  assert_int_equal(sp.idle_data_wait_ns, 1500000);
  assert_int_equal(sp.idle_input_ns, 1500000);
  assert_int_equal(sp.idle_other_ns, 500000);
  assert_int_equal(sp.busy_ns + sp.idle_input_ns + sp.idle_other_ns, 2020000);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(waits_open_each_step),
    cmocka_unit_test(unknown_waits_are_not_measured),
    cmocka_unit_test(a_traced_rank_without_steps_has_no_waits),
    cmocka_unit_test(the_warm_up_step_is_cut_from_the_span),
    cmocka_unit_test(occasional_long_steps_are_found),
    cmocka_unit_test(a_gap_the_loop_waited_through_is_input),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
