#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "analysis/diagnosis.h"
#include "analysis/rules.h"
#include "report_synth.h"
#include "support_gpu_tick.h"
#include "support_findings.h"
#include "support_test_main.h"

static char g_path[64];

/* The synthetic recording, then sql (NULL: none) run on it, then the diagnosis. */
static struct gw_diagnosis *run_sql(int ngpus, double seconds, int no_gpm, synth_gpu_fn gf, synth_host_fn hf,
                                    const char *sql) {
  gw_strlcpy(g_path, "/tmp/gw_rules_XXXXXX", sizeof g_path);
  int fd = mkstemp(g_path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(synth_write(g_path, ngpus, seconds, no_gpm, gf, hf), 0);
  if (sql) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(g_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
  }
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose_file(g_path, &dx, &err), GW_OK);
  unlink(g_path);
  double sum = 0;
  for (int r = 0; r < GW_LEDGER_NROWS; r++)
    sum += dx->total.row_ns[r];
  if (dx->total.wall_ns)
    assert_float_equal(sum / (double)dx->total.wall_ns, 1, 0.001);
  return dx;
}

static struct gw_diagnosis *run(int ngpus, double seconds, int no_gpm, synth_gpu_fn gf, synth_host_fn hf) {
  return run_sql(ngpus, seconds, no_gpm, gf, hf, NULL);
}

static void storm_is_launch_overhead(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_storm, host_storm);
  assert_string_equal(dx->verdict, "launch_overhead");
  assert_true(dx->findings[0].share_of_lost > 0.8);
  assert_true(dx->findings[0].confidence >= 0.7);
  assert_null(support_finding(dx, "small_batch"));
  gw_diagnosis_free(dx);
}

static void gemm_at_power_cap_is_healthy(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_gemm, host_gemm);
  assert_string_equal(dx->verdict, "none");
  assert_int_equal(dx->nfindings, 0);
  /* the power cap is explained, not blamed */
  int said = 0;
  for (int i = 0; i < dx->ninterp; i++)
    said |= strcmp(dx->interp[i].id, "power_cap_not_fault") == 0;
  assert_true(said);
  gw_diagnosis_free(dx);
}

static void starved_is_input_pipeline(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_starved, host_starved);
  assert_string_equal(dx->verdict, "input_pipeline");
  assert_true(dx->findings[0].confidence >= 0.7);
  assert_true(dx->findings[0].nfixes >= 3);
  assert_true(dx->findings[0].nevidence >= 3);
  assert_null(support_finding(dx, "launch_overhead"));
  gw_diagnosis_free(dx);
}

/* A GPU-bound run whose first 2.5 s after start-up have a kernel resident
 * a moment (the weights uploaded, 4%) while the training process keeps a core
 * busy building the first batch and compiling, then runs at 95% to the end:
 * that stretch is set-up, done once, not an input pipeline that starves the
 * GPU (H100 logging_helper_0 without the hook: 0.8 s of it read as
 * input_pipeline 0.83). */
static void gpu_setup_then_busy(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (!synth_started(t, o))
    return;
  if (t < SYNTH_STARTUP_S + 2.5)
    synth_gpu_tick(o, 4, 3, 120, 1980, 0, 0, 2e6, 0.05);
  else
    synth_gpu_tick(o, 95, 85 + (synth_tick(t) % 3), 640, 1980, 0, 0, 2e7, 0.4);
}
static void host_one_core(double t, struct synth_host *o) {
  (void)t;
  synth_host_tick(o, 99, 1, 0, NAN);
}
static void setup_before_busy_gpu_is_not_input(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 20, 0, gpu_setup_then_busy, host_one_core);
  assert_true(dx->total.host_busy_lead_ns > 0);
  assert_float_equal(dx->total.host_busy_lead_ns, dx->total.host_busy_ns, 1e-6);
  assert_null(support_finding(dx, "input_pipeline"));
  gw_diagnosis_free(dx);
  /* a GPU that never runs busy: no set-up to set apart, the starved run stays input */
  dx = run(1, 40, 0, gpu_starved, host_starved);
  assert_float_equal(dx->total.host_busy_lead_ns, 0, 1e-9);
  assert_string_equal(dx->verdict, "input_pipeline");
  gw_diagnosis_free(dx);
}

/* A loop with no DataLoader whose main process keeps a core busy while the
 * GPU works 3% of the time (under thresholds.c launch_min_util_pct): the
 * hook's even 0.5 s steps say the loop makes
 * its batches itself (input_pipeline). Where each step met an input shape
 * never seen before, the same busy core is as much planning, tuning and
 * allocating for each new shape (H100 conv_sizes without samples read
 * input_pipeline 0.97): no input finding, and the note names the run that
 * would decide. */
static void gpu_mostly_idle(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (synth_started(t, o))
    synth_gpu_tick(o, 3, 2.5, 120, 1980, 0, 0, 2e6, 0.05);
}
static char *half_second_steps_sql(int new_shapes) {
  size_t cap = 1 << 16, len = 0;
  char *sql = malloc(cap);
  assert_non_null(sql);
  len += (size_t)snprintf(sql, cap, "INSERT OR REPLACE INTO meta (key, value) VALUES ('python_hook_steps', '1');");
  int k = 0;
  for (long long t = SYNTH_T0_NS + 3500000000LL; t + 500000000LL < SYNTH_T0_NS + 39000000000LL; t += 500000000LL, k++) {
    len += (size_t)snprintf(sql + len, cap - len,
                            "INSERT INTO step (t_start_ns, t_end_ns, step, source, pid, shape) VALUES"
                            " (%lld, %lld, %d, 'python_hook', 1000, '32x3x%dx%d');",
                            t, t + 499000000LL, k, new_shapes ? 160 + k : 224, new_shapes ? 160 + k : 224);
    assert_true(len < cap);
  }
  return sql;
}
static void new_shape_steps_are_not_input_from_a_busy_core(void **state) {
  (void)state;
  char *sql = half_second_steps_sql(0);
  struct gw_diagnosis *dx = run_sql(1, 40, 0, gpu_mostly_idle, host_one_core, sql);
  free(sql);
  assert_true(dx->host.no_dataloader);
  assert_string_equal(dx->verdict, "input_pipeline");
  gw_diagnosis_free(dx);
  sql = half_second_steps_sql(1);
  dx = run_sql(1, 40, 0, gpu_mostly_idle, host_one_core, sql);
  free(sql);
  assert_true(dx->compile_shapes.first_visits > 60);
  assert_null(support_finding(dx, "input_pipeline"));
  assert_string_equal(dx->verdict, "unexplained");
  int noted = 0;
  for (int i = 0; i < dx->nnotes; i++)
    noted |= strcmp(dx->notes[i].id, "new_shapes_undecided") == 0;
  assert_true(noted);
  gw_diagnosis_free(dx);
}

/* The same even steps with no DataLoader and a busy core, but the main
 * thread measured beside the autograd thread: at 97% of a core against the
 * backward's 40% it used no more than launching the forward costs
 * (gw_rule_main_launching), so its core is the launches', not a batch's
 * (H200 tiny_mlp without samples, 1.77 ms steps holding a kernel 9% of the
 * time, read input_pipeline 0.97); at 97% against 5% it is the batch. */
static void host_makes_batches(double t, struct synth_host *o);
static void host_launches(double t, struct synth_host *o);
static void measured_launching_core_is_not_input(void **state) {
  (void)state;
  char *sql = half_second_steps_sql(0);
  struct gw_diagnosis *dx = run_sql(1, 40, 0, gpu_mostly_idle, host_launches, sql);
  assert_true(dx->host.main_per_backward_cpu < 8);
  assert_null(support_finding(dx, "input_pipeline"));
  gw_diagnosis_free(dx);
  dx = run_sql(1, 40, 0, gpu_mostly_idle, host_makes_batches, sql);
  free(sql);
  assert_true(dx->host.main_per_backward_cpu > 8);
  assert_string_equal(dx->verdict, "input_pipeline");
  gw_diagnosis_free(dx);
}

/* Without samples, the counters' launch finding keeps only the launch
 * time launches can have paced (gw_launch_claim_factor), as the samples'
 * does: the storm's even 0.5 s steps on one shape stay launch overhead;
 * the same steps each on a new shape, with no repeat to time one without
 * it, are host work for the shapes as much as launching (H100 conv_sizes
 * without samples read launch_overhead from 4 steps of 1.6 s). */
static void new_shape_steps_discount_counted_launches(void **state) {
  (void)state;
  char *sql = half_second_steps_sql(0);
  struct gw_diagnosis *dx = run_sql(1, 40, 0, gpu_storm, host_storm, sql);
  free(sql);
  assert_false(dx->measured);
  assert_string_equal(dx->verdict, "launch_overhead");
  gw_diagnosis_free(dx);
  sql = half_second_steps_sql(1);
  dx = run_sql(1, 40, 0, gpu_storm, host_storm, sql);
  free(sql);
  assert_null(support_finding(dx, "launch_overhead"));
  gw_diagnosis_free(dx);
}

/* One more thread busy in the process (a logger, the pin-memory thread):
 * the process reads above a core all the time. Where the launching threads
 * (main + autograd) were measured, they decide: saturated, the storm is
 * still launch overhead; at 30%, the same GPU signature is not blamed on
 * launching, while the process's CPU alone, standing in for them, would. */
static void host_storm_with_helper(double t, struct synth_host *o) {
  host_storm(t, o);
  o->launch_cpu = o->main_cpu;
  o->main_cpu += 100;
}
static void host_waiting_helper_unmeasured(double t, struct synth_host *o) {
  host_storm(t, o);
  o->main_cpu = t < SYNTH_STARTUP_S ? 60 : 130; /* launching 30% + the helper's core */
}
static void host_waiting_helper_measured(double t, struct synth_host *o) {
  host_waiting_helper_unmeasured(t, o);
  o->launch_cpu = t < SYNTH_STARTUP_S ? 60 : 30;
}
static void host_starved_with_helper(double t, struct synth_host *o) {
  host_starved(t, o);
  o->main_cpu = 25 + 100;
  o->main_running = 1;
  o->launch_cpu = 25;
}
static void busy_helper_thread_is_not_launch_overhead(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_storm, host_storm_with_helper);
  assert_string_equal(dx->verdict, "launch_overhead");
  gw_diagnosis_free(dx);
  dx = run(1, 40, 0, gpu_storm, host_waiting_helper_measured);
  assert_null(support_finding(dx, "launch_overhead"));
  assert_float_equal(dx->total.row_ns[GW_ROW_IDLE_LAUNCH], 0, 1e-9);
  gw_diagnosis_free(dx);
  dx = run(1, 40, 0, gpu_storm, host_waiting_helper_unmeasured);
  assert_non_null(support_finding(dx, "launch_overhead"));
  gw_diagnosis_free(dx);
  dx = run(1, 40, 0, gpu_starved, host_starved_with_helper);
  assert_string_equal(dx->verdict, "input_pipeline");
  assert_null(support_finding(dx, "launch_overhead"));
  gw_diagnosis_free(dx);
}

static int has_evidence(const struct gw_diagnosis *dx, const char *id) {
  for (int i = 0; i < dx->nfindings; i++)
    for (int e = 0; e < dx->findings[i].nevidence; e++)
      if (strcmp(dx->findings[i].evidence[e].id, id) == 0)
        return 1;
  return 0;
}

/* A loop that makes each batch in its training thread (numpy, no loader):
 * the GPU works a fifth of the time with its SMs well filled (no storm of
 * tiny kernels), the main thread keeps its core busy. Whether that core is
 * launching is told by the autograd thread that launches the backward: at
 * 5% of a core beside the main thread's 97% (H100, oos_numpy_prep: 94% and
 * 5%) the main thread's work is its own, the batch, not launches; at 40%
 * (a launch-bound MLP: 62% and 32%) launching paces the loop. */
static void gpu_host_paced(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (synth_started(t, o))
    synth_gpu_tick(o, 18 + 4 * (synth_tick(t) % 2), 14 + 2 * (synth_tick(t) % 3), 190, 1980, 0, 0, 4e8, 0.05);
}
static void host_makes_batches(double t, struct synth_host *o) {
  host_storm(t, o);
  o->main_cpu = o->main_thread_cpu = t < SYNTH_STARTUP_S ? 60 : 97;
  o->launch_cpu = t < SYNTH_STARTUP_S ? 62 : 102;
}
static void host_launches(double t, struct synth_host *o) {
  host_makes_batches(t, o);
  o->main_cpu = t < SYNTH_STARTUP_S ? 80 : 137;
  o->launch_cpu = t < SYNTH_STARTUP_S ? 80 : 137;
}
static void main_thread_beyond_the_backward_is_not_launching(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_host_paced, host_makes_batches);
  assert_true(dx->host.main_per_backward_cpu > 8);
  assert_string_equal(dx->verdict, "input_pipeline");
  assert_true(has_evidence(dx, "main_not_launching"));
  assert_null(support_finding(dx, "launch_overhead"));
  assert_float_equal(dx->total.row_ns[GW_ROW_IDLE_LAUNCH], 0, 1e-9);
  gw_diagnosis_free(dx);
  dx = run(1, 40, 0, gpu_host_paced, host_launches);
  assert_true(dx->host.main_per_backward_cpu < 8);
  assert_string_equal(dx->verdict, "launch_overhead");
  assert_false(has_evidence(dx, "main_not_launching"));
  gw_diagnosis_free(dx);
}

/* The GPU idles while the launching threads run 30% of a core and a thread
 * that launches nothing runs a whole one: in a Python program that thread
 * holds the interpreter lock the launcher waits for (schedule_shape, the
 * helper's work out of the process first). Not where the launching threads
 * were not measured (nothing tells the helper from them), not where the
 * input explains more of the idle time, not on two GPUs (NCCL's proxy
 * threads are busy by design). */
static void busy_helper_thread_stalls_the_loop(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_storm, host_waiting_helper_measured);
  const struct gw_finding *f = support_finding(dx, "schedule_shape");
  assert_non_null(f);
  assert_true(has_evidence(dx, "helper_threads_busy"));
  assert_string_equal(f->fixes[0].id, "schedule_shape.move_helper_thread");
  gw_diagnosis_free(dx);
  dx = run(1, 40, 0, gpu_storm, host_waiting_helper_unmeasured);
  assert_false(has_evidence(dx, "helper_threads_busy"));
  gw_diagnosis_free(dx);
  dx = run(1, 40, 0, gpu_starved, host_starved_with_helper);
  assert_false(has_evidence(dx, "helper_threads_busy"));
  gw_diagnosis_free(dx);
  dx = run(2, 40, 0, gpu_storm, host_waiting_helper_measured);
  assert_false(has_evidence(dx, "helper_threads_busy"));
  gw_diagnosis_free(dx);
}

/* A GPU without GPM: SM activity is NULL, never read as 0. */
static void no_gpm_lowers_confidence_and_says_so(void **state) {
  (void)state;
  struct gw_diagnosis *with = run(1, 40, 0, gpu_starved, host_starved);
  struct gw_diagnosis *without = run(1, 40, 1, gpu_starved, host_starved);
  assert_string_equal(without->verdict, "input_pipeline");
  assert_true(without->findings[0].confidence < with->findings[0].confidence);
  assert_false(without->profiles[0].has_sm);
  assert_true(isnan(without->profiles[0].sm_med_pct));
  int said = 0;
  for (int i = 0; i < without->nnotes; i++)
    said |= strncmp(without->notes[i].id, "sm_missing_", 11) == 0; /* "SM activity is unavailable" */
  assert_true(said);
  gw_diagnosis_free(with);
  gw_diagnosis_free(without);
  /* the GEMM without GPM must not turn into a finding either */
  struct gw_diagnosis *gemm = run(1, 40, 1, gpu_gemm, host_gemm);
  assert_string_equal(gemm->verdict, "none");
  gw_diagnosis_free(gemm);
}

/* Busy but underfilled: util 85%, SM 30%, memory mostly free. */
static void gpu_small(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (t < SYNTH_STARTUP_S)
    return synth_idle(o);
  synth_gpu_tick(o, 85 + 5 * ((long)(t * 10) % 2), 30 + 4 * ((long)(t * 10) % 3), 320, 1980, 0, 0, 5e7, 0.15);
}
static void host_small(double t, struct synth_host *o) {
  (void)t;
  synth_host_tick(o, 45, 1, 4, 30);
}

static void underfilled_is_small_batch(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_small, host_small);
  assert_string_equal(dx->verdict, "small_batch");
  int sweep = 0;
  for (int i = 0; i < dx->nexperiments; i++)
    sweep |= strstr(dx->experiments[i].what, "gpuwhy sweep --param bs=") != NULL;
  assert_true(sweep);
  gw_diagnosis_free(dx);
}

/* DDP with one rank doing 40% more work: util 94% on both, SM 88% vs 64%. */
static void gpu_ddp(int gpu, double t, struct synth_gpu *o) {
  if (t < SYNTH_STARTUP_S)
    return synth_idle(o);
  synth_gpu_tick(o, 94 + ((long)(t * 10) % 2), gpu == 0 ? 88 : 64, 695, gpu == 0 ? 1550 : 1955, 0x4 /* power cap */, 0,
                 1e7, 0.4);
}

static void straggler_is_multi_gpu_sync(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(2, 40, 0, gpu_ddp, host_gemm);
  assert_string_equal(dx->verdict, "multi_gpu_sync");
  assert_true(dx->ledgers[1].row_ns[GW_ROW_IDLE_COMM] > dx->ledgers[0].row_ns[GW_ROW_IDLE_COMM]);
  gw_diagnosis_free(dx);
}

/* Training at 90% with a 3 s evaluation every 12 s and a checkpoint write. */
static void gpu_eval(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (t < SYNTH_STARTUP_S)
    return synth_idle(o);
  double phase = fmod(t - SYNTH_STARTUP_S, 12.0);
  gpu_gemm(0, t, o);
  if (phase >= 9.0) {
    support_gpu_working(o, 30, 8, 200, 1980, 0);
  }
}
static void host_eval(double t, struct synth_host *o) {
  host_gemm(t, o);
  double phase = fmod(t - SYNTH_STARTUP_S, 12.0);
  o->disk_write_bps = phase >= 9.0 ? 8e8 : 1e6;
  o->disk_util = phase >= 9.0 ? 60 : 2;
}

static void eval_dips_are_schedule_shape(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 123, 0, gpu_eval, host_eval);
  assert_string_equal(dx->verdict, "schedule_shape");
  assert_true(dx->profiles[0].period.found);
  assert_float_equal(dx->profiles[0].period.period_s, 12.0, 0.3);
  assert_null(support_finding(dx, "input_pipeline"));
  gw_diagnosis_free(dx);
}

/* Thermal slowdown while busy plus an Xid: hardware first. */
static void gpu_hot(int gpu, double t, struct synth_gpu *o) {
  gpu_gemm(gpu, t, o);
  if (t >= SYNTH_STARTUP_S) {
    o->reasons = 0x40 | 0x20;
    o->clock_mhz = 990;
    o->power_w = 420;
  }
}

static void thermal_is_hardware_env(void **state) {
  (void)state;
  struct gw_diagnosis *dx = run(1, 40, 0, gpu_hot, host_gemm);
  assert_string_equal(dx->verdict, "hardware_env");
  assert_true(dx->findings[0].share_of_lost > 0.5);
  gw_diagnosis_free(dx);
}

/* A transformer fed inputs of a size drawn anew each step: the GPU busy
 * through every step (SMs 93% active, below its power limit), the steps
 * 10-90 ms long in no order, as the program's hook timed them. */
static void gpu_busy_below_limit(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (synth_started(t, o))
    synth_gpu_tick(o, 100, 93, 560, 1980, 0, 0, 5e6, 0.1);
}

static void host_one_busy_core(double t, struct synth_host *o) {
  (void)t;
  synth_host_tick(o, 100, 1, 0, NAN);
}

/* The hook's steps from 4 s to 38 s: lengths spread evenly over 10-90 ms
 * by a fixed linear congruential sequence (no period among them). */
static char *uneven_steps_sql(void) {
  size_t cap = 1 << 20, len = 0;
  char *sql = malloc(cap);
  assert_non_null(sql);
  uint32_t u = 12345;
  long long t = SYNTH_T0_NS + 4000000000LL;
  for (int k = 0; t < SYNTH_T0_NS + 38000000000LL; k++) {
    u = u * 1664525u + 1013904223u;
    long long d = 10000000LL + 1000LL * (long long)((u >> 8) % 80000u); /* 10-90 ms */
    len += (size_t)snprintf(sql + len, cap - len,
                            "INSERT INTO step (t_start_ns, t_end_ns, step, source, pid) VALUES"
                            " (%lld, %lld, %d, 'python_hook', 1000);",
                            t, t + d, k);
    assert_true(len < cap);
    t += d;
  }
  return sql;
}

/* Long steps that keep the GPU busy are the larger inputs' work, not a
 * stall: the time above the median step is not lost time, so no
 * schedule_shape finding claims it. */
static void uneven_busy_steps_are_not_lost(void **state) {
  (void)state;
  char *sql = uneven_steps_sql();
  struct gw_diagnosis *dx = run_sql(1, 40, 0, gpu_busy_below_limit, host_one_busy_core, sql);
  free(sql);
  assert_true(dx->steps.n > 600);
  assert_true(dx->steps.cv >= 0.3); /* uneven enough for the spread rule to look */
  assert_true(dx->steps.excess_share >= 0.1);
  assert_null(support_finding(dx, "schedule_shape"));
  gw_diagnosis_free(dx);
}

static void rule_table_has_six_fixed_ids(void **state) {
  (void)state;
  const char *ids[] = {"input_pipeline", "small_batch",  "launch_overhead",
                       "multi_gpu_sync", "hardware_env", "schedule_shape"};
  assert_int_equal(gw_nrules, 6);
  for (int i = 0; i < 6; i++) {
    assert_non_null(gw_rule_find(ids[i]));
    assert_string_equal(gw_rules[i]->id, ids[i]);
  }
  assert_null(gw_rule_find("nonsense"));
  assert_null(gw_rule_find("test_always")); /* the test-only seventh class stays out of the product */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(storm_is_launch_overhead),
    cmocka_unit_test(gemm_at_power_cap_is_healthy),
    cmocka_unit_test(starved_is_input_pipeline),
    cmocka_unit_test(no_gpm_lowers_confidence_and_says_so),
    cmocka_unit_test(underfilled_is_small_batch),
    cmocka_unit_test(straggler_is_multi_gpu_sync),
    cmocka_unit_test(eval_dips_are_schedule_shape),
    cmocka_unit_test(thermal_is_hardware_env),
    cmocka_unit_test(new_shape_steps_are_not_input_from_a_busy_core),
    cmocka_unit_test(new_shape_steps_discount_counted_launches),
    cmocka_unit_test(measured_launching_core_is_not_input),
    cmocka_unit_test(rule_table_has_six_fixed_ids),
    cmocka_unit_test(busy_helper_thread_is_not_launch_overhead),
    cmocka_unit_test(main_thread_beyond_the_backward_is_not_launching),
    cmocka_unit_test(setup_before_busy_gpu_is_not_input),
    cmocka_unit_test(busy_helper_thread_stalls_the_loop),
    cmocka_unit_test(uneven_busy_steps_are_not_lost),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
