/* Steps decomposed (analysis/step_breakdown.h) on synthetic recordings
 * (report_synth.h) loaded for real, with the hook's steps and Python stack
 * samples filled into the model directly (as test_idle_attribution.c does). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/diagnosis.h"
#include "analysis/step_breakdown.h"
#include "render/report_render.h"
#include "report_synth.h"
#include "support_gpu_tick.h"
#include "support_synth_recording.h"
#include "support_test_main.h"

#define SECONDS 30.0
#define PY_HZ 50.0
static char g_path[64];

/* The loop being described: steps of step_s (+-2% alternating, so MAD is
 * 2% of the median), every period-th step (index % period == period - 1)
 * a slow one of slow_s in which the thread does slow_activity; period 0:
 * none. Extra stray slow steps at the listed indices (no common spacing),
 * of stray_s (0: 1.5 x step_s), and one one-off step of oneoff_s at index
 * oneoff (oneoff_s 0: none). */
struct loop {
  double step_s, slow_s;
  int period, slow_activity;
  const int *strays;
  int nstrays;
  double stray_s;
  int oneoff;
  double oneoff_s;
  int slow_gpu_busy; /* the GPU works through the slow steps too (queued work): 0 it idles in them */
};
static struct loop g_loop;

static double step_len(int i) {
  if (g_loop.period && i % g_loop.period == g_loop.period - 1)
    return g_loop.slow_s;
  if (g_loop.oneoff_s > 0 && i == g_loop.oneoff)
    return g_loop.oneoff_s;
  for (int k = 0; k < g_loop.nstrays; k++)
    if (g_loop.strays[k] == i)
      return g_loop.stray_s > 0 ? g_loop.stray_s : 1.5 * g_loop.step_s;
  return g_loop.step_s * (1 + 0.02 * (i % 2 ? 1 : -1));
}

/* The GPU idles through the slow steps and works in the others. */
static int gpu_idle_at(double t) {
  double at = SYNTH_STARTUP_S;
  for (int i = 0; at < SECONDS; i++) {
    double len = step_len(i);
    if (t < at + len)
      return g_loop.period && i % g_loop.period == g_loop.period - 1 && !g_loop.slow_gpu_busy;
    at += len;
  }
  return 0;
}

static void gpu_loop_fn(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  synth_idle(o);
  if (t < SYNTH_STARTUP_S || gpu_idle_at(t))
    return;
  support_gpu_working(o, 95, 85, 500, 1980, 0);
}
static void host_plain(double t, struct synth_host *o) {
  (void)t;
  synth_host_tick(o, 60, 1, 0, 0);
}

/* The recording with the loop's steps and, at PY_HZ, its stack samples:
 * the slow steps' activity inside them (frame 2), forward/backward
 * elsewhere (frame 1). */
static struct gw_recording *load_loop(const struct loop *lp) {
  g_loop = *lp;
  snprintf(g_path, sizeof g_path, "/tmp/gw_step_breakdown_%d.db", (int)getpid());
  struct gw_recording *rec = support_synth_load(g_path, SECONDS, gpu_loop_fn, host_plain);
  size_t cap = (size_t)(SECONDS / (lp->step_s * 0.98)) + 2;
  rec->steps = calloc(cap, sizeof *rec->steps);
  double at = SYNTH_STARTUP_S;
  for (int i = 0; (size_t)i < cap && at + step_len(i) < SECONDS; i++) {
    double len = step_len(i);
    rec->steps[rec->nsteps++] = (struct gw_step_row){.start_ns = SYNTH_T0_NS + (int64_t)(at * 1e9),
                                                     .end_ns = SYNTH_T0_NS + (int64_t)((at + len) * 1e9),
                                                     .step = i + 1,
                                                     .pid = 1000,
                                                     .rank = -1,
                                                     .data_wait_ns = -1,
                                                     .batch_size = 32,
                                                     .samples = 32,
                                                     .compile_ns = -1};
    at += len;
  }
  rec->python_hook_enabled = 1;
  size_t n = (size_t)(SECONDS * PY_HZ);
  support_synth_py_frames(rec, n, (struct gw_py_frame_info){2, 12, "/home/u/ckpt.py", "save"});
  for (size_t i = 0; i < n; i++) {
    double t = ((double)i + 0.3) / PY_HZ;
    if (t < SYNTH_STARTUP_S)
      continue;
    int slow = gpu_idle_at(t);
    rec->py_ticks[rec->npy_ticks++] =
        (struct gw_py_tick){SYNTH_T0_NS + (int64_t)(t * 1e9), 1000, 1000,
                            (uint8_t)(slow ? lp->slow_activity : GW_PYACT_FORWARD_BACKWARD), slow ? 2 : 1};
  }
  rec->py_sampling_hz = PY_HZ;
  return rec;
}

static void free_rec(struct gw_recording *rec) {
  support_synth_free(rec, g_path);
}

static char *render(const struct gw_diagnosis *dx, int json) {
  static char buf[1 << 17];
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  if (json)
    gw_render_json(dx, f);
  else
    gw_render_text(dx, f, 0);
  fclose(f);
  return buf;
}

/* The recording's diagnosis says text in its text report and json in its JSON one. */
static void assert_report_says(struct gw_recording *rec, const char *text, const char *json) {
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose(rec, &dx, &err), GW_OK);
  assert_non_null(strstr(render(dx, 0), text));
  assert_non_null(strstr(render(dx, 1), json));
  gw_diagnosis_free(dx);
}

/* The loop's checkpoints found every 50 steps, at least min_count of them,
 * each about 0.28 s over the median step. */
static void assert_checkpoints_every_50(const struct gw_step_breakdown *b, int min_count) {
  assert_true(b->found);
  assert_true(b->recurring);
  assert_int_equal(b->period_steps, 50);
  assert_true(b->count >= min_count);
  assert_true(fabs(b->extra_s / b->count - 0.28) < 0.01);
}

/* A checkpoint every 50 steps (0.3 s in a loop of 20 ms steps): found with
 * N = 50, its activity and user frame named, about 0.28 s over the median
 * step each time; the typical step's split leaves it out. */
static void test_checkpoint_every_50(void **state) {
  (void)state;
  struct loop lp = {0.020, 0.300, 50, GW_PYACT_CHECKPOINT, NULL, 0};
  struct gw_recording *rec = load_loop(&lp);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  /* 27 s of 1.28 s periods: 21 checkpoints, the last may fall past the end */
  assert_checkpoints_every_50(&b, 19);
  assert_true(b.count <= 21);
  assert_int_equal(b.activity, GW_PYACT_CHECKPOINT);
  assert_string_equal(b.frame_text, "ckpt.py:12 in save");
  assert_true(fabs(b.step_median_s - 0.020) < 0.001);
  /* the typical step: 20 ms of forward/backward, no checkpoint in it */
  const struct gw_step_split *ty = &b.kinds[GW_STEP_KIND_TYPICAL];
  assert_true(fabs(ty->host_s[GW_PYACT_FORWARD_BACKWARD] - 0.020) < 0.002);
  assert_true(ty->host_s[GW_PYACT_CHECKPOINT] == 0);
  assert_true(isnan(ty->data_wait_s)); /* the hook saw no DataLoader: unknown, not 0 */
  /* the slow steps' own split: the checkpoint's 0.3 s */
  assert_true(fabs(b.kinds[GW_STEP_KIND_SLOW].host_s[GW_PYACT_CHECKPOINT] - 0.3) < 0.03);

  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose(rec, &dx, &err), GW_OK);
  char *text = render(dx, 0);
  assert_non_null(strstr(text, "Steps decomposed"));
  assert_non_null(strstr(text, "slow steps recur every 50 steps"));
  assert_non_null(strstr(text, "checkpoint"));
  char *json = render(dx, 1);
  assert_non_null(strstr(json, "\"steps_breakdown\""));
  assert_non_null(strstr(json, "\"period_steps\": 50"));
  assert_non_null(strstr(json, "\"activity\": \"checkpoint\""));
  /* the GPU idles in the checkpoints: schedule_shape holds and carries the recurrence as evidence */
  int seen = 0;
  for (int i = 0; i < dx->nfindings; i++)
    for (int e = 0; e < dx->findings[i].nevidence; e++)
      seen |= !strcmp(dx->findings[i].class_id, "schedule_shape") &&
              !strcmp(dx->findings[i].evidence[e].id, "periodic_slow_steps");
  assert_true(seen);
  gw_diagnosis_free(dx);
  free_rec(rec);
}

/* The same checkpoint, sampled as plain user code inside a function named
 * for a checkpoint (a recording of a hook that did not know the name): the
 * split reads it as the idle attribution does, a checkpoint. */
static void test_checkpoint_named_function(void **state) {
  (void)state;
  struct loop lp = {0.020, 0.300, 50, GW_PYACT_OTHER, NULL, 0};
  struct gw_recording *rec = load_loop(&lp);
  gw_strlcpy(rec->py_frames[1].func, "save_checkpoint", sizeof rec->py_frames[1].func);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_true(b.recurring);
  assert_int_equal(b.activity, GW_PYACT_CHECKPOINT);
  assert_string_equal(b.frame_text, "ckpt.py:12 in save_checkpoint");
  const struct gw_step_split *sl = &b.kinds[GW_STEP_KIND_SLOW];
  assert_true(fabs(sl->host_s[GW_PYACT_CHECKPOINT] - 0.3) < 0.03);
  assert_true(sl->host_s[GW_PYACT_OTHER] == 0);
  free_rec(rec);
}

/* The checkpoint every 50 steps beside what hid it in a recorded loop (an
 * evaluation with a loader of its own, weak_spots_h100/ws_eval_own_loader):
 * one step of 6 s (the loader started) and forty stray steps 50 ms slow at
 * no common spacing, a sixth of the checkpoint's stall. The one-off pairs
 * with no stray (it is no repetition of them), and strays that fall a
 * spacing from each other by chance are not members: the recurrence is
 * the checkpoints', at their 0.28 s each. */
static void test_recurrence_beside_oneoff_and_strays(void **state) {
  (void)state;
  static int strays[40];
  unsigned seed = 7;
  for (int k = 0; k < 40; k++) {
    do {
      seed = seed * 1103515245u + 12345u;
      strays[k] = 20 + (int)((seed >> 16) % 560);
    } while (strays[k] % 50 == 49 || strays[k] == 401);
  }
  struct loop lp = {0.020, 0.300, 50, GW_PYACT_CHECKPOINT, strays, 40, 0.070, 401, 6.0};
  struct gw_recording *rec = load_loop(&lp);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_checkpoints_every_50(&b, 14);
  free_rec(rec);
}

/* A loop that runs ahead of the GPU: every tenth step blocks for 0.2 s
 * while the GPU works through the queued steps (it never idles). The slow
 * steps recur, but they stalled nothing: no recurrence of periodic work,
 * and every step is typical. */
static void test_queue_paced_is_no_stall(void **state) {
  (void)state;
  struct loop lp = {0.020, 0.200, 10, GW_PYACT_FORWARD_BACKWARD, NULL, 0, 0, 0, 0, 1};
  struct gw_recording *rec = load_loop(&lp);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_true(b.found);
  assert_false(b.recurring);
  assert_true(b.queue_paced);
  assert_int_equal(b.period_steps, 10);
  assert_true(b.queue_busy_frac >= 0.9);
  assert_int_equal(b.activity, GW_PYACT_FORWARD_BACKWARD);
  assert_int_equal((int)b.kinds[GW_STEP_KIND_TYPICAL].nsteps, (int)b.nsteady);
  assert_report_says(rec, "work queued ahead kept it fed, no stall", "\"queue_paced\": {\"period_steps\": 10");
  free_rec(rec);
}

/* A steady loop with a few stray slow steps at no common spacing: slow
 * steps are seen, none recurs. */
static void test_steady_loop_none(void **state) {
  (void)state;
  static const int strays[] = {100, 377, 801, 850};
  struct loop lp = {0.020, 0, 0, GW_PYACT_OTHER, strays, 4};
  struct gw_recording *rec = load_loop(&lp);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_true(b.found);
  assert_int_equal((int)b.nslow, 4);
  assert_false(b.recurring);
  assert_true(isnan(b.extra_s));
  assert_int_equal(b.activity, -1);
  assert_report_says(rec, "no slow steps recur at a fixed spacing (4 above", "\"slow_recurring\": null");
  free_rec(rec);
}

/* 20 ms steps span one period of the 50 Hz sampler, not four: no step is
 * split on its own, while the aggregate over all of them is. 0.5 s steps
 * span 25 of its periods and 5 of the 100 ms GPU samples: split. */
static void test_short_steps_not_measurable(void **state) {
  (void)state;
  struct loop lp = {0.020, 0, 0, GW_PYACT_OTHER, NULL, 0};
  struct gw_recording *rec = load_loop(&lp);
  struct gw_step_split one;
  assert_int_equal(gw_step_split_one(rec, &rec->steps[100], &one), 0);
  assert_false(one.host_per_step);
  assert_true(isnan(one.host_s[GW_PYACT_FORWARD_BACKWARD]));
  assert_true(isnan(one.gpu_busy_s));
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_false(b.kinds[GW_STEP_KIND_TYPICAL].host_per_step);
  assert_true(fabs(b.kinds[GW_STEP_KIND_TYPICAL].host_s[GW_PYACT_FORWARD_BACKWARD] - 0.020) < 0.002);
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose(rec, &dx, &err), GW_OK);
  assert_non_null(strstr(render(dx, 0), "not measurable in this recording"));
  gw_diagnosis_free(dx);
  free_rec(rec);

  lp.step_s = 0.5;
  rec = load_loop(&lp);
  assert_int_equal(gw_step_split_one(rec, &rec->steps[10], &one), 1);
  assert_true(fabs(one.host_s[GW_PYACT_FORWARD_BACKWARD] - 0.5) < 0.05);
  assert_true(one.gpu_busy_s > 0.4 && one.gpu_busy_s <= 0.5);
  assert_true(fabs(one.sm_fill_pct - 85.0 / 95.0 * 100) < 2);
  free_rec(rec);
}

static int has_finding(const struct gw_diagnosis *dx, const char *class_id, const char *evidence_id) {
  for (int i = 0; i < dx->nfindings; i++)
    if (!strcmp(dx->findings[i].class_id, class_id)) {
      if (!evidence_id)
        return 1;
      for (int e = 0; e < dx->findings[i].nevidence; e++)
        if (!strcmp(dx->findings[i].evidence[e].id, evidence_id))
          return 1;
    }
  return 0;
}

/* The loop as a recording without stack samples (no hook sampler, or an
 * older recording): what the slow steps did is unknown. */
static struct gw_recording *load_loop_unsampled(const struct loop *lp) {
  struct gw_recording *rec = load_loop(lp);
  rec->npy_ticks = 0;
  rec->py_sampling_hz = 0;
  return rec;
}

/* A loader of four fetch threads whose batches take 0.26 s: the loop runs
 * through the four ready batches in 20 ms steps and then waits 0.18 s, every
 * fourth step. The wait is longer than the round of steps between two of
 * them (80 ms): the rhythm of a parallel loader, not of scheduled work. The
 * input pipeline holds with the rhythm as its evidence, and the schedule
 * class does not (no periodic dip is charged to it). */
static void test_fetch_round_is_input(void **state) {
  (void)state;
  struct loop lp = {0.020, 0.200, 4, GW_PYACT_OTHER, NULL, 0};
  struct gw_recording *rec = load_loop_unsampled(&lp);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_true(b.recurring);
  assert_int_equal(b.period_steps, 4);
  assert_int_equal(b.activity, -1);
  assert_true(b.fetch_rhythm);
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose(rec, &dx, &err), GW_OK);
  assert_true(has_finding(dx, "input_pipeline", "steps_fetch_rhythm"));
  assert_false(has_finding(dx, "schedule_shape", NULL));
  assert_string_equal(dx->verdict, "input_pipeline");
  assert_non_null(strstr(render(dx, 0), "the loop waits once per round of batches fetched in parallel"));
  assert_non_null(strstr(render(dx, 0), "the rhythm of batches fetched in parallel (a loader's round)"));
  assert_non_null(strstr(render(dx, 1), "\"fetch_rhythm\": true"));
  gw_diagnosis_free(dx);
  free_rec(rec);
}

/* What is not a loader's round: the same every-fourth-step stall spent
 * evaluating (the samples name work of its own), and a sync every fourth
 * step that drains 30 ms of queue, less than the steps between. */
static void test_not_a_fetch_round(void **state) {
  (void)state;
  struct loop eval = {0.020, 0.200, 4, GW_PYACT_EVAL, NULL, 0};
  struct gw_recording *rec = load_loop(&eval);
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_true(b.recurring);
  assert_int_equal(b.activity, GW_PYACT_EVAL);
  assert_false(b.fetch_rhythm);
  free_rec(rec);

  struct loop sync = {0.020, 0.050, 4, GW_PYACT_OTHER, NULL, 0};
  rec = load_loop_unsampled(&sync);
  gw_step_breakdown(rec, &b);
  assert_true(b.recurring);
  assert_int_equal(b.period_steps, 4);
  assert_false(b.fetch_rhythm);
  free_rec(rec);
}

/* Inputs whose length is drawn anew each step, in a loop that ends each
 * step with loss.item() after the optimizer step the hook marks: a step's
 * interval waits for the GPU work of the step before, so its time follows
 * the previous input's element count and not its own. The correlation is
 * taken at both lags; at its own lag alone it reads about 0. */
static void test_step_time_follows_previous_input(void **state) {
  (void)state;
  struct loop lp = {0.020, 0.020, 0, GW_PYACT_OTHER, NULL, 0};
  struct gw_recording *rec = load_loop(&lp);
  unsigned seed = 11;
  int64_t at = rec->steps[0].start_ns, prev_len = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    seed = seed * 1103515245u + 12345u;
    int len = 64 + (int)((seed >> 16) % 961); /* 64 .. 1024 tokens */
    snprintf(rec->steps[i].shape, sizeof rec->steps[i].shape, "16x%dx512", len);
    int64_t dur_ns = 5000000 + prev_len * 20000; /* 20 us a token of the step before */
    rec->steps[i].start_ns = at;
    rec->steps[i].end_ns = at + dur_ns;
    at += dur_ns;
    prev_len = len;
  }
  struct gw_step_breakdown b;
  gw_step_breakdown(rec, &b);
  assert_true(b.found);
  assert_true(b.shape_known);
  assert_true(b.nshapes > 100);
  assert_true(b.shape_corr > 0.9);
  free_rec(rec);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_checkpoint_named_function),
    cmocka_unit_test(test_checkpoint_every_50),
    cmocka_unit_test(test_steady_loop_none),
    cmocka_unit_test(test_recurrence_beside_oneoff_and_strays),
    cmocka_unit_test(test_queue_paced_is_no_stall),
    cmocka_unit_test(test_short_steps_not_measurable),
    cmocka_unit_test(test_fetch_round_is_input),
    cmocka_unit_test(test_not_a_fetch_round),
    cmocka_unit_test(test_step_time_follows_previous_input),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
