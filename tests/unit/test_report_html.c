/* The HTML report and its SVG charts: long series are reduced to a bounded
 * number of points that keep the extremes, gaps break lines, every string
 * from the recording is escaped, marked steps are drawn, and the page refers
 * to nothing outside itself. */
#include <sqlite3.h>
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

#include "render/report_html.h"
#include "render/svg_chart.h"
#include "report_synth.h"
#include "support_sql.h"
#include "support_tmp_files.h"
#include "support_test_main.h"

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* Largest number of M/L commands in any path d="..." of the page. */
static size_t max_path_points(const char *page) {
  size_t most = 0;
  for (const char *p = page; (p = strstr(p, " d=\"")); p += 4) {
    const char *end = strchr(p + 4, '"');
    size_t n = 0;
    for (const char *q = p + 4; q < end; q++)
      n += *q == 'M' || *q == 'L';
    if (n > most)
      most = n;
  }
  return most;
}

/* A chart 0..100 high over t0_ns..t1_ns, drawn into a temporary file. */
static void chart_open(struct gw_chart *c, int64_t t0_ns, int64_t t1_ns, const char *title) {
  memset(c, 0, sizeof *c);
  c->out = tmpfile();
  assert_non_null(c->out);
  c->t0_ns = t0_ns;
  c->t1_ns = t1_ns;
  c->y1 = 100;
  c->title = title;
  gw_chart_begin(c);
}

/* Ends the chart and returns what it drew (free it). */
static char *chart_close(struct gw_chart *c) {
  gw_chart_end(c);
  size_t len;
  char *page = support_slurp(c->out, &len);
  fclose(c->out);
  return page;
}

static void chart_small_series_exact(void **state) {
  (void)state;
  struct gw_chart c;
  chart_open(&c, 0, 10000000000LL, "t");
  const int64_t t[] = {0, 5000000000LL, 10000000000LL};
  const double v[] = {0, 50, 100};
  gw_chart_line(&c, t, v, 3, 1, "s-sm");
  char *page = chart_close(&c);
  assert_non_null(strstr(page, "<path class=\"s-sm\" d=\"M0.0 100.00L500.0 50.00L1000.0 0.00\"/>"));
  assert_int_equal(c.points_written, 3);
  free(page);
}

static void chart_downsampling_keeps_extremes(void **state) {
  (void)state;
  enum { N = 100000 };
  int64_t *t = calloc(N, sizeof *t);
  double *v = calloc(N, sizeof *v);
  for (int i = 0; i < N; i++) {
    t[i] = (int64_t)i * 10000000LL; /* 10 ms apart, 1000 s */
    v[i] = 40 + 10 * sin(i / 50.0);
  }
  v[54321] = 100; /* one spike to the top */
  v[70001] = 0;   /* one drop to the floor */
  for (int i = 20000; i < 20500; i++)
    v[i] = NAN; /* five unknown seconds */
  struct gw_chart c;
  chart_open(&c, t[0], t[N - 1], "long");
  gw_chart_line(&c, t, v, N, 1, "s-sm");
  char *page = chart_close(&c);
  assert_true(c.points_written <= 2 * GW_CHART_BUCKETS + 2);
  assert_true(c.points_written >= GW_CHART_BUCKETS);
  assert_int_equal(max_path_points(page), c.points_written);
  assert_non_null(strstr(page, " 0.00L"));  /* the spike reaches the top edge (y 0) */
  assert_non_null(strstr(page, " 100.00")); /* the drop reaches the bottom edge */
  const char *d = strstr(page, "class=\"s-sm\" d=\"");
  assert_non_null(d);
  assert_int_equal(count(d, "M"), 2); /* the gap splits the line in two */
  free(page);
  free(t);
  free(v);
}

/* The d attribute of the first path of class css in page. */
static char *path_of(const char *page, const char *css) {
  char key[64];
  snprintf(key, sizeof key, "class=\"%s\" d=\"", css);
  const char *d = strstr(page, key);
  assert_non_null(d);
  d += strlen(key);
  const char *end = strchr(d, '"');
  return strndup(d, (size_t)(end - d));
}

/* Each series breaks at its own pauses: rows once a second are not gaps
 * beside a 100 ms series, a metric read once a second among unknown ticks
 * still draws, and a real pause breaks both. */
static void chart_gaps_follow_each_series(void **state) {
  (void)state;
  enum { FAST = 200, SLOW = 20 };
  int64_t tf[FAST], ts[SLOW];
  double vf[FAST], vs[SLOW], held[FAST];
  for (int i = 0; i < FAST; i++) {
    tf[i] = (int64_t)i * 100000000LL + (i >= 100 ? 6000000000LL : 0); /* 100 ms, a 6 s pause at 10 s */
    vf[i] = 50;
    held[i] = i % 10 == 0 ? 40 : NAN; /* read once a second, unknown between */
  }
  for (int i = 0; i < SLOW; i++) {
    ts[i] = (int64_t)i * 1000000000LL; /* once a second */
    vs[i] = 30;
  }
  struct gw_chart c;
  chart_open(&c, 0, 26000000000LL, "rates");
  gw_chart_line(&c, tf, vf, FAST, 1, "s-sm");
  gw_chart_line(&c, ts, vs, SLOW, 1, "s-host");
  gw_chart_line(&c, tf, held, FAST, 1, "s-power");
  char *page = chart_close(&c);
  char *fast = path_of(page, "s-sm"), *slow = path_of(page, "s-host"), *once = path_of(page, "s-power");
  assert_int_equal(count(fast, "M"), 2); /* the 6 s pause */
  assert_int_equal(count(slow, "M"), 1);
  assert_int_equal(count(slow, "L"), SLOW - 1);
  assert_int_equal(count(once, "M"), 2); /* the same pause: 7 s between readings a second apart */
  assert_int_equal(count(once, "L"), FAST / 10 - 2);
  free(fast);
  free(slow);
  free(once);
  free(page);
}

static void chart_axis_bounds(void **state) {
  (void)state;
  assert_true(fabs(gw_chart_nice_max(735, 10) - 800) < 1e-9);
  assert_true(fabs(gw_chart_nice_max(7, 100) - 100) < 1e-9);
  assert_true(fabs(gw_chart_nice_max(101, 0) - 120) < 1e-9);
  assert_true(fabs(gw_chart_nice_max(0.031, 0) - 0.04) < 1e-12);
  assert_true(fabs(gw_chart_nice_max(NAN, 10) - 10) < 1e-9);
  assert_true(fabs(gw_chart_nice_max(0, 0) - 1) < 1e-9);
}

static char *render(const char *db, size_t *len) {
  FILE *f = tmpfile();
  struct gw_err err;
  assert_int_equal(gw_render_html_file(db, f, &err), GW_OK);
  char *page = support_slurp(f, len);
  fclose(f);
  return page;
}

/* Every string of present (NULL-terminated) is in page, none of absent. */
static void check_page_text(const char *page, const char *const *present, const char *const *absent) {
  for (; *present; present++)
    if (!strstr(page, *present))
      fail_msg("missing from the page: %s", *present);
  for (; *absent; absent++)
    if (strstr(page, *absent))
      fail_msg("on the page but should not be: %s", *absent);
}

static void page_escapes_recording_text(void **state) {
  (void)state;
  char db[128];
  support_tmpdir_path(db, sizeof db, "hostile.db");
  assert_int_equal(synth_write(db, 1, 40, 0, gpu_starved, host_starved), 0);
  support_exec_sql_at(
      db,
      "UPDATE gpu SET name = '<img src=x onerror=boom()>\"H200\"', uuid = 'GPU-&x';"
      "UPDATE run SET command = '[\"python3\",\"</code><script>bad()</script>\"]', hostname = 'h&h',"
      " driver_version = '580<b>';"
      "INSERT INTO step (t_start_ns, t_end_ns, step, source) VALUES (1700000010000000000, 1700000011000000000, 1, 't');"
      "INSERT INTO step (t_start_ns, t_end_ns, step, source) VALUES (1700000020000000000, 1700000021000000000, 2, 't');"
      "INSERT INTO step (t_start_ns, t_end_ns, step, source) VALUES (1700000030000000000, 1700000031000000000, 3, "
      "'t');");
  size_t len;
  char *page = render(db, &len);
  check_page_text(page,
                  (const char *[]){"&lt;/code&gt;&lt;script&gt;bad()&lt;/script&gt;",
                                   "&lt;img src=x onerror=boom()&gt;&quot;H200&quot;", "GPU-&amp;x", "h&amp;h", NULL},
                  (const char *[]){"<script>bad", "<img", "580<b>", NULL});
  assert_int_equal(count(page, "<script"), 1); /* only the page's own marker script */
  /* the three marked steps, on every chart that draws marks */
  const char *steps = strstr(page, "class=\"m-step\" d=\"");
  assert_non_null(steps);
  const char *d_end = strchr(steps + 18, '"');
  size_t ticks = 0;
  for (const char *q = steps + 18; (q = strstr(q, "V92")) && q < d_end; q += 3)
    ticks++;
  assert_int_equal(ticks, 3);
  assert_non_null(strstr(page, "step starts"));
  /* the figures leave the first step out as warm-up (thresholds.c, loop_min_steps) */
  assert_non_null(strstr(page, "2, median 1000.0 ms (marked by the program)"));
  free(page);
}

static void long_recording_stays_small(void **state) {
  (void)state;
  char db[128];
  support_tmpdir_path(db, sizeof db, "long.db");
  /* 30 minutes at 100 ms: 18000 ticks per series */
  assert_int_equal(synth_write(db, 2, 1800, 0, gpu_starved, host_starved), 0);
  size_t len;
  char *page = render(db, &len);
  assert_true(max_path_points(page) <= 2 * GW_CHART_BUCKETS + 2);
  assert_true(len < 1500000); /* a page that opens quickly: about 1.5 MB at most */
  check_page_text(page, (const char *[]){"<h3>GPU 1", "document.body.dataset.gw='ready'", NULL},
                  (const char *[]){"http://", "https://", "src=", "href=", NULL});
  assert_true(count(page, "<figure class=\"chart\">") >= 9); /* 4 per GPU with PCIe, or 3, plus host charts */
  free(page);
}

static void missing_file_is_an_error(void **state) {
  (void)state;
  char db[128];
  support_tmpdir_path(db, sizeof db, "none.db");
  FILE *f = tmpfile();
  struct gw_err err;
  assert_int_not_equal(gw_render_html_file(db, f, &err), GW_OK);
  assert_true(strlen(err.msg) > 0);
  fclose(f);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(chart_small_series_exact),      cmocka_unit_test(chart_downsampling_keeps_extremes),
    cmocka_unit_test(chart_gaps_follow_each_series), cmocka_unit_test(chart_axis_bounds),
    cmocka_unit_test(page_escapes_recording_text),   cmocka_unit_test(long_recording_stays_small),
    cmocka_unit_test(missing_file_is_an_error),
};
SUPPORT_TEST_MAIN(tests, support_tmpdir_setup, support_tmpdir_teardown)
