/* Time-series charts as inline SVG for the HTML report. A chart is an HTML
 * <figure>: the caption and its colour key, the axis labels (HTML, so they
 * stay readable at any width) and an SVG plot stretched to the figure's
 * width (viewBox 1000 x 100, strokes that do not scale). Colours and dashes
 * come from CSS classes, so the palette lives in the page's style sheet.
 * Long series are reduced to the minimum and maximum of each of about
 * GW_CHART_BUCKETS time buckets, which keeps spikes and dips visible. */
#ifndef GW_SVG_CHART_H
#define GW_SVG_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GW_CHART_BUCKETS 1000
#define GW_CHART_MAX_KEYS 8
#define GW_CHART_MAX_YLABELS 12
#define GW_CHART_PAUSE_PERIODS 5 /* see gw_chart_line */

struct gw_chart_key {
  const char *label; /* plain text, escaped when written */
  const char *css;   /* class of the series: "s-sm", or "b-cap" for a band */
  int band;          /* 1: the key shows a filled box rather than a line */
};

struct gw_chart {
  FILE *out;
  int64_t t0_ns, t1_ns; /* x range; t1 > t0 */
  double base_s;        /* seconds shown at t0 (the report's time origin) */
  double y0, y1;        /* y range; y1 > y0 */
  int height_px;
  const char *title;
  const char *unit; /* appended to the y labels, e.g. "%" or " W" */
  const char *aria; /* one sentence for screen readers */
  int nkeys;
  struct gw_chart_key keys[GW_CHART_MAX_KEYS];
  /* optional labels at fixed heights instead of numbers, written inside the
   * plot so every chart keeps the same time axis (the findings strip) */
  int nylabels;
  const char *ylabel_text[GW_CHART_MAX_YLABELS];
  double ylabel_at[GW_CHART_MAX_YLABELS];
  /* written by gw_chart_line, for tests */
  size_t points_written;
};

/* Open the figure and the SVG. */
void gw_chart_begin(struct gw_chart *c);
/* Close the SVG, write the time axis labels and close the figure. */
void gw_chart_end(struct gw_chart *c);

/* A polyline of v over t_ns (n samples, t ascending). NAN values are
 * skipped; the line breaks where the known values pause for more than
 * GW_CHART_PAUSE_PERIODS of the series' own median spacing. scale multiplies
 * every value. */
void gw_chart_line(struct gw_chart *c, const int64_t *t_ns, const double *v, size_t n, double scale, const char *css);
/* A horizontal line at value y. */
void gw_chart_hline(struct gw_chart *c, double y, const char *css);
/* Bands over the time ranges where on[i] is non-zero; sample i covers
 * [t_ns[i], t_ns[i] + dt_ns). Bands closer than a bucket merge, so a
 * flickering flag costs at most GW_CHART_BUCKETS rectangles. The band spans
 * the plot height between fractions top and bottom (0 = top, 1 = bottom). */
void gw_chart_runs(struct gw_chart *c, const int64_t *t_ns, const unsigned char *on, size_t n, int64_t dt_ns,
                   double top, double bottom, const char *css, const char *tooltip);
/* One band from a to b (ns). */
void gw_chart_band(struct gw_chart *c, int64_t a_ns, int64_t b_ns, double top, double bottom, const char *css,
                   const char *tooltip);
/* Short ticks at the bottom edge (step starts), thinned to one per bucket. */
void gw_chart_ticks(struct gw_chart *c, const int64_t *t_ns, size_t n, const char *css);

/* A round upper bound for an axis (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8
 * times a power of ten), at least v and at least min. */
double gw_chart_nice_max(double v, double min);

#endif
