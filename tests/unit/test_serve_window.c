/* The exporter's sliding window and replay: a build keeps only the last
 * span of samples from the current and previous segment, old segments are
 * deleted, and a replayed recording arrives at wall-clock pace with its
 * timestamps moved to the present, looping at its end. */
#include <sqlite3.h>
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
#include "report_synth.h"
#include "store/store_replay.h"
#include "store/store_window.h"
#include "support_sql.h"
#include "support_tmp_files.h"
#include "support_test_main.h"

static void window_keeps_the_last_span(void **state) {
  (void)state;
  struct gw_window *w = NULL;
  struct gw_err err;
  assert_int_equal(gw_window_open(&w, support_tmpdir(), 40000000000LL, &err), GW_OK);
  char seg0[160], seg1[160], seg2[160];
  gw_window_segment_path(w, 0, seg0, sizeof seg0);
  gw_window_segment_path(w, 1, seg1, sizeof seg1);
  gw_window_segment_path(w, 2, seg2, sizeof seg2);
  /* segment 0: 0..30 s; segment 1: 30..60 s */
  assert_int_equal(synth_write(seg0, 1, 30, 0, gpu_starved, host_starved), 0);
  assert_int_equal(synth_write(seg1, 1, 30, 0, gpu_starved, host_starved), 0);
  support_exec_sql_at(
      seg1, "UPDATE gpu_sample SET t_ns = t_ns + 30000000000; UPDATE gpu_health SET t_ns = t_ns + 30000000000;"
            "UPDATE host_sample SET t_ns = t_ns + 30000000000; UPDATE proc_sample SET t_ns = t_ns + 30000000000;"
            "UPDATE disk_sample SET t_ns = t_ns + 30000000000; UPDATE run SET started_ns = started_ns + 30000000000");
  gw_window_segment_started(w, 0);
  gw_window_segment_started(w, 1);
  char path[600];
  assert_int_equal(gw_window_build(w, path, sizeof path, &err), GW_OK);
  int64_t newest = SYNTH_T0_NS + 30000000000LL + 299 * SYNTH_DT_NS;
  assert_int_equal(support_query_i64_at(path, "SELECT max(t_ns) FROM gpu_sample"), newest);
  assert_int_equal(support_query_i64_at(path, "SELECT min(t_ns) FROM gpu_sample"), newest - 40000000000LL);
  assert_int_equal(support_query_i64_at(path, "SELECT count(*) FROM gpu_sample"), 401);
  assert_int_equal(support_query_i64_at(path, "SELECT count(*) FROM host_sample"), 401);
  /* rows from both segments: the window starts 19.9 s into segment 0's range */
  assert_int_equal(support_query_i64_at(path, "SELECT count(*) FROM gpu_sample WHERE t_ns < 1700000030000000000"), 101);
  assert_int_equal(support_query_i64_at(path, "SELECT count(*) FROM gpu"), 1);
  assert_int_equal(support_query_i64_at(path, "SELECT started_ns FROM run"), newest - 40000000000LL);
  /* the window is a recording the analysis reads */
  struct gw_diagnosis *dx = NULL;
  assert_int_equal(gw_diagnose_file(path, &dx, &err), GW_OK);
  assert_int_equal(dx->ngpus, 1);
  gw_diagnosis_free(dx);
  /* a third segment starts: segment 0 leaves the window and the disk */
  assert_int_equal(synth_write(seg2, 1, 1, 0, gpu_starved, host_starved), 0);
  gw_window_segment_started(w, 2);
  assert_int_not_equal(access(seg0, F_OK), 0);
  assert_int_equal(access(seg1, F_OK), 0);
  gw_window_close(w);
  assert_int_not_equal(access(seg1, F_OK), 0);
  assert_int_not_equal(access(seg2, F_OK), 0);
  assert_int_not_equal(access(path, F_OK), 0);
}

static void empty_window_is_no_data(void **state) {
  (void)state;
  struct gw_window *w = NULL;
  struct gw_err err;
  assert_int_equal(gw_window_open(&w, support_tmpdir(), 60000000000LL, &err), GW_OK);
  char path[600];
  assert_int_equal(gw_window_build(w, path, sizeof path, &err), GW_OK);
  struct gw_diagnosis *dx = NULL;
  assert_int_equal(gw_diagnose_file(path, &dx, &err), GW_OK);
  assert_string_equal(dx->verdict, "no_data");
  gw_diagnosis_free(dx);
  gw_window_close(w);
}

static void replay_at_wall_clock_pace(void **state) {
  (void)state;
  char src[160], seg[160];
  support_tmpdir_path(src, sizeof src, "src.db");
  support_tmpdir_path(seg, sizeof seg, "replay-seg.db");
  assert_int_equal(synth_write(src, 1, 10, 0, gpu_starved, host_starved), 0);
  support_exec_sql_at(src,
                      "INSERT INTO event VALUES (1700000002050000000, 'xid', 0, 79, 0, 'x');"
                      "INSERT INTO event VALUES (1690000000000000000, 'xid', 0, 31, 0, 'history before the run');");
  const int64_t now = 1800000000000000000LL;
  struct gw_replay *r = NULL;
  struct gw_err err;
  assert_int_equal(gw_replay_open(&r, src, support_tmpdir(), now, &err), GW_OK);
  assert_int_equal(gw_replay_length_ns(r), 99 * SYNTH_DT_NS);
  assert_int_equal(gw_replay_begin_segment(r, seg, &err), GW_OK);
  assert_int_equal(gw_replay_advance(r, now + 3000000000LL, &err), GW_OK);
  /* ticks 0..29 (source time before 3 s), moved to start now */
  assert_int_equal(support_query_i64_at(seg, "SELECT count(*) FROM gpu_sample"), 30);
  assert_int_equal(support_query_i64_at(seg, "SELECT min(t_ns) FROM gpu_sample"), now);
  assert_int_equal(support_query_i64_at(seg, "SELECT max(t_ns) FROM gpu_sample"), now + 29 * SYNTH_DT_NS);
  assert_int_equal(support_query_i64_at(seg, "SELECT count(*) FROM event"),
                   1); /* history before the run is not replayed */
  assert_int_equal(support_query_i64_at(seg, "SELECT t_ns FROM event"), now + 2050000000LL);
  assert_int_equal(support_query_i64_at(
                       seg, "SELECT count(*) FROM run WHERE source = 'replay' AND started_ns = 1800000000000000000"),
                   1);
  assert_int_equal(support_query_i64_at(seg, "SELECT count(*) FROM gpu WHERE name = 'NVIDIA H200'"), 1);
  /* 25 s in: two whole passes of 10 s and half a third, timestamps still rising */
  assert_int_equal(gw_replay_advance(r, now + 25000000000LL, &err), GW_OK);
  assert_int_equal(support_query_i64_at(seg, "SELECT count(*) FROM gpu_sample"), 250);
  assert_int_equal(support_query_i64_at(seg, "SELECT count(DISTINCT t_ns) FROM gpu_sample"), 250);
  assert_true(support_query_i64_at(seg, "SELECT max(t_ns) FROM gpu_sample") < now + 25000000000LL);
  assert_int_equal(support_query_i64_at(seg, "SELECT count(*) FROM event"), 3);
  /* advancing to the same instant copies nothing twice */
  assert_int_equal(gw_replay_advance(r, now + 25000000000LL, &err), GW_OK);
  assert_int_equal(support_query_i64_at(seg, "SELECT count(*) FROM gpu_sample"), 250);
  gw_replay_close(r);
  char copy[160];
  support_tmpdir_path(copy, sizeof copy, "replay-source.db");
  assert_int_not_equal(access(copy, F_OK), 0);
  unlink(seg);
  unlink(src);
}

static void replay_refuses_bad_sources(void **state) {
  (void)state;
  char path[160];
  struct gw_replay *r = NULL;
  struct gw_err err;
  support_tmpdir_path(path, sizeof path, "not-a-recording.db");
  FILE *f = fopen(path, "w");
  fputs("hello", f);
  fclose(f);
  assert_int_not_equal(gw_replay_open(&r, path, support_tmpdir(), 0, &err), GW_OK);
  assert_null(r);
  unlink(path);
  support_tmpdir_path(path, sizeof path, "empty.db");
  struct gw_store *st = NULL;
  assert_int_equal(gw_store_create(&st, path, &err), GW_OK);
  gw_store_close(st);
  assert_int_equal(gw_replay_open(&r, path, support_tmpdir(), 0, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "no GPU or host samples"));
  unlink(path);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(window_keeps_the_last_span),
    cmocka_unit_test(empty_window_is_no_data),
    cmocka_unit_test(replay_at_wall_clock_pace),
    cmocka_unit_test(replay_refuses_bad_sources),
};
SUPPORT_TEST_MAIN(tests, support_tmpdir_setup, support_tmpdir_teardown)
