/* The Python hook's stack samples through the recorder's collector
 * (record/pyhook_collect.c: F and P lines of py-PID.steps) into py_frame and
 * py_sample, and back through the loader (store/store_load.c) into the
 * model's py_ticks and py_frames; bad lines are counted and noted, never
 * stored wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "core/activity.h"
#include "record/pyhook_collect.h"
#include "store/store.h"
#include "store/store_load.h"
#include "support_fixtures.h"
#include "support_test_main.h"

static int notes;
static void count_note(void *ctx, const struct gw_event *ev) {
  (void)ctx;
  notes += strcmp(ev->kind, "note") == 0;
}

static void write_file(const char *dir, const char *name, const char *text) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)type, (void)ftw;
  return remove(path);
}

/* The test's folder and what the collector left in it (the spool, the recording). */
static void remove_tree(const char *dir) {
  nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static struct gw_recording *load(struct gw_store *st) {
  struct gw_store_load_params p = {90, 5};
  struct gw_recording *rec = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_load_recording(st, &p, &rec, &err), GW_OK);
  return rec;
}

/* A recording in a private folder and the collector over its spool. */
struct collect_run {
  char dir[32], db[1100], spool[1100];
  struct gw_store *st;
  struct gw_pyhook_collect *pc;
};

static void collect_open(struct collect_run *r) {
  snprintf(r->dir, sizeof r->dir, "/tmp/gw-pyhook-XXXXXX"); /* mkdtemp puts a unique name in place of the Xs */
  assert_non_null(mkdtemp(r->dir));
  snprintf(r->db, sizeof r->db, "%s/r.db", r->dir);
  snprintf(r->spool, sizeof r->spool, "%s/r.db.py", r->dir);
  struct gw_err err = {{0}};
  r->st = NULL;
  r->pc = NULL;
  assert_int_equal(gw_store_create(&r->st, r->db, &err), GW_OK);
  assert_int_equal(gw_pyhook_collect_open(&r->pc, r->spool, r->spool, r->st, &err), GW_OK);
}

/* Closes the collector (unless the test did), the store, and removes the folder. */
static void collect_close(struct collect_run *r) {
  if (r->pc)
    gw_pyhook_collect_close(r->pc);
  gw_store_close(r->st);
  remove_tree(r->dir);
}

static void frames_and_samples_reach_the_model(void **state) {
  (void)state;
  struct collect_run r;
  collect_open(&r);
  struct gw_store *st = r.st;
  struct gw_pyhook_collect *pc = r.pc;
  /* Two processes that both number their frames from 0; samples out of time order across files. */
  write_file(r.spool, "py-4242.steps",
             "F\t0\t/home/u/train.py\t41\t<module>\n"
             "P\t1700000000200000000\t4242\t1\t0\n"
             "F\t1\t/home/u/train.py\t12\tmake_batch\n"
             "P\t1700000000220000000\t4242\t2\t1\n"
             "P\t1700000000240000000\t4242\t4\t-1\n"
             /* bad: activity past the enum, a frame never defined, no time, too few fields, a frame id twice */
             "P\t1700000000260000000\t4242\t13\t0\n"
             "P\t1700000000280000000\t4242\t10\t7\n"
             "P\tsoon\t4242\t1\t0\n"
             "P\t1700000000300000000\t4242\t1\n"
             "F\t0\t/elsewhere.py\t1\tf\n"
             "F\t2\t\t3\tnofile\n"
             "E\t1700000000400000000\tpy_sampler\t123456\tsamples=4\n");
  write_file(r.spool, "py-4343.steps",
             "F\t0\t/home/u/other.py\t7\tstep\n"
             "P\t1700000000210000000\t4343\t12\t0\n");
  struct gw_event_sink sink = {count_note, NULL};
  notes = 0;
  gw_pyhook_collect_finish(pc, &sink);
  /* the sample naming frame 7 is stored with an unknown frame, and counted */
  assert_int_equal(gw_pyhook_collect_py_samples(pc), 5);
  assert_int_equal(gw_pyhook_collect_bad_lines(pc), 6);
  assert_int_equal(notes, 3); /* the first three bad lines are told, the rest counted */
  gw_pyhook_collect_close(pc);
  r.pc = NULL;
  assert_int_equal(gw_store_commit(st), GW_OK);

  struct gw_recording *rec = load(st);
  assert_int_equal(rec->npy_frames, 3);
  assert_int_equal(rec->npy_ticks, 5);
  for (size_t i = 1; i < rec->npy_ticks; i++)
    assert_true(rec->py_ticks[i - 1].t_ns <= rec->py_ticks[i].t_ns);
  /* 4343's frame 0 is not 4242's frame 0 */
  const struct gw_py_tick *a = &rec->py_ticks[0], *b = &rec->py_ticks[1];
  assert_int_equal(a->pid, 4242);
  assert_int_equal(a->activity, GW_PYACT_DATA_WAIT);
  assert_int_equal(b->pid, 4343);
  assert_int_equal(b->activity, GW_PYACT_IDLE);
  assert_int_not_equal(a->frame, b->frame);
  const struct gw_py_frame_info *fa = NULL, *fb = NULL;
  for (size_t i = 0; i < rec->npy_frames; i++) {
    if (rec->py_frames[i].id == a->frame)
      fa = &rec->py_frames[i];
    if (rec->py_frames[i].id == b->frame)
      fb = &rec->py_frames[i];
  }
  assert_non_null(fa);
  assert_non_null(fb);
  assert_string_equal(fa->file, "/home/u/train.py");
  assert_int_equal(fa->line, 41);
  assert_string_equal(fa->func, "<module>");
  assert_string_equal(fb->file, "/home/u/other.py");
  assert_int_equal(rec->py_ticks[3].activity, GW_PYACT_SYNC);
  assert_int_equal(rec->py_ticks[3].frame, -1);
  assert_int_equal(rec->py_ticks[4].activity, GW_PYACT_FORWARD_BACKWARD); /* frame 7 never defined */
  assert_int_equal(rec->py_ticks[4].frame, -1);
  assert_true(rec->py_sampling_hz == 0); /* no meta written here */
  gw_recording_free(rec);
  collect_close(&r);
}

/* The hook's answers to GPUWHY_PY_FIXES (experiment try) reach the event
 * sink with their messages; a kind the recorder does not know does not. */
static char fix_events[4][600];
static int nfix_events;
static void keep_fix_event(void *ctx, const struct gw_event *ev) {
  (void)ctx;
  if (strncmp(ev->kind, "fix_", 4) == 0 && nfix_events < 4)
    snprintf(fix_events[nfix_events++], sizeof fix_events[0], "%s|%s", ev->kind, ev->message);
  notes += strcmp(ev->kind, "note") == 0;
}

static void fix_events_are_kept(void **state) {
  (void)state;
  struct collect_run r;
  collect_open(&r);
  struct gw_pyhook_collect *pc = r.pc;
  write_file(r.spool, "py-4242.steps",
             "E\t1700000000100000000\tfix_applied\t0\tworkers: DataLoader num_workers 0 -> 6 (train.py:42)\n"
             "E\t1700000000200000000\tfix_refused\t0\tpin_memory: refused, no CUDA device\n"
             "E\t1700000000300000000\tfix_bogus\t0\tnot a kind the recorder knows\n");
  struct gw_event_sink sink = {keep_fix_event, NULL};
  notes = nfix_events = 0;
  gw_pyhook_collect_finish(pc, &sink);
  assert_int_equal(nfix_events, 2);
  assert_string_equal(fix_events[0], "fix_applied|workers: DataLoader num_workers 0 -> 6 (train.py:42)");
  assert_string_equal(fix_events[1], "fix_refused|pin_memory: refused, no CUDA device");
  assert_int_equal(gw_pyhook_collect_bad_lines(pc), 1);
  assert_int_equal(notes, 1);
  collect_close(&r);
}

/* A recording made before the stack sampler (schema 1): no samples, rate 0. */
static void an_older_recording_has_none(void **state) {
  (void)state;
  char path[1024];
  support_fixture_path(path, sizeof path, "hook/healthy.db");
  struct gw_store *st = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_open(&st, path, 1, &err), GW_OK);
  struct gw_recording *rec = load(st);
  assert_int_equal(rec->npy_ticks, 0);
  assert_int_equal(rec->npy_frames, 0);
  assert_null(rec->py_ticks);
  assert_true(rec->py_sampling_hz == 0);
  assert_true(rec->nsteps > 0); /* the rest of it loads */
  gw_recording_free(rec);
  gw_store_close(st);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(frames_and_samples_reach_the_model),
    cmocka_unit_test(fix_events_are_kept),
    cmocka_unit_test(an_older_recording_has_none),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
