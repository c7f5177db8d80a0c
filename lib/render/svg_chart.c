#include "svg_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "core/util.h"
#include "render/escape.h"

#define VIEW_W 1000.0
#define VIEW_H 100.0

static double x_of(const struct gw_chart *c, int64_t t_ns) {
  double x = VIEW_W * (double)(t_ns - c->t0_ns) / (double)(c->t1_ns - c->t0_ns);
  return x < 0 ? 0 : x > VIEW_W ? VIEW_W : x;
}

static double y_of(const struct gw_chart *c, double v) {
  double y = VIEW_H * (1 - (v - c->y0) / (c->y1 - c->y0));
  return y < 0 ? 0 : y > VIEW_H ? VIEW_H : y;
}

double gw_chart_nice_max(double v, double min) {
  if (!(v > min))
    v = min;
  if (!(v > 0) || isinf(v))
    return 1;
  double p = pow(10, floor(log10(v)));
  const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
    if (steps[k] * p >= v * 0.999)
      return steps[k] * p;
  return 10 * p;
}

static void fmt_value(char *buf, size_t cap, double v) {
  double a = fabs(v);
  if (a >= 100 || a == 0 || (a >= 1 && fabs(v - round(v)) < 1e-9))
    snprintf(buf, cap, "%.0f", v);
  else if (a >= 1)
    snprintf(buf, cap, "%.1f", v);
  else
    snprintf(buf, cap, "%.2g", v);
}

static void key(FILE *out, const struct gw_chart_key *k) {
  fputs("<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 24 10\" aria-hidden=\"true\">", out);
  if (k->band)
    fprintf(out, "<rect class=\"%s\" x=\"0\" y=\"0\" width=\"24\" height=\"10\"/>", k->css);
  else
    fprintf(out, "<line class=\"%s\" x1=\"0\" y1=\"5\" x2=\"24\" y2=\"5\"/>", k->css);
  fputs("</svg>", out);
  gw_html_write(out, k->label);
  fputs("</span>", out);
}

void gw_chart_begin(struct gw_chart *c) {
  FILE *out = c->out;
  if (c->t1_ns <= c->t0_ns)
    c->t1_ns = c->t0_ns + 1000000000LL;
  if (!(c->y1 > c->y0))
    c->y1 = c->y0 + 1;
  c->points_written = 0;
  fputs("<figure class=\"chart\"><figcaption><b>", out);
  gw_html_write(out, c->title);
  fputs("</b>", out);
  for (int i = 0; i < c->nkeys && i < GW_CHART_MAX_KEYS; i++)
    key(out, &c->keys[i]);
  fprintf(out, "</figcaption><div class=\"plot\" style=\"height:%dpx\">", c->height_px > 0 ? c->height_px : 110);
  if (c->nylabels > 0) {
    for (int i = 0; i < c->nylabels && i < GW_CHART_MAX_YLABELS; i++) {
      fprintf(out, "<span class=\"il\" style=\"top:%.2f%%\">", y_of(c, c->ylabel_at[i]));
      gw_html_write(out, c->ylabel_text[i]);
      fputs("</span>", out);
    }
  } else {
    for (int i = 0; i <= 2; i++) {
      double v = c->y0 + (c->y1 - c->y0) * (2 - i) / 2.0;
      char num[32];
      fmt_value(num, sizeof num, v);
      fprintf(out, "<span class=\"yl\" style=\"top:%d%%\">%s", i * 50, num);
      if (i == 0 || (c->unit && strcmp(c->unit, "%") == 0)) /* a unit once is enough, and keeps labels narrow */
        gw_html_write(out, c->unit);
      fputs("</span>", out);
    }
  }
  fputs("<svg viewBox=\"0 0 1000 100\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"", out);
  gw_html_write(out, c->aria ? c->aria : c->title);
  fputs("\">", out);
  if (c->nylabels == 0)
    fputs("<path class=\"grid\" d=\"M0 25H1000M0 50H1000M0 75H1000\"/>", out);
}

/* Time labels: about six at a round step of seconds or minutes. */
static void time_axis(const struct gw_chart *c) {
  double span = (double)(c->t1_ns - c->t0_ns) / 1e9;
  const double steps[] = {0.1, 0.2, 0.5, 1,   2,    5,    10,   15,    30,    60,
                          120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400};
  double step = steps[sizeof steps / sizeof steps[0] - 1];
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if (span / steps[i] <= 6) {
      step = steps[i];
      break;
    }
  double first = ceil(c->base_s / step) * step;
  for (int k = 0; k < 64; k++) {
    double s = first + k * step;
    double frac = (s - c->base_s) / span;
    if (frac > 1.0001)
      break;
    if (frac < -0.0001)
      continue;
    char label[32];
    if (step >= 60 && span >= 600)
      snprintf(label, sizeof label, "%.0f min", s / 60);
    else if (step < 1)
      snprintf(label, sizeof label, "%.1f s", s);
    else
      snprintf(label, sizeof label, "%.0f s", s);
    fprintf(c->out, "<span class=\"xl\" style=\"left:%.2f%%\">%s</span>", frac * 100, label);
  }
}

void gw_chart_end(struct gw_chart *c) {
  fputs("</svg>", c->out);
  time_axis(c);
  fputs("</div></figure>\n", c->out);
}

void gw_chart_hline(struct gw_chart *c, double y, const char *css) {
  if (isnan(y))
    return;
  fprintf(c->out, "<path class=\"%s\" d=\"M0 %.2fH1000\"/>", css, y_of(c, y));
}

/* Point writer: "M" after a break, "L" otherwise. */
struct pen {
  struct gw_chart *c;
  int down;
};

static void pen_point(struct pen *p, double x, double y) {
  fprintf(p->c->out, "%s%.1f %.2f", p->down ? "L" : "M", x, y);
  p->down = 1;
  p->c->points_written++;
}

static int known(const struct gw_chart *c, const int64_t *t_ns, const double *v, size_t i) {
  return !isnan(v[i]) && !isinf(v[i]) && t_ns[i] >= c->t0_ns && t_ns[i] <= c->t1_ns;
}

/* The series' own sampling period: the median spacing of its known samples
 * (0 when it has fewer than two). Each series carries its own, because the
 * recorder reads metrics at different rates (GPU utilization every tick,
 * power and the host once a second, health every few seconds) and an
 * importer may bring any rate at all. */
static int64_t sample_period_ns(const struct gw_chart *c, const int64_t *t_ns, const double *v, size_t n) {
  double *dt = gw_xcalloc(n ? n : 1, sizeof *dt);
  size_t m = 0;
  int64_t prev = 0;
  int have_prev = 0;
  for (size_t i = 0; i < n; i++) {
    if (!known(c, t_ns, v, i))
      continue;
    if (have_prev)
      dt[m++] = (double)(t_ns[i] - prev);
    prev = t_ns[i];
    have_prev = 1;
  }
  double med = m ? gw_stats_median(dt, m) : 0;
  free(dt);
  return med > 0 ? (int64_t)med : 0;
}

void gw_chart_line(struct gw_chart *c, const int64_t *t_ns, const double *v, size_t n, double scale, const char *css) {
  if (!t_ns || !v || n == 0)
    return;
  /* A pause is a stretch without known values several sampling periods long:
   * the sampler stopped or the metric was unreadable there, and a straight
   * line across it would invent values. Measured on the series itself, so a
   * metric read once a second is not taken for a string of gaps beside one
   * read every 100 ms; five periods let a late tick or a few failed reads
   * pass without breaking the line. Unknown values in between are skipped. */
  int64_t max_gap_ns = GW_CHART_PAUSE_PERIODS * sample_period_ns(c, t_ns, v, n);
  fprintf(c->out, "<path class=\"%s\" d=\"", css);
  struct pen p = {c, 0};
  /* the current bucket: its lowest and highest sample, written in time order */
  long bucket = -1;
  size_t lo = 0, hi = 0;
  int64_t prev_t = 0;
  int have_prev = 0;
  for (size_t i = 0; i <= n; i++) {
    int valid = i < n && known(c, t_ns, v, i);
    if (i < n && !valid)
      continue;
    long b = valid ? (long)floor(x_of(c, t_ns[i]) / VIEW_W * GW_CHART_BUCKETS) : -1;
    int gap = valid && have_prev && max_gap_ns > 0 && t_ns[i] - prev_t > max_gap_ns;
    if (bucket >= 0 && (!valid || b != bucket || gap)) {
      size_t a = lo < hi ? lo : hi, z = lo < hi ? hi : lo;
      pen_point(&p, x_of(c, t_ns[a]), y_of(c, v[a] * scale));
      if (z != a)
        pen_point(&p, x_of(c, t_ns[z]), y_of(c, v[z] * scale));
      bucket = -1;
    }
    if (!valid)
      break;
    if (gap)
      p.down = 0;
    if (bucket < 0) {
      bucket = b;
      lo = hi = i;
    } else {
      if (v[i] < v[lo])
        lo = i;
      if (v[i] > v[hi])
        hi = i;
    }
    prev_t = t_ns[i];
    have_prev = 1;
  }
  fputs("\"/>", c->out);
}

static void rect(struct gw_chart *c, double xa, double xb, double top, double bottom, const char *css,
                 const char *tooltip) {
  double w = xb - xa;
  if (w < 0.6) /* a sliver still shows */
    w = 0.6;
  fprintf(c->out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", css, xa, top * VIEW_H, w,
          (bottom - top) * VIEW_H);
  if (tooltip) {
    fputs("<title>", c->out);
    gw_html_write(c->out, tooltip);
    fputs("</title>", c->out);
  }
  fputs("</rect>", c->out);
}

void gw_chart_band(struct gw_chart *c, int64_t a_ns, int64_t b_ns, double top, double bottom, const char *css,
                   const char *tooltip) {
  if (b_ns < c->t0_ns || a_ns > c->t1_ns || b_ns < a_ns)
    return;
  rect(c, x_of(c, a_ns), x_of(c, b_ns), top, bottom, css, tooltip);
}

void gw_chart_runs(struct gw_chart *c, const int64_t *t_ns, const unsigned char *on, size_t n, int64_t dt_ns,
                   double top, double bottom, const char *css, const char *tooltip) {
  if (!t_ns || !on)
    return;
  const double merge = VIEW_W / GW_CHART_BUCKETS;
  double xa = -1, xb = -1;
  for (size_t i = 0; i < n; i++) {
    if (!on[i])
      continue;
    int64_t end = i + 1 < n && t_ns[i + 1] - t_ns[i] < 5 * dt_ns ? t_ns[i + 1] : t_ns[i] + dt_ns;
    double a = x_of(c, t_ns[i]), b = x_of(c, end);
    if (xa >= 0 && a <= xb + merge) {
      if (b > xb)
        xb = b;
      continue;
    }
    if (xa >= 0)
      rect(c, xa, xb, top, bottom, css, tooltip);
    xa = a;
    xb = b;
  }
  if (xa >= 0)
    rect(c, xa, xb, top, bottom, css, tooltip);
}

void gw_chart_ticks(struct gw_chart *c, const int64_t *t_ns, size_t n, const char *css) {
  if (!t_ns || n == 0)
    return;
  fprintf(c->out, "<path class=\"%s\" d=\"", css);
  double last = -10;
  for (size_t i = 0; i < n; i++) {
    if (t_ns[i] < c->t0_ns || t_ns[i] > c->t1_ns)
      continue;
    double x = x_of(c, t_ns[i]);
    if (x - last < VIEW_W / GW_CHART_BUCKETS)
      continue;
    fprintf(c->out, "M%.1f 100V92", x);
    last = x;
  }
  fputs("\"/>", c->out);
}
