/* compare, baseline and sweep on the real H200 recordings: the worked case
 * improves stage by stage with one change each, a run against itself shows no
 * change, the batch-size sweep stops rising at 1024, runs that differ in two
 * knobs get the warning, baselines round-trip, bad input is refused by name,
 * and the outputs match the goldens in tests/expected (GW_UPDATE_GOLDEN=1
 * rewrites them). */
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "compare/comparison.h"
#include "core/json_path.h"
#include "compare/run_summary.h"
#include "compare/run_load.h"
#include "fixture_sql.h"
#include "fixture_env.h"
#include "support_tmp_files.h"

static char g_scn[1024], g_tmp[64];

static int setup(void **state) {
  (void)state;
  const char *fx = getenv("GW_FIXTURES");
  if (!fx)
    return -1;
  snprintf(g_scn, sizeof g_scn, "%s/scenarios", fx);
  gw_strlcpy(g_tmp, "/tmp/gw_compare_XXXXXX", sizeof g_tmp);
  return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  return system(cmd) == 0 ? 0 : -1;
}

static void scn(const char *name, const char *ext, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/%s%s", g_scn, name, ext);
}

/* Copy scenario name to g_tmp/as.db (with its truth file when with_truth). */
static void copy_scenario(const char *name, const char *as, int with_truth, char *db, size_t cap) {
  char from[1200], to[1200];
  scn(name, ".db", from, sizeof from);
  snprintf(db, cap, "%s/%s.db", g_tmp, as);
  support_copy_file(from, db);
  if (with_truth) {
    scn(name, ".truth.json", from, sizeof from);
    snprintf(to, sizeof to, "%s/%s.truth.json", g_tmp, as);
    support_copy_file(from, to);
  }
}

static void sql(const char *db, const char *statement) {
  sqlite3 *h = NULL;
  assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec(h, statement, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    fprintf(stderr, "%s: %s\n", statement, msg ? msg : "?");
  sqlite3_free(msg);
  sqlite3_close(h);
  assert_int_equal(rc, SQLITE_OK);
}

static double truth_number(const char *name, const char *jpath) {
  char path[1200];
  scn(name, ".truth.json", path, sizeof path);
  struct gw_json_doc doc;
  struct gw_err err;
  assert_int_equal(gw_json_doc_load(path, 64L << 20, &doc, &err), GW_OK);
  double v = gw_json_number(gw_json_root(&doc), jpath);
  gw_json_doc_free(&doc);
  return v;
}

static void load(const char *name, struct gw_run_summary *s) {
  char path[1200];
  scn(name, ".db", path, sizeof path);
  struct gw_err err = {{0}};
  gw_status rc = gw_run_summary_load(path, s, &err);
  if (rc)
    fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, GW_OK);
}

static void worked_case_stage_by_stage(void **state) {
  (void)state;
  static const char *const names[] = {"worked_case_s0", "worked_case_s1", "worked_case_s2", "worked_case_s3"};
  struct gw_run_summary s[4];
  for (int i = 0; i < 4; i++) {
    load(names[i], &s[i]);
    /* steps from the program's own log, all of its training steps */
    assert_int_equal(s[i].step_source, GW_STEPS_LOG);
    assert_int_equal((double)s[i].nsteps, truth_number(names[i], "step_counts.train"));
    /* throughput over the steps is the program's wall-clock figure */
    double wall = truth_number(names[i], "samples_per_s_wall");
    assert_true(fabs(s[i].samples_per_s / wall - 1) < 1e-4);
  }
  struct gw_comparison c[3];
  for (int i = 0; i < 3; i++) {
    gw_compare_pair(&s[i], &s[i + 1], NULL, 0, &c[i]);
    assert_int_equal(c[i].basis, GW_BASIS_STEPS);
    assert_true(c[i].per_sample);
    /* one change between stages: --stage N -> N+1; output paths and labels left out */
    assert_int_equal(c[i].changes.n, 1);
    assert_string_equal(c[i].changes.items[0].what, "--stage");
    char before[8], after[8];
    snprintf(before, sizeof before, "%d", i);
    snprintf(after, sizeof after, "%d", i + 1);
    assert_string_equal(c[i].changes.items[0].before, before);
    assert_string_equal(c[i].changes.items[0].after, after);
    assert_true(c[i].changes.nignored >= 2);
    /* the change the truth file declares is shown */
    assert_true(c[i].show_declared);
  }
  assert_non_null(strstr(s[1].setup.change, "num_workers=8"));
  assert_non_null(strstr(s[2].setup.change, "torch.compile"));
  assert_non_null(strstr(s[3].setup.change, "CUDA Graphs"));
  /* s0 -> s1: the three fixes together, about 21x */
  assert_int_equal(c[0].verdict, GW_VERDICT_BETTER);
  assert_true(c[0].throughput.lo > 10 && c[0].throughput.point > 20 && c[0].throughput.point < 22);
  /* s1 -> s2: torch.compile, +22% (interval above 1) */
  assert_int_equal(c[1].verdict, GW_VERDICT_BETTER);
  assert_true(c[1].throughput.lo > 1.02 && c[1].throughput.point > 1.2 && c[1].throughput.point < 1.25);
  /* s2 -> s3: CUDA Graphs shorten the typical step by about 5%, but input
   * stalls decide the throughput, which does not move */
  assert_int_equal(c[2].verdict, GW_VERDICT_SAME);
  assert_true(c[2].throughput.lo < 1 && c[2].throughput.hi > 1);
  assert_int_equal(c[2].median_verdict, GW_VERDICT_BETTER);
  assert_true(c[2].step_median.point > 0.94 && c[2].step_median.point < 0.96);
  for (int i = 0; i < 4; i++)
    gw_run_summary_free(&s[i]);
}

static void step_table_comes_first(void **state) {
  (void)state;
  /* 100 marked steps, each 40 ms of work and a 10 ms pause, in the step
   * table of a copy that keeps its truth file (samples_per_step 64) */
  char db[1200];
  copy_scenario("worked_case_s1", "marked", 1, db, sizeof db);
  sql(db, "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 99) "
          "INSERT INTO step (t_start_ns, t_end_ns, step, source) SELECT run.started_ns + 5000000000 + i * 50000000, "
          "run.started_ns + 5000000000 + i * 50000000 + 40000000, i, 'test' FROM s, run");
  struct gw_run_summary s;
  struct gw_err err;
  assert_int_equal(gw_run_summary_load(db, &s, &err), GW_OK);
  assert_int_equal(s.step_source, GW_STEPS_TABLE);
  /* the first step is warm-up (thresholds.c, loop_min_steps) */
  assert_int_equal(s.nsteps, 99);
  /* 98 steps of 50 ms (start to next start) and a last one of 40 ms */
  assert_true(fabs(s.step_median_s - 0.050) < 1e-12);
  assert_true(fabs(s.steps_per_s - 99 / 4.94) < 1e-9);
  assert_true(fabs(s.samples_per_s - 64 * 99 / 4.94) < 1e-6);
  assert_true(fabs(s.window_s - 4.94) < 1e-9);
  gw_run_summary_free(&s);
}

static void a_run_against_itself(void **state) {
  (void)state;
  static const char *const names[] = {"worked_case_s2", "healthy", "schedule_eval"};
  for (int i = 0; i < 3; i++) {
    struct gw_run_summary s;
    load(names[i], &s);
    struct gw_comparison c;
    gw_compare_pair(&s, &s, NULL, 0, &c);
    assert_int_equal(c.verdict, GW_VERDICT_SAME);
    assert_int_equal(c.median_verdict, GW_VERDICT_SAME);
    assert_true(c.throughput.point == 1 && c.throughput.lo < 1 && c.throughput.hi > 1);
    assert_int_equal(c.changes.n, 0);
    assert_false(c.show_declared);
    gw_run_summary_free(&s);
  }
}

/* Output of fn(out) as a string; *rc is its return value. */
/* Not inlined: GCC 12 otherwise takes the memstream buffer for a dangling local. */
__attribute__((noinline)) static char *run_to_string(int (*fn)(FILE *), int *rc) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  *rc = fn(f);
  fclose(f);
  return buf;
}

/* One compare or sweep table over recordings, in one format; err holds the
 * message of a failed call. */
struct table_call {
  const char *const *paths;
  int n;
  struct gw_compare_opts compare;
  struct gw_sweep_opts sweep;
  char err[1024];
};
static struct table_call g_call;

static int do_compare(FILE *out) {
  return gw_compare_files(g_call.paths, g_call.n, &g_call.compare, out, g_call.err, sizeof g_call.err);
}

static int do_sweep(FILE *out) {
  return gw_sweep_table(g_call.paths, NULL, g_call.n, &g_call.sweep, out, g_call.err, sizeof g_call.err);
}

/* What fn (do_compare or do_sweep) writes for paths in format fmt; *rc its return value. */
static char *table_output(int (*fn)(FILE *), const char *const *paths, int n, enum gw_report_format fmt, int *rc) {
  memset(&g_call, 0, sizeof g_call);
  g_call.paths = paths;
  g_call.n = n;
  g_call.compare.format = fmt;
  g_call.sweep.format = fmt;
  return run_to_string(fn, rc);
}

static char *compare_output(const char *const *paths, int n, enum gw_report_format fmt, int *rc) {
  return table_output(do_compare, paths, n, fmt, rc);
}

static void two_knobs_get_the_warning(void **state) {
  (void)state;
  char a[1200], b[1200], c[1200];
  copy_scenario("worked_case_s1", "knobs_a", 1, a, sizeof a);
  copy_scenario("worked_case_s1", "knobs_b", 1, b, sizeof b);
  copy_scenario("worked_case_s1", "knobs_c", 1, c, sizeof c);
  sql(b, "INSERT OR REPLACE INTO env VALUES ('NCCL_ALGO', 'Ring');"
         "INSERT OR REPLACE INTO env VALUES ('OMP_NUM_THREADS', '4');");
  sql(c, "UPDATE run SET command = json_replace(command, '$[6]', '30')");
  const char *two[] = {a, b};
  int rc;
  char *out = compare_output(two, 2, GW_REPORT_TEXT, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "WARNING"));
  assert_non_null(strstr(out, "2 things changed at once (NCCL_ALGO, OMP_NUM_THREADS)"));
  assert_non_null(strstr(out, "environment OMP_NUM_THREADS (unset) -> 4"));
  free(out);
  out = compare_output(two, 2, GW_REPORT_JSON, &rc);
  assert_non_null(strstr(out, "\"changes_total\": 2"));
  assert_non_null(strstr(out, "\"warning\": \"2 things changed"));
  free(out);
  /* one knob (a command-line value): named, no warning */
  const char *one[] = {a, c};
  out = compare_output(one, 2, GW_REPORT_TEXT, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "changed        --duration 20 -> 30"));
  assert_null(strstr(out, "WARNING"));
  free(out);
}

static void batch_size_sweep(void **state) {
  (void)state;
  /* given out of order: the table sorts by batch size */
  static const char *const names[] = {"sweep_bs256",  "sweep_bs32",  "sweep_bs2048", "sweep_bs64",
                                      "sweep_bs1024", "sweep_bs128", "sweep_bs512"};
  char paths[7][1200];
  const char *p[7];
  for (int i = 0; i < 7; i++) {
    scn(names[i], ".db", paths[i], sizeof paths[i]);
    p[i] = paths[i];
    struct gw_run_summary s;
    load(names[i], &s);
    /* samples/s per batch size is the program's wall-clock figure */
    assert_true(fabs(s.samples_per_s / truth_number(names[i], "samples_per_s_wall") - 1) < 1e-3);
    gw_run_summary_free(&s);
  }
  int rc;
  char *out = table_output(do_sweep, p, 7, GW_REPORT_TEXT, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "batch-size over 7 runs"));
  assert_non_null(strstr(out, "samples/s"));
  const char *r32 = strstr(out, "\n  32 "), *r64 = strstr(out, "\n  64 "), *r2048 = strstr(out, "\n  2048 ");
  assert_true(r32 && r64 && r2048 && r32 < r64 && r64 < r2048);
  assert_non_null(strstr(out, "Throughput stops rising at batch-size=1024: going to 2048 raised samples/s by only"));
  free(out);
  out = table_output(do_sweep, p, 7, GW_REPORT_JSON, &rc);
  assert_non_null(strstr(out, "\"knee\": {\"computed\": true, \"found\": true, \"value\": \"1024\", \"next_value\": "
                              "\"2048\""));
  free(out);
}

static void baselines_round_trip(void **state) {
  (void)state;
  char home[128];
  snprintf(home, sizeof home, "%s/home", g_tmp);
  setenv("GPUWHY_HOME", home, 1);
  char s0[1200], s1[1200], s2[1200], err[1024] = "";
  scn("worked_case_s0", ".db", s0, sizeof s0);
  scn("worked_case_s1", ".db", s1, sizeof s1);
  scn("worked_case_s2", ".db", s2, sizeof s2);
  FILE *devnull = fopen("/dev/null", "w");
  assert_int_equal(gw_baseline_save("stage1", s1, devnull, err, sizeof err), 0);
  struct gw_compare_opts opts = {GW_REPORT_TEXT, 0, NULL, 0};
  /* the same run holds; a slower one (stage 0) is a regression; a faster one holds */
  assert_int_equal(gw_baseline_check("stage1", s1, 5, &opts, devnull, err, sizeof err), 0);
  assert_int_equal(gw_baseline_check("stage1", s0, 5, &opts, devnull, err, sizeof err), GPUWHY_EXIT_FINDINGS);
  assert_int_equal(gw_baseline_check("stage1", s2, 5, &opts, devnull, err, sizeof err), 0);
  assert_int_equal(gw_baseline_check("missing", s1, 5, &opts, devnull, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "no baseline named missing"));
  assert_int_equal(gw_baseline_save("../escape", s1, devnull, err, sizeof err), GPUWHY_EXIT_USAGE);
  fclose(devnull);

  /* the saved file reads back to the same numbers */
  char file[1200];
  snprintf(file, sizeof file, "%s/baselines/stage1.json", home);
  struct gw_run_summary orig, back;
  load("worked_case_s1", &orig);
  struct gw_err e;
  assert_int_equal(gw_run_summary_load(file, &back, &e), GW_OK);
  assert_true(back.from_baseline);
  assert_int_equal(back.nsteps, orig.nsteps);
  assert_true(fabs(back.step_median_s / orig.step_median_s - 1) < 1e-9);
  assert_true(fabs(back.samples_per_s / orig.samples_per_s - 1) < 1e-9);
  assert_int_equal(back.setup.argc, orig.setup.argc);
  assert_int_equal(back.nfindings, orig.nfindings);
  gw_run_summary_free(&orig);
  gw_run_summary_free(&back);

  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(gw_baseline_list(&opts, f, err, sizeof err), 0);
  fclose(f);
  assert_non_null(strstr(buf, "stage1"));
  assert_non_null(strstr(buf, "586"));
  free(buf);
  /* check in JSON names the regression */
  f = open_memstream(&buf, &len);
  opts.format = GW_REPORT_JSON;
  assert_int_equal(gw_baseline_check("stage1", s0, 5, &opts, f, err, sizeof err), GPUWHY_EXIT_FINDINGS);
  fclose(f);
  assert_non_null(strstr(buf, "\"regression\": true"));
  free(buf);
  unsetenv("GPUWHY_HOME");
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Comparing paths fails with exit status rc_want and, unless NULL, says needle. */
static void compare_refused(const char *const *paths, int n, int rc_want, const char *needle) {
  int rc;
  free(compare_output(paths, n, GW_REPORT_TEXT, &rc));
  assert_int_equal(rc, rc_want);
  if (needle)
    assert_non_null(strstr(g_call.err, needle));
}

static void bad_input_is_named(void **state) {
  (void)state;
  char good[1200], bad[1200], tpath[1200];
  scn("worked_case_s1", ".db", good, sizeof good);
  copy_scenario("worked_case_s1", "badtruth", 0, bad, sizeof bad);
  snprintf(tpath, sizeof tpath, "%s/badtruth.truth.json", g_tmp);
  const char *paths[] = {good, bad};
  write_text(tpath, "{\"samples_per_step\": 64, \"steps\": [{\"start_ns\": \"soon\", \"end_ns\": 5}]}");
  compare_refused(paths, 2, GPUWHY_EXIT_INPUT, "badtruth.truth.json: steps[0]");
  write_text(tpath, "{\"steps\": [");
  compare_refused(paths, 2, GPUWHY_EXIT_INPUT, "not a JSON object");
  /* a file that is not a recording */
  const char *text[] = {good, tpath};
  compare_refused(text, 2, GPUWHY_EXIT_INPUT, NULL);
  /* a JSON file that is not a baseline */
  write_text(tpath, "{\"schema\": \"other\"}");
  compare_refused(text, 2, GPUWHY_EXIT_INPUT, "not a gpuwhy baseline");
  const char *only[] = {good};
  compare_refused(only, 1, GPUWHY_EXIT_USAGE, NULL);
}

/* ---- goldens ---- */

static void check_golden(const char *name, const char *got) {
  const char *src = getenv("GW_SOURCE_DIR");
  assert_non_null(src);
  char path[1200];
  snprintf(path, sizeof path, "%s/tests/expected/%s", src, name);
  if (getenv("GW_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(got, f);
    fclose(f);
    return;
  }
  char *want = support_slurp_path(path);
  if (!want)
    fail_msg("%s missing: run with GW_UPDATE_GOLDEN=1 to create it", path);
  if (strcmp(want, got) != 0) {
    fprintf(stderr, "output differs from %s; got:\n%s\n", path, got);
    free(want);
    fail();
  }
  free(want);
}

static void goldens(void **state) {
  (void)state;
  char cwd[1200];
  assert_non_null(getcwd(cwd, sizeof cwd));
  /* relative names keep the goldens free of the checkout's location */
  assert_int_equal(chdir(g_scn), 0);
  const char *stages[] = {"worked_case_s0.db", "worked_case_s1.db", "worked_case_s2.db", "worked_case_s3.db"};
  static const struct {
    enum gw_report_format fmt;
    const char *file;
  } outs[] = {{GW_REPORT_TEXT, "compare_worked_case.txt"},
              {GW_REPORT_JSON, "compare_worked_case.json"},
              {GW_REPORT_MD, "compare_worked_case.md"}};
  for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
    int rc;
    char *out = compare_output(stages, 4, outs[i].fmt, &rc);
    assert_int_equal(rc, 0);
    check_golden(outs[i].file, out);
    free(out);
  }
  const char *sweep[] = {"sweep_bs32.db",  "sweep_bs64.db",   "sweep_bs128.db", "sweep_bs256.db",
                         "sweep_bs512.db", "sweep_bs1024.db", "sweep_bs2048.db"};
  int rc;
  char *out = table_output(do_sweep, sweep, 7, GW_REPORT_TEXT, &rc);
  assert_int_equal(rc, 0);
  check_golden("compare_sweep.txt", out);
  free(out);
  assert_int_equal(chdir(cwd), 0);
}

/* ---- a sweep that runs its command, through the fake NVML ---- */

static void sweep_runs_the_command(void **state) {
  (void)state;
  const char *nvml = fixture_env_or_skip("GW_FAKE_NVML");
  char dir[128];
  snprintf(dir, sizeof dir, "%s/sweep", g_tmp);
  char *cmd[] = {"sh", "-c", "sleep 0.3", "n={n}", NULL};
  const char *values[] = {"1", "2"};
  struct gw_sweep_run_opts run = {"n", values, 2, dir, 100, cmd, 1, nvml};
  struct gw_sweep_opts opts = {GW_REPORT_TEXT, 0, NULL, 0};
  char err[1024] = "";
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  int rc = gw_sweep_run(&run, &opts, f, err, sizeof err);
  fclose(f);
  if (rc)
    fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(buf, "gpuwhy sweep: n over 2 runs"));
  free(buf);
  for (int i = 0; i < 2; i++) {
    char db[256];
    snprintf(db, sizeof db, "%s/sweep_n_%s.db", dir, values[i]);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = fixture_first_row(h, "SELECT (SELECT value FROM meta WHERE key = 'sweep_value'),"
                                            " json_extract(command, '$[3]') FROM run");
    assert_string_equal((const char *)sqlite3_column_text(st, 0), values[i]);
    char want[16];
    snprintf(want, sizeof want, "n=%s", values[i]);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), want);
    sqlite3_finalize(st);
    sqlite3_close(h);
  }
  /* a command without {n} would run the same thing twice */
  char *same[] = {"true", NULL};
  run.argv = same;
  assert_int_equal(gw_sweep_run(&run, &opts, stdout, err, sizeof err), GPUWHY_EXIT_USAGE);
  assert_non_null(strstr(err, "{n}"));
}

int main(void) {
  if (!getenv("GW_FIXTURES")) {
    fprintf(stderr, "GW_FIXTURES is not set: skipping\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(worked_case_stage_by_stage), cmocka_unit_test(step_table_comes_first),
      cmocka_unit_test(a_run_against_itself),       cmocka_unit_test(two_knobs_get_the_warning),
      cmocka_unit_test(batch_size_sweep),           cmocka_unit_test(baselines_round_trip),
      cmocka_unit_test(bad_input_is_named),         cmocka_unit_test(goldens),
      cmocka_unit_test(sweep_runs_the_command),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
