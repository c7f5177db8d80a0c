#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/series.h"
#include "store/store_sql.h"
#include "analysis/sm_fill.h"
#include "report_synth.h"
#include "store/store_trace.h"
#include "support_test_main.h"

/* An H200 as CUPTI 13 describes it (compute capability 9.0). */
static const struct gw_sm_limits H200 = {.sm_count = 132,
                                         .max_warps_per_sm = 64,
                                         .max_blocks_per_sm = 32,
                                         .max_regs_per_sm = 65536,
                                         .max_shmem_per_sm_bytes = 233472,
                                         .threads_per_warp = 32,
                                         .cc_major = 9,
                                         .cc_minor = 0};

static struct gw_occupancy occ(int64_t blocks, int threads, int regs, int64_t shmem) {
  struct gw_launch_config c = {
      .blocks = blocks, .threads_per_block = threads, .regs_per_thread = regs, .shmem_bytes = shmem};
  return gw_occupancy_of(&H200, &c);
}

/* A launch and the occupancy it must have; -1 or NAN: not checked. */
struct occ_case {
  int64_t blocks;
  int threads, regs;
  int64_t shmem;
  int blocks_per_sm, limiter;
  double occupancy_pct, sm_active_share, waves, warp_occupancy_share;
};

#define UNCHECKED NAN

/* One block of 128 threads: 16 could sit on an SM (64 warps / 4), but it
 * keeps one SM of 132 busy. */
static const struct occ_case ONE_BLOCK_FILLS_ONE_SM = {
    1, 128, 32, 0, 16, GW_OCC_LIMIT_WARPS, 100.0, 1.0 / 132, 1.0 / (132 * 16), 4.0 / (132 * 64)};

/* 132 blocks: every SM holds one, so SM activity is full while occupancy
 * is one block's warps. */
static const struct occ_case ONE_BLOCK_PER_SM = {132, 256, 0, 0, -1, -1, UNCHECKED, 1.0, UNCHECKED, 8.0 / 64};

/* 255 registers per thread: 8160 per warp, allocated as 8192, so 8 warps
 * per SM, two blocks of 4 warps. */
static const struct occ_case REGISTERS_LIMIT = {1000, 128,       255,       0,        2, GW_OCC_LIMIT_REGS,
                                                12.5, UNCHECKED, UNCHECKED, UNCHECKED};

/* 48 KiB of shared memory per block plus the 1 KiB the system keeps: 4 of
 * them fit in 228 KiB. */
static const struct occ_case SHARED_MEMORY_LIMITS = {1000,      128,       0,         49152,    4, GW_OCC_LIMIT_SHMEM,
                                                     UNCHECKED, UNCHECKED, UNCHECKED, UNCHECKED};

/* Tiny blocks hit the 32-blocks-per-SM cap before the warps run out. */
static const struct occ_case BLOCK_CAP_LIMITS = {100000, 32,        16,        0,        32, GW_OCC_LIMIT_BLOCKS,
                                                 50.0,   UNCHECKED, UNCHECKED, UNCHECKED};

/* 1024-thread blocks: 2 per SM, 264 per wave. 330 blocks are 1.25 waves:
 * the second wave's 66 blocks hold half the SMs, so over the two waves
 * 75% of the SM time is active. */
static const struct occ_case PARTIAL_LAST_WAVE = {330, 1024, 0, 0, 2, -1, UNCHECKED, 0.75, 1.25, UNCHECKED};

static void occupancy(void **state) {
  const struct occ_case *c = *state;
  struct gw_occupancy o = occ(c->blocks, c->threads, c->regs, c->shmem);
  if (c->blocks_per_sm >= 0)
    assert_int_equal(o.blocks_per_sm, c->blocks_per_sm);
  if (c->limiter >= 0)
    assert_int_equal(o.limiter, c->limiter);
  if (!isnan(c->occupancy_pct))
    assert_float_equal(o.occupancy_pct, c->occupancy_pct, 1e-9);
  if (!isnan(c->sm_active_share))
    assert_float_equal(o.sm_active_share, c->sm_active_share, 1e-12);
  if (!isnan(c->waves))
    assert_float_equal(o.waves, c->waves, 1e-12);
  if (!isnan(c->warp_occupancy_share))
    assert_float_equal(o.warp_occupancy_share, c->warp_occupancy_share, 1e-12);
}

static void unusable_input(void **state) {
  (void)state;
  struct gw_sm_limits none = {0};
  struct gw_launch_config c = {.blocks = 10, .threads_per_block = 128};
  assert_int_equal(gw_occupancy_of(&none, &c).blocks_per_sm, 0);
  assert_int_equal(occ(0, 128, 0, 0).blocks_per_sm, 0);
  /* more shared memory than an SM has: the kernel ran, so one block is counted */
  assert_int_equal(occ(10, 128, 0, 1 << 20).blocks_per_sm, 1);
  assert_string_equal(gw_sm_activity_source_name(GW_SM_SOURCE_LAUNCH_CONFIG), "launch_config");
  assert_string_equal(gw_sm_activity_source_name(GW_SM_SOURCE_NONE), "none");
}

static void gpu_busy(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  o->util = t >= 1.0 ? 100 : 0;
  o->sm = 50;
}

static void exec_sql(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    fail_msg("%s: %s", sql, msg);
}

/* Writes a 4 s recording without GPM, a full trace with the H200's limits
 * and kernels: second 1 one 1-block kernel, second 2 a full grid, second 3
 * two full grids at once (still 100%, never more). */
static void write_traced(const char *path, int with_device, const char *mode, double win_a_s, double win_b_s) {
  assert_int_equal(synth_write(path, 1, 4.0, 1, gpu_busy, NULL), 0);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  struct gw_err err;
  assert_int_equal(gw_store_trace_create_tables(db, &err), GW_OK);
  char sql[2048];
  long long t0 = SYNTH_T0_NS, s = 1000000000LL;
  snprintf(sql, sizeof sql,
           "INSERT INTO trace_process VALUES (77, %lld, 130001, '%s', 1000, 2000, '1.1');"
           "INSERT INTO trace_window VALUES (77, %lld, %lld, '%s', 1);"
           "INSERT INTO kernel (pid, device, start_ns, end_ns, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
           " regs, shmem_bytes) VALUES"
           " (77, 0, %lld, %lld, 1, 1, 1, 128, 1, 1, 32, 0),"
           " (77, 0, %lld, %lld, 264, 1, 1, 1024, 1, 1, 32, 0),"
           " (77, 0, %lld, %lld, 264, 1, 1, 1024, 1, 1, 32, 0),"
           " (77, 0, %lld, %lld, 132, 2, 1, 256, 1, 1, 32, 0);",
           t0, mode, t0 + (long long)(win_a_s * 1e9), t0 + (long long)(win_b_s * 1e9), mode, t0 + s, t0 + 2 * s,
           t0 + 2 * s, t0 + 3 * s, t0 + 3 * s, t0 + 4 * s - 1, t0 + 3 * s, t0 + 4 * s - 1);
  exec_sql(db, sql);
  if (with_device)
    exec_sql(db, "INSERT INTO trace_device VALUES (77, 0, 132, 64, 32, 65536, 65536, 233472, 49152, 1024, 32, 9, 0,"
                 " 1980000)");
  sqlite3_close(db);
}

/* A free name for a recording (mkstemp's, the file removed again). */
static void fresh_path(char *path) {
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
}

static double tick_at(const struct gw_gpu_series *g, enum gw_gpu_metric m, double t_s) {
  size_t i = gw_series_nearest_tick(g, SYNTH_T0_NS + (int64_t)(t_s * 1e9));
  return gw_column_at(g->m[m], i);
}

/* A tick of GPU 0 to check: metric m at t_s reads want (NAN: unknown)
 * within tol. */
struct tick_expect {
  enum gw_gpu_metric m;
  double t_s, want, tol;
};

/* Loads the recording at path and checks where GPU 0's SM activity comes
 * from and the ticks (n of them, or up to the first row left empty: tol 0). */
static void check_recording(const char *path, enum gw_sm_activity_source source, const struct tick_expect *e,
                            size_t n) {
  struct gw_recording *rec = NULL;
  struct gw_err err;
  assert_int_equal(gw_recording_load(path, &rec, &err), GW_OK);
  const struct gw_gpu_series *g = &rec->gpus[0];
  assert_int_equal(g->sm_activity_source, source);
  for (size_t i = 0; i < n && e[i].tol > 0; i++) {
    double got = tick_at(g, e[i].m, e[i].t_s);
    if (isnan(e[i].want))
      assert_true(isnan(got));
    else
      assert_float_equal(got, e[i].want, e[i].tol);
  }
  gw_recording_free(rec);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void estimate_from_recording(void **state) {
  (void)state;
  char path[] = "/tmp/gw_sm_fill_XXXXXX";
  fresh_path(path);
  write_traced(path, 1, "full", 0, 4);
  static const struct tick_expect ticks[] = {
      {GW_M_sm_active_pct, 0.5, 0.0, 1e-9},
      {GW_M_sm_active_pct, 1.5, 100.0 / 132, 1e-6},
      {GW_M_sm_active_pct, 2.5, 100.0, 1e-6},
      {GW_M_sm_active_pct, 3.5, 100.0, 1e-6},
      /* occupancy: a full grid of 1024-thread blocks, 2 per SM = 64 of 64 warps */
      {GW_M_sm_occupancy_pct, 2.5, 100.0, 1e-6},
  };
  check_recording(path, GW_SM_SOURCE_LAUNCH_CONFIG, ticks, COUNT(ticks));
  /* The report names the source, in JSON and in a note of the text. */
  for (int json = 1; json >= 0; json--) {
    FILE *out = tmpfile();
    assert_non_null(out);
    struct gw_report_opts opts = {json ? GW_REPORT_JSON : GW_REPORT_TEXT, 0};
    char msg[512];
    assert_int_equal(gw_report_file(path, &opts, out, msg, sizeof msg), 0);
    static char text[1 << 20];
    rewind(out);
    text[fread(text, 1, sizeof text - 1, out)] = 0;
    fclose(out);
    assert_non_null(strstr(text, json ? "\"sm_activity_source\": \"launch_config\"" : "launch configurations"));
  }
  unlink(path);

  /* Without the GPU's limits there is no estimate: the source is none. */
  write_traced(path, 0, "full", 0, 4);
  static const struct tick_expect unknown[] = {{GW_M_sm_active_pct, 2.5, NAN, 1}};
  check_recording(path, GW_SM_SOURCE_NONE, unknown, COUNT(unknown));
  unlink(path);
}

/* A sampled trace with one window: where it lies, and what the recording
 * then reads. */
struct window_case {
  double win_a_s, win_b_s;
  struct tick_expect ticks[6];
};

/* A window at 2.0-2.2 s, a 2 s period. The window's estimate holds for half
 * a period either way; further away the ticks stay unknown. */
static const struct window_case SAMPLED_WINDOW_HOLDS = {2.0,
                                                        2.2,
                                                        {
                                                            {GW_M_sm_active_pct, 2.1, 100.0, 1e-6},
                                                            {GW_M_sm_active_pct, 1.5, 100.0, 1e-6},
                                                            {GW_M_sm_active_pct, 2.9, 100.0, 1e-6},
                                                            {GW_M_sm_active_pct, 0.5, NAN, 1},
                                                            {GW_M_sm_active_pct, 3.5, NAN, 1},
                                                        }};

/* A window that caught the GPU idle (at 0.2-0.4 s, before the work starts
 * at 1 s) has no kernel mix to lend: the busy ticks around it stay unknown
 * instead of reading 0% SM activity under 100% GPU-Util (which read as a
 * storm of tiny kernels: launch_overhead on a run without one). */
static const struct window_case IDLE_WINDOW_HOLDS_NOTHING = {0.2,
                                                             0.4,
                                                             {
                                                                 {GW_M_sm_active_pct, 0.3, 0.0, 1e-9},
                                                                 {GW_M_sm_active_pct, 1.1, NAN, 1},
                                                                 {GW_M_sm_occupancy_pct, 1.1, NAN, 1},
                                                             }};

static void sampled_window(void **state) {
  const struct window_case *c = *state;
  char path[] = "/tmp/gw_sm_fill_XXXXXX";
  fresh_path(path);
  write_traced(path, 1, "sampled", c->win_a_s, c->win_b_s);
  check_recording(path, GW_SM_SOURCE_LAUNCH_CONFIG, c->ticks, COUNT(c->ticks));
  unlink(path);
}

/* PM sampling measured it: 10 ms samples at 40% active cycles from 1 s to
 * 3 s; it comes before the launch-configuration estimate. */
static void pm_sampling_first(void **state) {
  (void)state;
  char path[] = "/tmp/gw_sm_fill_XXXXXX";
  fresh_path(path);
  write_traced(path, 1, "full", 0, 4);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  exec_sql(db, "BEGIN");
  for (int i = 0; i < 200; i++) {
    char sql[256];
    long long a = SYNTH_T0_NS + 1000000000LL + i * 10000000LL;
    snprintf(sql, sizeof sql, "INSERT INTO pm_sample VALUES (77, 0, %lld, %lld, 4.0e6, 1.0e7)", a, a + 10000000LL);
    exec_sql(db, sql);
  }
  exec_sql(db, "COMMIT");
  sqlite3_close(db);
  static const struct tick_expect ticks[] = {
      {GW_M_sm_active_pct, 2.5, 40.0, 1e-6},
      {GW_M_sm_active_pct, 3.5, NAN, 1},
  };
  check_recording(path, GW_SM_SOURCE_PM_SAMPLING, ticks, COUNT(ticks));
  unlink(path);
}

/* GPM present: it stays the source, untouched by the estimate. */
static void gpm_wins(void **state) {
  (void)state;
  char path[] = "/tmp/gw_sm_fill_XXXXXX";
  fresh_path(path);
  assert_int_equal(synth_write(path, 1, 2.0, 0, gpu_busy, NULL), 0);
  static const struct tick_expect ticks[] = {{GW_M_sm_active_pct, 1.5, 50.0, 1e-9}};
  check_recording(path, GW_SM_SOURCE_GPM, ticks, COUNT(ticks));
  unlink(path);
}

static const struct CMUnitTest tests[] = {
    {"one_block_fills_one_sm", occupancy, NULL, NULL, (void *)&ONE_BLOCK_FILLS_ONE_SM},
    {"one_block_per_sm", occupancy, NULL, NULL, (void *)&ONE_BLOCK_PER_SM},
    {"registers_limit", occupancy, NULL, NULL, (void *)&REGISTERS_LIMIT},
    {"shared_memory_limits", occupancy, NULL, NULL, (void *)&SHARED_MEMORY_LIMITS},
    {"block_cap_limits", occupancy, NULL, NULL, (void *)&BLOCK_CAP_LIMITS},
    {"partial_last_wave", occupancy, NULL, NULL, (void *)&PARTIAL_LAST_WAVE},
    cmocka_unit_test(unusable_input),
    cmocka_unit_test(estimate_from_recording),
    {"sampled_window_holds", sampled_window, NULL, NULL, (void *)&SAMPLED_WINDOW_HOLDS},
    {"idle_window_holds_nothing", sampled_window, NULL, NULL, (void *)&IDLE_WINDOW_HOLDS_NOTHING},
    cmocka_unit_test(pm_sampling_first),
    cmocka_unit_test(gpm_wins),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
