#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/diagnosis.h"
#include "store/store_sql.h"
#include "analysis/ledger.h"
#include "analysis/timeline.h"
#include "report_synth.h"
#include "fixture_temp.h"
#include "fixture_timeline.h"
#include "fixture_sql.h"
#include "support_test_main.h"

static void union_merges_across_streams(void **state) {
  (void)state;
  struct gw_interval iv[] = {{50, 60}, {0, 10}, {5, 20}, {20, 25}, {40, 45}};
  size_t n = gw_interval_union(iv, 5);
  assert_int_equal(n, 3);
  assert_int_equal(iv[0].start_ns, 0);
  assert_int_equal(iv[0].end_ns, 25);
  assert_int_equal(gw_interval_total_ns(iv, n, 0, 100), 25 + 5 + 10);
  assert_int_equal(gw_interval_total_ns(iv, n, 42, 55), 3 + 5);
  struct gw_interval b[] = {{0, 5}, {44, 100}};
  assert_int_equal(gw_interval_uncovered_ns(iv, n, b, 2), 20 + 4 + 0);
}

static void gaps_are_classified(void **state) {
  (void)state;
  /* kernels with 5 us launch gaps, one 1 ms gap ending in an H2D copy, one
   * 2 ms gap with nothing, and NCCL time partly overlapped */
  struct gw_interval k[] = {{0, 10000}, {15000, 20000}, {1025000, 1030000}, {3030000, 3040000}};
  struct gw_interval h2d[] = {{1020000, 1025000}};
  struct gw_interval nccl[] = {{3035000, 3050000}};
  struct gw_gap_split sp;
  struct gw_timeline_input in = fixture_timeline(k, 4, 3050000);
  in.nccl = nccl;
  in.nnccl = 1;
  in.h2d = h2d;
  in.nh2d = 1;
  gw_timeline_split(&in, &sp);
  /* the copy runs alone: its 5 us are input time, not busy time */
  assert_int_equal(sp.busy_ns, 10000 + 5000 + 5000 + 10000);
  assert_int_equal(sp.comm_ns, 10000);
  assert_int_equal(sp.idle_launch_ns, 5000);
  assert_int_equal(sp.idle_input_ns, 1000000 + 5000);
  assert_int_equal(sp.idle_other_ns, 2000000);
  assert_int_equal(sp.busy_ns + sp.comm_ns + sp.idle_launch_ns + sp.idle_input_ns + sp.idle_other_ns, 3050000);
}

static void host_issue_gaps_are_launch_time(void **state) {
  (void)state;
  /* Three gaps: in the first (100 us) the host calls CUDA at least every
   * 30 us, in the second (100 us) it is quiet for 70 us at most, in the third
   * (370 us) it makes one call and is then quiet for 360 us (preparing
   * something else). With a 200 us bound the first two are launch time. */
  struct gw_interval k[] = {{0, 10000}, {110000, 120000}, {220000, 230000}, {600000, 610000}};
  struct gw_interval api[] = {{20000, 25000},   {55000, 60000},   {85000, 90000},  {105000, 109000},
                              {125000, 130000}, {200000, 215000}, {235000, 240000}};
  struct gw_gap_split sp;
  struct gw_timeline_input in = fixture_timeline(k, 4, 610000);
  in.api = api;
  in.napi = 7;
  in.host_quiet_max_ns = 200000;
  gw_timeline_split(&in, &sp);
  assert_int_equal(sp.host_issue_ns, 200000);
  assert_int_equal(sp.idle_launch_ns, 200000);
  assert_int_equal(sp.idle_other_ns, 370000);
  /* a 60 us bound: the second gap's 70 us quiet stretch no longer counts */
  in.host_quiet_max_ns = 60000;
  gw_timeline_split(&in, &sp);
  assert_int_equal(sp.host_issue_ns, 100000);
  assert_int_equal(sp.idle_other_ns, 470000);
}

static void sync_gaps_are_classified(void **state) {
  (void)state;
  /* 1: the host waits in a sync while the GPU drains (the sync returns 5 us
   * after the last kernel), then calls CUDA every few us until the next
   * kernel 40 us later: sync. 2: a sync is open when the GPU runs dry, but
   * the host then goes quiet for 2 ms (busy elsewhere): other. 3: a 10 us gap
   * whose last sync ended 20 us before it: launch. 4: a gap that ends in a
   * host-to-device copy stays input even with a sync open. */
  struct gw_interval k[] = {{0, 100000}, {140000, 150000}, {2150000, 2160000}, {2170000, 2180000}, {2300000, 2310000}};
  struct gw_interval api[] = {{106000, 110000}, {120000, 125000}, {130000, 139000}};
  struct gw_interval syncs[] = {{50000, 105000}, {145000, 152000}, {2100000, 2140000}, {2175000, 2185000}};
  struct gw_interval h2d[] = {{2290000, 2300000}};
  struct gw_gap_split sp;
  struct gw_timeline_input in = fixture_timeline(k, 5, 2310000);
  in.h2d = h2d;
  in.nh2d = 1;
  in.api = api;
  in.napi = 3;
  in.syncs = syncs;
  in.nsyncs = 4;
  in.sync_slack_ns = 10000;
  gw_timeline_split(&in, &sp);
  assert_int_equal(sp.idle_sync_ns, 40000);
  assert_int_equal(sp.sync_gaps, 1);
  assert_int_equal(sp.idle_other_ns, 2000000);
  assert_int_equal(sp.idle_launch_ns, 10000);
  assert_int_equal(sp.idle_input_ns, 110000 + 10000);
  assert_int_equal(sp.busy_ns + sp.idle_sync_ns + sp.idle_other_ns + sp.idle_launch_ns + sp.idle_input_ns, 2310000);
  /* Without the sync list the first gap is the host issuing work. */
  in.syncs = NULL;
  in.nsyncs = 0;
  gw_timeline_split(&in, &sp);
  assert_int_equal(sp.idle_sync_ns, 0);
  assert_int_equal(sp.host_issue_ns, 40000);
}

static void windows_are_split_one_by_one(void **state) {
  (void)state;
  /* Two windows. The first holds two kernels 50 us apart (nothing explains
   * the gap: other); a kernel across its end is left out. The second holds
   * two kernels 5 us apart (launch). Each is measured from its first kernel
   * to its last. */
  struct gw_interval k[] = {
      {100000, 200000}, {250000, 300000}, {900000, 1100000}, {2100000, 2200000}, {2205000, 2300000}};
  struct gw_interval win[] = {{0, 1000000}, {2000000, 3000000}};
  struct gw_timeline_input in = fixture_timeline(k, 5, 0);
  in.sync_slack_ns = 10000;
  struct gw_gap_split sp;
  assert_int_equal(gw_timeline_split_windows(&in, win, 2, &sp), 200000 + 200000);
  assert_int_equal(sp.busy_ns, 150000 + 195000);
  assert_int_equal(sp.idle_other_ns, 50000);
  assert_int_equal(sp.idle_launch_ns, 5000);
  assert_int_equal(k[2].start_ns, 900000); /* the caller's lists stay as they were */
  /* no work inside any window */
  struct gw_interval empty[] = {{5000000, 6000000}};
  assert_int_equal(gw_timeline_split_windows(&in, empty, 1, &sp), 0);
  assert_int_equal(sp.busy_ns, 0);
}

static double row_sum_pct(const struct gw_ledger *l) {
  double s = 0;
  for (int r = 0; r < GW_LEDGER_NROWS; r++)
    s += l->row_ns[r];
  return s / (double)l->wall_ns * 100;
}

static struct gw_diagnosis *diagnose(const char *path) {
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose_file(path, &dx, &err), GW_OK);
  return dx;
}

/* Writes a synthetic recording of one GPU's shape for seconds to path and
 * reads its diagnosis. */
static struct gw_diagnosis *diagnose_shape(const char *path, double seconds, synth_gpu_fn gpu, synth_host_fn host) {
  assert_int_equal(synth_write(path, 1, seconds, 0, gpu, host), 0);
  return diagnose(path);
}

static void counter_ledger_sums_to_100_and_cuts_startup(void **state) {
  (void)state;
  char path[] = "/tmp/gw_ledger_XXXXXX";
  fixture_temp_file(path);
  synth_gpu_fn gpus[] = {gpu_storm, gpu_gemm, gpu_starved};
  synth_host_fn hosts[] = {host_storm, host_gemm, host_starved};
  for (int s = 0; s < 3; s++) {
    struct gw_diagnosis *dx = diagnose_shape(path, 30, gpus[s], hosts[s]);
    const struct gw_ledger *l = &dx->ledgers[0];
    assert_false(l->from_timeline);
    assert_float_equal(row_sum_pct(l), 100, 0.1);
    assert_int_equal(l->wall_ns, 30 * 1000000000LL);
    /* the idle start-up seconds are their own row, not a class */
    assert_float_equal(l->row_ns[GW_ROW_STARTUP] / 1e9, SYNTH_STARTUP_S, 0.11);
    assert_int_equal(l->active_start_ns, SYNTH_T0_NS + (int64_t)(SYNTH_STARTUP_S * 1e9));
    assert_false(l->measured[GW_ROW_IDLE_SYNC]);
    gw_diagnosis_free(dx);
  }
  /* the GEMM at the power cap: throttled time is all power cap, productive
   * is SM activity x clock ratio */
  struct gw_diagnosis *dx = diagnose_shape(path, 30, gpu_gemm, host_gemm);
  const struct gw_ledger *l = &dx->ledgers[0];
  double active = gw_ledger_active_ns(l);
  assert_float_equal(l->row_ns[GW_ROW_PRODUCTIVE] / active, 0.955 * 1410 / 1980, 0.01);
  assert_float_equal(l->throttled_power_cap_ns, l->row_ns[GW_ROW_THROTTLED], 1);
  gw_diagnosis_free(dx);
  /* starved: the idle time lands in idle: input */
  dx = diagnose_shape(path, 30, gpu_starved, host_starved);
  l = &dx->ledgers[0];
  assert_true(l->row_ns[GW_ROW_IDLE_INPUT] / gw_ledger_active_ns(l) > 0.8);
  gw_diagnosis_free(dx);
  unlink(path);
}

/* A set-up blip, 3.5 s of nothing, then the run. GPM's 1 s window ending at
 * the run's first kernel spreads its value over the second before it, where
 * GPU-Util reads 0: that second is not work, so the pause stays 3.5 s and the
 * blip stays out of the run. (Measured on the H200: hook_suite/sweep_bs2048,
 * the tracer's start-up blip at 5%.) */
static void smeared_gpm_second_does_not_join_a_setup_blip(void **state) {
  (void)state;
  enum { N = 120 };
  int64_t t[N];
  double util[N], sm[N];
  for (size_t i = 0; i < N; i++) {
    t[i] = (int64_t)i * 100000000;
    util[i] = i < 2 ? 5 : i < 37 ? 0 : 90; /* blip at 0-0.1 s, run from 3.7 s */
    sm[i] = i >= 27 && i < 37 ? 15 : i >= 37 ? 80 : NAN;
  }
  struct gw_gpu_series g;
  memset(&g, 0, sizeof g);
  g.n = N;
  g.t_ns = t;
  struct gw_value_column util_col = {.n = N, .raw = util}, sm_col = {.n = N, .raw = sm};
  g.m[GW_M_util_gpu_pct] = &util_col;
  g.m[GW_M_sm_active_pct] = &sm_col;
  size_t first = 0, last = 0;
  assert_true(gw_working_span(&g, &first, &last));
  assert_int_equal(first, 37);
  assert_int_equal(last, N - 1);
  /* the same pause measured by SM activity alone (no GPU-Util) is 2.6 s, and
   * a run with pauses that short may be a starved one: the blip stays in */
  g.m[GW_M_util_gpu_pct] = NULL;
  for (size_t i = 0; i < 2; i++)
    sm[i] = 5;
  assert_true(gw_working_span(&g, &first, &last));
  assert_int_equal(first, 0);
}

/* No tick reaches 5% GPU-Util, no SM activity and no step: a GPU starved by
 * a slow loader reads 1-4% for as long as the job runs (H100,
 * weak_spots_h100/ws_loader_latency_threads without its steps). A set-up
 * blip of 0.2 s before it stays out; the trickle is the run. A blip alone is
 * no run. */
static void a_starved_trickle_is_the_run(void **state) {
  (void)state;
  enum { N = 250 };
  int64_t t[N];
  double util[N];
  for (size_t i = 0; i < N; i++) {
    t[i] = (int64_t)i * 100000000;
    util[i] = (i == 57 || i == 58) ? 2 : (i >= 130 && i < 230 && i % 4 < 2) ? 1 + (double)(i % 3) : 0;
  }
  struct gw_gpu_series g;
  memset(&g, 0, sizeof g);
  g.n = N;
  g.t_ns = t;
  struct gw_value_column util_col = {.n = N, .raw = util};
  g.m[GW_M_util_gpu_pct] = &util_col;
  struct gw_recording rec;
  memset(&rec, 0, sizeof rec);
  rec.ngpus = 1;
  rec.gpus = &g;
  size_t first = 0, last = 0;
  assert_false(gw_working_span(&g, &first, &last));
  assert_true(gw_steady_span(&rec, 0, &first, &last));
  assert_int_equal(first, 132); /* the first tick with a kernel resident */
  assert_int_equal(last, 229);
  for (size_t i = 130; i < N; i++) /* the blip alone: set-up with nothing after it */
    util[i] = 0;
  assert_false(gw_steady_span(&rec, 0, &first, &last));
}

static void no_gpu_data_is_no_verdict(void **state) {
  (void)state;
  char path[] = "/tmp/gw_ledger_XXXXXX";
  fixture_temp_file(path);
  assert_int_equal(synth_write(path, 0, 5, 0, gpu_gemm, host_gemm), 0);
  struct gw_diagnosis *dx = diagnose(path);
  assert_string_equal(dx->verdict, "no_data");
  assert_int_equal(dx->nfindings, 0);
  gw_diagnosis_free(dx);
  unlink(path);
}

/* With a kernel table holding rows, busy time and gaps come from it. */
static void timeline_replaces_counter_estimate(void **state) {
  (void)state;
  char path[] = "/tmp/gw_ledger_XXXXXX";
  fixture_temp_file(path);
  assert_int_equal(synth_write(path, 1, 10, 0, gpu_gemm, host_gemm), 0);
  struct gw_store *st;
  struct gw_err err;
  assert_int_equal(gw_store_open(&st, path, 0, &err), GW_OK);
  sqlite3 *db = gw_store_db(st);
  /* The tracer tables exist in every recording; fill them as the tracer would. */
  /* 5 s to 9 s: 400 ms periods of 300 ms kernel, 100 ms gap ending in an H2D copy of 10 ms */
  sqlite3_stmt *k = fixture_prepare(db, "INSERT INTO kernel (pid, device, stream, start_ns, end_ns, nccl)"
                                        " VALUES (1, 0, 7, ?, ?, 0)");
  sqlite3_stmt *c = fixture_prepare(db, "INSERT INTO memcpy (pid, device, start_ns, end_ns, copy_kind)"
                                        " VALUES (1, 0, ?, ?, 1)");
  for (int i = 0; i < 10; i++) {
    int64_t t = SYNTH_T0_NS + 5000000000LL + i * 400000000LL;
    sqlite3_bind_int64(k, 1, t);
    sqlite3_bind_int64(k, 2, t + 300000000LL);
    assert_int_equal(sqlite3_step(k), SQLITE_DONE);
    sqlite3_reset(k);
    sqlite3_bind_int64(c, 1, t + 390000000LL);
    sqlite3_bind_int64(c, 2, t + 400000000LL);
    assert_int_equal(sqlite3_step(c), SQLITE_DONE);
    sqlite3_reset(c);
  }
  sqlite3_finalize(k);
  sqlite3_finalize(c);
  gw_store_close(st);

  struct gw_diagnosis *dx = diagnose(path);
  const struct gw_ledger *l = &dx->ledgers[0];
  assert_true(l->from_timeline);
  assert_float_equal(row_sum_pct(l), 100, 0.1);
  double busy = l->row_ns[GW_ROW_PRODUCTIVE] + l->row_ns[GW_ROW_THROTTLED] + l->row_ns[GW_ROW_UNDERFILLED];
  /* 10 kernels of 300 ms + 10 host-to-device copies of 10 ms with no kernel
   * beside them (input time, like the 80 ms gaps that end in them); the last
   * copy ends the span at 9 s, so 5 s before and 1 s after are start-up and tail */
  assert_float_equal(busy / 1e9, 3.0, 1e-6);
  assert_float_equal(l->row_ns[GW_ROW_IDLE_INPUT] / 1e9, 1.0, 1e-6);
  assert_float_equal(l->row_ns[GW_ROW_STARTUP] / 1e9, 6.0, 1e-6);
  gw_diagnosis_free(dx);
  unlink(path);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(union_merges_across_streams),
    cmocka_unit_test(gaps_are_classified),
    cmocka_unit_test(host_issue_gaps_are_launch_time),
    cmocka_unit_test(sync_gaps_are_classified),
    cmocka_unit_test(windows_are_split_one_by_one),
    cmocka_unit_test(counter_ledger_sums_to_100_and_cuts_startup),
    cmocka_unit_test(no_gpu_data_is_no_verdict),
    cmocka_unit_test(timeline_replaces_counter_estimate),
    cmocka_unit_test(smeared_gpm_second_does_not_join_a_setup_blip),
    cmocka_unit_test(a_starved_trickle_is_the_run),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
