/* analysis/compile_shapes.c: torch.compile time and step time per input shape
 * from the Python hook's steps and compile events. A run of a static-shape
 * compiled model: 4 lengths, the first compiled before the steps, 3
 * recompilations of 1.8 s inside them, then revisits of 0.1 s. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/compile_shapes.h"
#include "support_test_main.h"

#define PID 4242
static const int64_t T0 = 1796150000000000000LL;
static const int64_t MS = 1000000;

static void test_compile_ids(void **state) {
  (void)state;
  assert_false(gw_compile_id_is_recompile("0/0 DYNAMO"));
  assert_true(gw_compile_id_is_recompile("0/1 DYNAMO"));
  assert_true(gw_compile_id_is_recompile("3/12: tensor 'x' size mismatch"));
  assert_true(gw_compile_id_is_recompile("!2/0/3 DYNAMO")); /* compiled autograd prefix */
  assert_false(gw_compile_id_is_recompile("1/0_1 DYNAMO")); /* a retry of a first compilation */
  assert_false(gw_compile_id_is_recompile("? ?"));
  assert_false(gw_compile_id_is_recompile(""));
}

struct run {
  struct gw_recording rec;
  struct gw_step_row steps[16];
  struct gw_event_row events[16];
  char messages[16][200]; /* the events' texts (a recording keeps them in its text pool) */
};

static void add_step(struct run *r, int64_t *t, double dur_ms, int64_t compile_ms, const char *shape) {
  struct gw_step_row *s = &r->steps[r->rec.nsteps++];
  memset(s, 0, sizeof *s);
  s->start_ns = *t;
  s->end_ns = *t + (int64_t)(dur_ms * MS);
  s->step = (int64_t)r->rec.nsteps;
  s->pid = PID;
  s->rank = -1;
  s->batch_size = s->samples = 16;
  s->compile_ns = compile_ms * MS;
  snprintf(s->shape, sizeof s->shape, "%s", shape);
  *t = s->end_ns;
}

static void add_event(struct run *r, int64_t t, const char *kind, int64_t code, int64_t pid, const char *msg) {
  struct gw_event_row *e = &r->events[r->rec.nevents++];
  memset(e, 0, sizeof *e);
  e->t_ns = t;
  snprintf(e->kind, sizeof e->kind, "%s", kind);
  e->gpu = -1;
  e->code = code;
  e->pid = pid;
  snprintf(r->messages[r->rec.nevents - 1], sizeof r->messages[0], "%s", msg);
  e->message = r->messages[r->rec.nevents - 1];
}

/* An empty run: no steps, no events. */
static void empty_run(struct run *r) {
  memset(r, 0, sizeof *r);
  r->rec.steps = r->steps;
  r->rec.events = r->events;
}

/* What the analysis finds in the run. */
static struct gw_compile_shapes shapes_of(const struct run *r) {
  struct gw_compile_shapes cs;
  gw_compile_shapes(&r->rec, &cs);
  return cs;
}

static void make_run(struct run *r, int with_ids) {
  empty_run(r);
  add_event(r, T0 - 5000 * MS, "compile", 4000 * MS, PID, with_ids ? "0/0 DYNAMO" : "? ?"); /* warm-up */
  int64_t t = T0;
  add_step(r, &t, 1000, 0, "16x128");
  static const char *const shapes[] = {"16x192", "16x256", "16x320"};
  for (int i = 0; i < 3; i++) {
    char id[96];
    snprintf(id, sizeof id, with_ids ? "0/%d DYNAMO" : "? ?", i + 1);
    add_event(r, t + 10 * MS, "compile", 1800 * MS, PID, id);
    if (with_ids) {
      snprintf(id, sizeof id, "0/%d: tensor 'L['x']' size mismatch at index 1. expected 128", i + 1);
      add_event(r, t + 10 * MS, "recompile", 1, PID, id);
    }
    if (with_ids && i == 0) { /* its backward graph, compiled at the first backward: time, no recompilation */
      add_event(r, t + 1000 * MS, "compile", 300 * MS, PID, "0/1 LAZY_BACKWARD");
    }
    add_step(r, &t, 2000 + 100 * i, 1800, shapes[i]);
  }
  static const char *const again[] = {"16x128", "16x192", "16x256", "16x320", "16x128", "16x192"};
  for (int i = 0; i < 6; i++)
    add_step(r, &t, 100, 0, again[i]);
  /* another process's recompilation, at the same time: not this one's */
  add_event(r, T0 + 1500 * MS, "compile", 900 * MS, 777, "0/5 DYNAMO");
  add_event(r, T0 + 1500 * MS, "recompile", 1, 777, "0/5: another process");
}

static void test_recompiles_and_first_visits(void **state) {
  (void)state;
  struct run r;
  make_run(&r, 1);
  struct gw_compile_shapes cs = shapes_of(&r);
  assert_int_equal(cs.pid, PID);
  assert_int_equal(cs.nsteps, 10);
  assert_true(fabs(cs.step_total_s - 7.9) < 1e-6); /* 1 + 2.0 + 2.1 + 2.2 + 6 x 0.1 */
  assert_true(cs.compile_known && cs.ids_known);
  assert_int_equal(cs.compiles, 4); /* the warm-up's is before the steps, pid 777's not ours */
  assert_int_equal(cs.recompiles, 3);
  assert_true(fabs(cs.recompile_s - 5.7) < 1e-6);
  assert_true(fabs(cs.compile_s - 5.4) < 1e-6);
  assert_string_equal(cs.first_reason, "tensor 'L['x']' size mismatch at index 1. expected 128");
  assert_int_equal(cs.nshapes, 4);
  assert_int_equal(cs.first_visits, 3); /* the first step is warm-up whatever its shape */
  assert_true(fabs(cs.revisit_median_s - 0.1) < 1e-6);
  assert_true(fabs(cs.first_visit_excess_s - (6.3 - 0.3)) < 1e-6);
  assert_int_equal(cs.nshown, 3);
  assert_string_equal(cs.shown[0].shape, "16x320"); /* slowest first */
  assert_string_equal(cs.shown[2].shape, "16x192");
  assert_true(fabs(gw_compile_shapes_lost_share(&cs) - 6.0 / 7.9) < 1e-6);
}

static void test_without_compile_ids(void **state) {
  (void)state;
  struct run r;
  make_run(&r, 0);
  struct gw_compile_shapes cs = shapes_of(&r);
  assert_false(cs.ids_known);
  assert_int_equal(cs.recompiles, 0);
  /* the compile time after the first step that compiled: steps 3 and 4 */
  assert_true(fabs(cs.later_compile_s - 3.6) < 1e-6);
  assert_string_equal(cs.first_reason, "");
}

static void test_first_visits_no_slower(void **state) {
  (void)state;
  /* shapes that change, first visits as fast as repeats (input stalls hit
   * both alike): no time lost to shapes, no compile time */
  struct run r;
  empty_run(&r);
  int64_t t = T0;
  static const char *const seq[] = {"8x8", "8x16", "8x8", "8x24", "8x16", "8x24", "8x8", "8x32"};
  static const double dur[] = {100, 140, 150, 90, 100, 110, 160, 120};
  for (int i = 0; i < 8; i++)
    add_step(&r, &t, dur[i], 0, seq[i]);
  struct gw_compile_shapes cs = shapes_of(&r);
  assert_int_equal(cs.nshapes, 4);
  assert_int_equal(cs.first_visits, 3);
  assert_true(fabs(cs.revisit_median_s - 0.13) < 1e-6); /* 150, 100, 110, 160 */
  assert_true(cs.first_visit_excess_s == 0);            /* 140 + 90 + 120 < 3 x 110 */
  assert_true(gw_compile_shapes_lost_share(&cs) == 0);
}

static void test_old_recording(void **state) {
  (void)state;
  /* steps from a hook before compile times and shapes: nothing is known */
  struct run r;
  make_run(&r, 1);
  for (size_t i = 0; i < r.rec.nsteps; i++) {
    r.steps[i].compile_ns = -1;
    r.steps[i].shape[0] = '\0';
  }
  r.rec.nevents = 0;
  struct gw_compile_shapes cs = shapes_of(&r);
  assert_false(cs.compile_known || cs.shape_known || cs.ids_known);
  assert_true(isnan(cs.first_visit_excess_s));
  assert_true(gw_compile_shapes_lost_share(&cs) == 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compile_ids),         cmocka_unit_test(test_recompiles_and_first_visits),
    cmocka_unit_test(test_without_compile_ids), cmocka_unit_test(test_first_visits_no_slower),
    cmocka_unit_test(test_old_recording),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
