/* The HTML report. Layout, top to bottom: the verdict (what a reader needs
 * first), the ledger bars and the run's facts side by side, the findings,
 * then the timelines that show the evidence, then how to read the numbers.
 * Everything taken from the recording goes through the HTML escaper. */
#include "core/sample.h"
#include "render/mfu_facts.h"
#include "render/kernel_facts.h"
#include "render/report_html.h"

#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/ledger.h"
#include "analysis/multi_gpu.h"
#include "analysis/rules.h"
#include "analysis/stats.h"
#include "core/i18n.h"
#include "analysis/activity_dips.h"
#include "render/escape.h"
#include "render/class_text.h"
#include "render/evidence_text.h"
#include "render/label_text.h"
#include "render/note_text.h"
#include "render/fix_text.h"
#include "render/report_render.h"
#include "render/svg_chart.h"
#include "render/multi_gpu_cells.h"

/* Okabe-Ito colours, distinguishable with the common colour-vision
 * deficiencies, plus a wine and greys; one per ledger row, in enum order.
 * Findings take the colour of the row they explain. */
static const char STYLE[] =
    ":root{--fg:#1a1a1a;--muted:#555;--line:#d0d0d0;--card:#fafafa}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);"
    "background:#fff}"
    "header,main,footer{max-width:1180px;margin:0 auto;padding:0 16px}"
    "h1{font-size:1.35em;margin:.8em 0 .3em;overflow-wrap:anywhere}"
    "h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid var(--line)}"
    "h3{font-size:1em;margin:1em 0 .2em}"
    ".verdict{border-left:8px solid #D55E00;background:#fff4ec;padding:.6em .9em;margin:.4em 0;font-size:1.1em}"
    ".verdict.ok{border-color:#009E73;background:#eefaf5}.verdict.nodata{border-color:#999;background:#f3f3f3}"
    ".verdict small{display:block;color:var(--muted);font-size:.85em}"
    ".row{display:flex;flex-wrap:wrap;gap:16px}.row>*{flex:1 1 340px;min-width:0}"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.6em .9em}"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em .8em;margin:0}"
    "dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}"
    "code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}"
    "table.ledger{border-collapse:collapse;width:100%;font-size:.92em}"
    "table.ledger td,table.ledger th{padding:.1em .4em;text-align:right;border-bottom:1px solid #eee}"
    "table.ledger td:nth-child(2),table.ledger th:nth-child(2){text-align:left}"
    ".bar{display:block;width:100%;height:28px;margin:.2em 0 .5em}"
    ".bar rect{stroke:#fff;stroke-width:1;vector-effect:non-scaling-stroke}"
    ".sw{width:24px;height:10px;vertical-align:middle;margin-right:.3em}"
    ".finding{border-left:6px solid #999}"
    ".finding h3{margin-top:.2em}.finding .meta{color:var(--muted);font-size:.9em}"
    ".finding ul{padding-left:1.2em;margin:.3em 0}.finding ol{padding-left:1.4em;margin:.3em 0}"
    ".finding li{margin:.15em 0}.when{color:var(--muted);font-size:.85em;white-space:nowrap}"
    ".why{color:var(--muted);font-size:.9em;display:block}"
    ".chart{margin:.3em 0 .9em}.chart figcaption{display:flex;flex-wrap:wrap;gap:.1em 1em;"
    "align-items:baseline;font-size:.92em}"
    ".key{white-space:nowrap;color:var(--muted)}"
    ".plot{position:relative;margin:.2em 0 1.5em 4.6em;border-left:1px solid #999;border-bottom:1px solid #999}"
    ".plot>svg{position:absolute;left:0;top:0;width:100%;height:100%;overflow:visible}"
    ".yl{position:absolute;right:100%;padding-right:.35em;font-size:.75em;color:var(--muted);"
    "transform:translateY(-50%);white-space:nowrap}"
    ".il{position:absolute;left:.3em;z-index:1;transform:translateY(-50%);font-size:.75em;white-space:nowrap;"
    "background:rgba(255,255,255,.85);padding:0 .3em;border-radius:2px}"
    ".xl{position:absolute;top:100%;font-size:.75em;color:var(--muted);transform:translateX(-50%);"
    "white-space:nowrap;padding-top:.15em}"
    "svg path,svg line{fill:none;vector-effect:non-scaling-stroke}"
    ".grid{stroke:#e4e4e4;stroke-width:1}"
    ".s-sm{stroke:#0072B2;stroke-width:2}.s-util{stroke:#E69F00;stroke-width:1.5;stroke-dasharray:5 3}"
    ".s-power{stroke:#D55E00;stroke-width:2}.s-limit{stroke:#1a1a1a;stroke-width:1.2;stroke-dasharray:2 3}"
    ".s-clock{stroke:#009E73;stroke-width:2}.s-rx{stroke:#0072B2;stroke-width:2}"
    ".s-tx{stroke:#E69F00;stroke-width:1.5;stroke-dasharray:5 3}"
    ".s-main{stroke:#CC79A7;stroke-width:2}.s-worker{stroke:#009E73;stroke-width:1.5;stroke-dasharray:5 3}"
    ".s-host{stroke:#777;stroke-width:1}.s-disk{stroke:#0072B2;stroke-width:2}"
    ".s-iowait{stroke:#D55E00;stroke-width:1.2;stroke-dasharray:2 3}"
    ".m-step{stroke:#1a1a1a;stroke-width:1}"
    ".b-dip{fill:#000;opacity:.07}.b-pdip{fill:#882255;opacity:.16}"
    ".b-cap{fill:#E69F00;opacity:.22}.b-hw{fill:#D55E00;opacity:.45}.b-thermal{fill:#CC79A7;opacity:.45}"
    ".b-brake{fill:#000;opacity:.45}"
    ".r-0{fill:#009E73;background:#009E73}.r-1{fill:#56B4E9;background:#56B4E9}"
    ".r-2{fill:#E69F00;background:#E69F00}.r-3{fill:#D55E00;background:#D55E00}"
    ".r-4{fill:#CC79A7;background:#CC79A7}.r-5{fill:#0072B2;background:#0072B2}"
    ".r-6{fill:#F0E442;background:#F0E442}.r-7{fill:#882255;background:#882255}"
    ".r-8{fill:#999;background:#999}.r-9{fill:#ddd;background:#ddd}"
    ".c-3{border-color:#D55E00}.c-1{border-color:#56B4E9}.c-4{border-color:#CC79A7}.c-6{border-color:#F0E442}"
    ".c-2{border-color:#E69F00}.c-7{border-color:#882255}"
    ".sq{display:inline-block;width:.9em;height:.9em;vertical-align:-.1em;border-radius:2px}"
    "footer{color:var(--muted);font-size:.85em;margin:2em auto 1em}"
    "@media (max-width:560px){body{font-size:14px}}";

/* Ledger row whose colour a class takes (its registry row says). */
static int class_row(const char *class_id) {
  const struct gw_rule *r = class_id ? gw_rule_find(class_id) : NULL;
  return r ? r->ledger_row : GW_ROW_IDLE_OTHER;
}

/* The time span the charts share. */
struct span {
  int64_t t0, t1;
  double base_s;
};

static void widen(struct span *s, int64_t a, int64_t b) {
  if (a <= 0 || b < a)
    return;
  if (!s->t0 || a < s->t0)
    s->t0 = a;
  if (b > s->t1)
    s->t1 = b;
}

static struct span chart_span(const struct gw_recording *rec, const struct gw_diagnosis *dx) {
  struct span s = {0, 0, 0};
  for (int i = 0; i < rec->ngpus; i++) {
    const struct gw_gpu_series *g = &rec->gpus[i];
    if (g->n)
      widen(&s, g->t_ns[0], g->t_ns[g->n - 1] + gw_typical_dt_ns(g));
  }
  if (rec->host.n)
    widen(&s, rec->host.t_ns[0], rec->host.t_ns[rec->host.n - 1]);
  if (!s.t0 && rec->started_ns && rec->ended_ns > rec->started_ns)
    widen(&s, rec->started_ns, rec->ended_ns);
  if (!s.t0) {
    s.t0 = 1;
    s.t1 = 1000000001;
  }
  s.base_s = gw_render_rel_s(dx, s.t0);
  return s;
}

static void chart_init(struct gw_chart *c, FILE *out, const struct span *sp, const char *title, const char *unit,
                       double y1, int height_px) {
  memset(c, 0, sizeof *c);
  c->out = out;
  c->t0_ns = sp->t0;
  c->t1_ns = sp->t1;
  c->base_s = sp->base_s;
  c->y0 = 0;
  c->y1 = y1;
  c->title = title;
  c->unit = unit;
  c->height_px = height_px;
}

static void chart_key(struct gw_chart *c, const char *label, const char *css, int band) {
  if (c->nkeys >= GW_CHART_MAX_KEYS)
    return;
  c->keys[c->nkeys].label = label;
  c->keys[c->nkeys].css = css;
  c->keys[c->nkeys].band = band;
  c->nkeys++;
}

static int has_values(const double *v, size_t n) {
  return v && gw_stats_count(v, n) > 0;
}

static double max_of(const double *v, size_t n, double scale) {
  double m = NAN;
  for (size_t i = 0; v && i < n; i++)
    if (!isnan(v[i]) && (isnan(m) || v[i] * scale > m))
      m = v[i] * scale;
  return m;
}

struct marks {
  unsigned char *dips;
  int periodic;
  char dip_label[96];
  int64_t *steps;
  size_t nsteps;
};

static void draw_marks(struct gw_chart *c, const struct gw_gpu_series *g, const struct marks *mk) {
  if (g && mk->dips)
    gw_chart_runs(c, g->t_ns, mk->dips, g->n, gw_typical_dt_ns(g), 0, 1, mk->periodic ? "b-pdip" : "b-dip",
                  mk->dip_label);
  gw_chart_ticks(c, mk->steps, mk->nsteps, "m-step");
}

static void key_marks(struct gw_chart *c, const struct marks *mk) {
  if (mk->dips)
    chart_key(c, mk->dip_label, mk->periodic ? "b-pdip" : "b-dip", 1);
  if (mk->nsteps)
    chart_key(c, _("step starts"), "m-step", 0);
}

/* A time chart's start: the keys of the marks after the chart's own keys,
 * then the marks under the lines drawn next. */
static void begin_with_marks(struct gw_chart *c, const struct gw_gpu_series *g, const struct marks *mk) {
  key_marks(c, mk);
  gw_chart_begin(c);
  draw_marks(c, g, mk);
}

static void gpu_charts(FILE *out, const struct gw_recording *rec, const struct gw_diagnosis *dx, int gi,
                       const struct span *sp, const struct gw_run_facts *facts) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  const struct gw_gpu_profile *p = &dx->profiles[gi];
  int64_t dt = gw_typical_dt_ns(g);
  const struct gw_gpu_facts *gf = facts ? gw_run_facts_gpu(facts, g->gpu) : NULL;
  fprintf(out, "<h3>GPU %d", g->gpu);
  if (g->name[0] || (gf && gf->name[0])) {
    fputs(": ", out);
    gw_html_write(out, g->name[0] ? g->name : gf->name);
  }
  fputs("</h3>\n", out);
  if (g->n == 0) {
    fprintf(out, "<p>%s</p>\n", _("No samples of this GPU."));
    return;
  }
  struct marks mk;
  memset(&mk, 0, sizeof mk);
  mk.dips = gw_activity_dip_flags(g);
  mk.periodic = p->period.found;
  if (mk.periodic)
    snprintf(mk.dip_label, sizeof mk.dip_label, _("periodic dips (every %.1f s)"), p->period.period_s);
  else
    snprintf(mk.dip_label, sizeof mk.dip_label, _("dips (below %.0f%% of the usual level)"),
             gw_activity_dip_frac_of_typical() * 100);
  if (rec->nsteps) {
    mk.steps = gw_xcalloc(rec->nsteps, sizeof *mk.steps);
    for (size_t i = 0; i < rec->nsteps; i++)
      mk.steps[mk.nsteps++] = rec->steps[i].start_ns;
  }

  struct gw_chart c;
  /* the model's columns as plain arrays for the charts (NULL where not recorded), freed at the end */
  double *sm = gw_column_range(g->m[GW_M_sm_active_pct], 0, g->n);
  double *util = gw_column_range(g->m[GW_M_util_gpu_pct], 0, g->n);
  chart_init(&c, out, sp, _("SM activity beside GPU-Util"), "%", 100, 120);
  c.aria = _("Line chart over time of the share of SMs busy and of nvidia-smi's GPU-Util, in percent.");
  if (has_values(sm, g->n))
    chart_key(&c, _("SM activity (real work)"), "s-sm", 0);
  if (has_values(util, g->n))
    chart_key(&c, _("GPU-Util (a kernel was resident)"), "s-util", 0);
  begin_with_marks(&c, g, &mk);
  gw_chart_line(&c, g->t_ns, util, g->n, 1, "s-util");
  gw_chart_line(&c, g->t_ns, sm, g->n, 1, "s-sm");
  gw_chart_end(&c);

  double *power = gw_column_range(g->m[GW_M_power_mw], 0, g->n);
  double *limit = gw_column_range(g->h[GW_M_power_limit_mw], 0, g->nh);
  double lim_w = isnan(p->power_limit_w) ? NAN : p->power_limit_w;
  double ymax = gw_chart_nice_max(fmax(isnan(lim_w) ? 0 : lim_w, max_of(power, g->n, 1e-3)) * 1.05, 10);
  chart_init(&c, out, sp, _("Power against its limit"), " W", ymax, 100);
  c.aria = _("Line chart over time of board power in watts, with the enforced power limit.");
  chart_key(&c, _("power draw"), "s-power", 0);
  chart_key(&c, _("power limit"), "s-limit", 0);
  begin_with_marks(&c, g, &mk);
  if (has_values(limit, g->nh))
    gw_chart_line(&c, g->ht_ns, limit, g->nh, 1e-3, "s-limit");
  else
    gw_chart_hline(&c, lim_w, "s-limit");
  gw_chart_line(&c, g->t_ns, power, g->n, 1e-3, "s-power");
  gw_chart_end(&c);

  /* Clock reasons as translucent bands behind the clock line. */
  static const struct {
    uint64_t mask;
    const char *css, *label;
  } reasons[] = {{GW_CLK_SW_POWER_CAP, "b-cap", N_("SW power cap (the board's limit)")},
                 {GW_CLK_HW_SLOWDOWN, "b-hw", N_("HW slowdown")},
                 {GW_CLK_SW_THERMAL | GW_CLK_HW_THERMAL, "b-thermal", N_("thermal slowdown")},
                 {GW_CLK_HW_POWER_BRAKE, "b-brake", N_("power brake")}};
  double *clk = gw_column_range(g->m[GW_M_sm_clock_mhz], 0, g->n);
  double *rs = gw_column_range(g->m[GW_M_clock_reasons], 0, g->n);
  double cmax = isnan(g->sm_clock_max_mhz) ? max_of(clk, g->n, 1) : g->sm_clock_max_mhz;
  chart_init(&c, out, sp, _("SM clock and why it is held down"), " MHz", gw_chart_nice_max(cmax, 100), 100);
  c.aria = _("Line chart over time of the SM clock in megahertz, with bands where a clock event reason was set.");
  chart_key(&c, _("SM clock"), "s-clock", 0);
  unsigned char *on[sizeof reasons / sizeof reasons[0]] = {0};
  for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++) {
    int any = 0;
    on[r] = gw_xcalloc(g->n + 1, 1);
    for (size_t i = 0; rs && i < g->n; i++)
      if (!isnan(rs[i]) && ((uint64_t)rs[i] & reasons[r].mask)) {
        on[r][i] = 1;
        any = 1;
      }
    if (any)
      chart_key(&c, _(reasons[r].label), reasons[r].css, 1);
  }
  gw_chart_begin(&c);
  for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++)
    gw_chart_runs(&c, g->t_ns, on[r], g->n, dt, 0, 1, reasons[r].css, _(reasons[r].label));
  if (!isnan(g->sm_clock_max_mhz))
    gw_chart_hline(&c, g->sm_clock_max_mhz, "grid");
  gw_chart_line(&c, g->t_ns, clk, g->n, 1, "s-clock");
  gw_chart_end(&c);
  for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++)
    free(on[r]);

  double *rx = gw_column_range(g->m[GW_M_pcie_rx_bps], 0, g->n);
  double *tx = gw_column_range(g->m[GW_M_pcie_tx_bps], 0, g->n);
  if (has_values(rx, g->n) || has_values(tx, g->n)) {
    double m = fmax(max_of(rx, g->n, 1e-9), max_of(tx, g->n, 1e-9));
    chart_init(&c, out, sp, _("PCIe traffic"), " GB/s", gw_chart_nice_max(isnan(m) ? 0 : m, 0.1), 90);
    c.aria = _("Line chart over time of PCIe receive and transmit rates in gigabytes per second.");
    chart_key(&c, _("received (host to GPU)"), "s-rx", 0);
    chart_key(&c, _("sent (GPU to host)"), "s-tx", 0);
    begin_with_marks(&c, g, &mk);
    gw_chart_line(&c, g->t_ns, tx, g->n, 1e-9, "s-tx");
    gw_chart_line(&c, g->t_ns, rx, g->n, 1e-9, "s-rx");
    gw_chart_end(&c);
  }
  double *columns[] = {sm, util, power, limit, clk, rs, rx, tx};
  for (size_t k = 0; k < sizeof columns / sizeof columns[0]; k++)
    free(columns[k]);
  free(mk.dips);
  free(mk.steps);
}

/* The host charts carry GPU 0's dips, so a reader sees what the CPU and
 * the disks did while the GPU waited. */
static void host_charts(FILE *out, const struct gw_recording *rec, const struct gw_diagnosis *dx,
                        const struct span *sp) {
  const struct gw_host_series *h = &rec->host;
  fprintf(out, "<h3>%s</h3>\n", _("Host"));
  if (h->n == 0) {
    fprintf(out, "<p>%s</p>\n", _("No host samples in this recording."));
    return;
  }
  struct marks mk;
  memset(&mk, 0, sizeof mk);
  const struct gw_gpu_series *g0 = rec->ngpus > 0 ? &rec->gpus[0] : NULL;
  if (g0 && (mk.dips = gw_activity_dip_flags(g0))) {
    mk.periodic = dx->profiles[0].period.found;
    snprintf(mk.dip_label, sizeof mk.dip_label, mk.periodic ? _("GPU %d periodic dips") : _("GPU %d dips"), g0->gpu);
  }
  if (rec->nsteps) {
    mk.steps = gw_xcalloc(rec->nsteps, sizeof *mk.steps);
    for (size_t i = 0; i < rec->nsteps; i++)
      mk.steps[mk.nsteps++] = rec->steps[i].start_ns;
  }
  struct gw_chart c;
  /* a single start-up spike (imports on every core) would flatten the rest: scale to the 99th percentile */
  double m = fmax(gw_stats_quantile(h->main_cpu_pct, h->n, 0.99), gw_stats_quantile(h->worker_cpu_max_pct, h->n, 0.99));
  chart_init(&c, out, sp, _("CPU of the training process and its loader workers"), "%",
             gw_chart_nice_max(isnan(m) ? 100 : m * 1.15, 100), 110);
  c.aria = _("Line chart over time of CPU use of the main process and of the busiest loader worker, in percent of one "
             "core, and of the whole host.");
  if (has_values(h->main_cpu_pct, h->n))
    /* xgettext:no-c-format */
    chart_key(&c, _("main process (% of one core)"), "s-main", 0);
  if (has_values(h->worker_cpu_max_pct, h->n))
    /* xgettext:no-c-format */
    chart_key(&c, _("busiest loader worker (% of one core)"), "s-worker", 0);
  /* xgettext:no-c-format */
  chart_key(&c, _("whole host (% of all cores)"), "s-host", 0);
  begin_with_marks(&c, g0, &mk);
  gw_chart_line(&c, h->t_ns, h->cpu_busy_pct, h->n, 1, "s-host");
  gw_chart_line(&c, h->t_ns, h->worker_cpu_max_pct, h->n, 1, "s-worker");
  gw_chart_line(&c, h->t_ns, h->main_cpu_pct, h->n, 1, "s-main");
  gw_chart_end(&c);

  if (has_values(h->disk_util_max_pct, h->n)) {
    chart_init(&c, out, sp, _("Disk"), "%", 100, 90);
    c.aria = _("Line chart over time of the busiest disk's utilisation and of the host's iowait, in percent.");
    chart_key(&c, _("busiest disk utilisation"), "s-disk", 0);
    if (has_values(h->iowait_pct, h->n))
      /* xgettext:no-c-format */
      chart_key(&c, _("CPU iowait (% of all cores)"), "s-iowait", 0);
    begin_with_marks(&c, g0, &mk);
    gw_chart_line(&c, h->t_ns, h->iowait_pct, h->n, 1, "s-iowait");
    gw_chart_line(&c, h->t_ns, h->disk_util_max_pct, h->n, 1, "s-disk");
    gw_chart_end(&c);
  }
  free(mk.dips);
  free(mk.steps);
}

/* One row per finding with its evidence's time ranges. */
static void findings_strip(FILE *out, const struct gw_diagnosis *dx, const struct span *sp) {
  int rows = 0;
  for (int i = 0; i < dx->nfindings; i++)
    for (int e = 0; e < dx->findings[i].nevidence; e++)
      if (dx->findings[i].evidence[e].t1_ns > dx->findings[i].evidence[e].t0_ns) {
        rows++;
        break;
      }
  if (rows == 0)
    return;
  struct gw_chart c;
  chart_init(&c, out, sp, _("When the findings' evidence was seen"), "", dx->nfindings, 22 * dx->nfindings + 8);
  c.aria = _("One row per finding, with bands over the time ranges its evidence comes from.");
  for (int i = 0; i < dx->nfindings && i < GW_CHART_MAX_YLABELS; i++) {
    c.ylabel_text[c.nylabels] = dx->findings[i].class_id;
    c.ylabel_at[c.nylabels++] = dx->nfindings - i - 0.5;
  }
  gw_chart_begin(&c);
  for (int i = 0; i < dx->nfindings; i++) {
    const struct gw_finding *f = &dx->findings[i];
    char css[16];
    snprintf(css, sizeof css, "r-%d", class_row(f->class_id));
    double top = (double)i / dx->nfindings, bottom = (double)(i + 1) / dx->nfindings;
    for (int e = 0; e < f->nevidence; e++)
      if (f->evidence[e].t1_ns > f->evidence[e].t0_ns) {
        char line[GW_TEXT];
        gw_evidence_text(&f->evidence[e], 1, line, sizeof line);
        gw_chart_band(&c, f->evidence[e].t0_ns, f->evidence[e].t1_ns, top + 0.12 / dx->nfindings,
                      bottom - 0.12 / dx->nfindings, css, line);
      }
  }
  gw_chart_end(&c);
}

static void verdict(FILE *out, const struct gw_diagnosis *dx) {
  if (strcmp(dx->verdict, "no_data") == 0) {
    fprintf(out, "<p class=\"verdict nodata\"><b>%s</b> %s</p>\n", _("No data:"),
            _("no GPU did any work in this recording."));
    return;
  }
  if (strcmp(dx->verdict, "unexplained") == 0) {
    fprintf(out, "<p class=\"verdict nodata\"><b>%s</b> ", _("Unexplained:"));
    if (dx->nfindings > 0)
      fprintf(out,
              _("%.0f%% of the active GPU time was lost; the largest class found, %s, explains %.0f%% of it, too "
                "little to name; the next experiments would decide."),
              dx->lost_ns / dx->active_ns * 100, dx->findings[0].class_id, dx->findings[0].share_of_lost * 100);
    else
      fprintf(out,
              _("%.0f%% of the active GPU time was lost and no class's evidence holds; the next experiments would "
                "decide."),
              dx->lost_ns / dx->active_ns * 100);
    /* what the samples saw the thread do; the frame is the program's text */
    char activity[768];
    if (gw_idle_largest_activity_text(dx->attr, dx->ngpus, activity, sizeof activity)) {
      fputs(" ", out);
      gw_html_write(out, activity);
    }
    fputs("</p>\n", out);
    return;
  }
  if (dx->nfindings == 0 && dx->sm_blind) {
    double busy = dx->active_ns > 0 ? 1 - dx->lost_ns / dx->active_ns : 0;
    fprintf(out, "<p class=\"verdict nodata\"><b>%s</b> ", _("Nothing seen, but the GPU's work was not measured."));
    fprintf(out,
            _("A kernel was resident %.0f%% of the active time (GPU-Util); without GPM or a kernel trace, batches too "
              "small to fill the GPU look the same. The experiment below decides."),
            busy * 100);
    fputs("</p>\n", out);
    return;
  }
  if (dx->nfindings == 0) {
    double prod = dx->active_ns > 0 ? 1 - dx->lost_ns / dx->active_ns : 0;
    fprintf(out, "<p class=\"verdict ok\"><b>%s</b> ", _("Nothing to fix."));
    fprintf(out, _("The GPUs did real work, or ran at their power limit, for %.0f%% of their active time."),
            prod * 100);
    fputs("</p>\n", out);
    return;
  }
  const struct gw_finding *f = &dx->findings[0];
  fputs("<p class=\"verdict\"><b>", out);
  gw_html_write(out, gw_class_title(f->class_id, 1));
  fputs("</b> ", out);
  fprintf(out, _("explains %.0f%% of the lost GPU time (confidence %.2f)."), f->share_of_lost * 100, f->confidence);
  if (dx->active_ns > 0) {
    fputs("<small>", out);
    /* milliseconds below a second: an imported step would read 0.0 s */
    fprintf(out,
            dx->active_ns >= 1e9 ? _("%.0f%% of %.1f s of active GPU time was lost")
                                 : _("%.0f%% of %.2f ms of active GPU time was lost"),
            dx->lost_ns / dx->active_ns * 100, dx->active_ns >= 1e9 ? dx->active_ns / 1e9 : dx->active_ns / 1e6);
  }
  if (dx->nfindings > 1) {
    fputs(_("; also: "), out);
    for (int i = 1; i < dx->nfindings; i++) {
      fputs(i > 1 ? ", " : "", out);
      gw_html_write(out, gw_class_title(dx->findings[i].class_id, 1));
      fprintf(out, " (%.0f%%)", dx->findings[i].share_of_lost * 100);
    }
  }
  fputs(dx->active_ns > 0 ? ".</small></p>\n" : "</p>\n", out);
}

/* MFU and goodput: the text report's lines, escaped, one paragraph each. */
static void mfu_card(FILE *out, const struct gw_diagnosis *dx) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return;
  gw_mfu_facts_text(dx, mem, "", "");
  fclose(mem);
  if (len > 0) {
    fputs("<div class=\"card mfu\">", out);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
      fputs("<p>", out);
      gw_html_write(out, line);
      fputs("</p>", out);
    }
    fputs("</div>\n", out);
  }
  free(text);
}

static void ledger(FILE *out, const struct gw_diagnosis *dx) {
  fprintf(out, "<div class=\"card\"><h2 style=\"margin-top:.2em\">%s</h2>", _("Where each GPU's time went"));
  fprintf(out, "<p class=\"why\">%s</p>",
          dx->estimated ? _("Estimated from sampled counters (no kernel timeline).") : _("From the kernel timeline."));
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_ledger *l = &dx->ledgers[i];
    fprintf(out,
            "<div>GPU %d</div><svg class=\"bar\" viewBox=\"0 0 1000 28\" preserveAspectRatio=\"none\" "
            "role=\"img\" aria-label=\"",
            l->gpu);
    fprintf(out, _("GPU %d time ledger"), l->gpu);
    fputs("\">", out);
    double x = 0;
    for (int r = 0; r < GW_LEDGER_NROWS; r++) {
      double share = l->measured[r] ? gw_render_row_share(l, r) : 0;
      if (share <= 0)
        continue;
      fprintf(out, "<rect class=\"r-%d\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"28\"><title>", r, x * 1000,
              share * 1000);
      gw_html_write(out, gw_row_title(gw_diagnosis_row_title_id(dx, r)));
      fprintf(out, ": %.1f%%</title></rect>", share * 100);
      x += share;
    }
    fputs("</svg>\n", out);
  }
  /* TRANSLATORS: heading of the ledger table's column of row names */
  fprintf(out, "<table class=\"ledger\"><tr><th></th><th>%s</th>", _("row"));
  for (int i = 0; i < dx->ngpus; i++)
    fprintf(out, "<th>GPU %d</th>", dx->ledgers[i].gpu);
  fputs("</tr>\n", out);
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    fprintf(out, "<tr><td><span class=\"sq r-%d\"></span></td><td>", r);
    gw_html_write(out, gw_row_title(gw_diagnosis_row_title_id(dx, r)));
    fputs("</td>", out);
    for (int i = 0; i < dx->ngpus; i++) {
      const struct gw_ledger *l = &dx->ledgers[i];
      if (!l->measured[r])
        fprintf(out, "<td title=\"%s\">&ndash;</td>", _("not measurable from this recording"));
      else
        fprintf(out, "<td>%.1f%%</td>", gw_render_row_share(l, r) * 100);
    }
    fputs("</tr>\n", out);
  }
  fputs("</table>", out);
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_ledger *l = &dx->ledgers[i];
    if (l->throttled_power_cap_ns > 0 && l->wall_ns > 0) {
      fputs("<p class=\"why\">", out);
      fprintf(out,
              _("GPU %d: %.1f%% of its time was held at the SW power cap, the board's own limit; that is not lost "
                "time."),
              l->gpu, l->throttled_power_cap_ns / (double)l->wall_ns * 100);
      fputs("</p>", out);
    }
  }
  fputs("</div>\n", out);
}

static void fmt_utc(int64_t t_ns, char *buf, size_t cap) {
  time_t sec = (time_t)(t_ns / 1000000000LL);
  struct tm tm;
  if (t_ns <= 0 || !gmtime_r(&sec, &tm) || strftime(buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
    gw_strlcpy(buf, _("unknown"), cap);
}

static void fact(FILE *out, const char *name, const char *value, int is_code) {
  if (!value || !value[0])
    return;
  fprintf(out, "<dt>%s</dt><dd>%s", name, is_code ? "<code>" : "");
  gw_html_write(out, value);
  fprintf(out, "%s</dd>", is_code ? "</code>" : "");
}

static void facts_card(FILE *out, const struct gw_recording *rec, const struct gw_diagnosis *dx,
                       const struct gw_run_facts *f) {
  char buf[512];
  fprintf(out, "<div class=\"card\"><h2 style=\"margin-top:.2em\">%s</h2><dl class=\"facts\">", _("The run"));
  fact(out, _("recording"), gw_render_basename(dx->path), 1);
  if (f)
    fact(out, _("command"), f->command, 1);
  fmt_utc(rec->started_ns, buf, sizeof buf);
  fact(out, _("started"), buf, 0);
  if (rec->started_ns && rec->ended_ns > rec->started_ns) {
    snprintf(buf, sizeof buf, "%.1f s", (double)(rec->ended_ns - rec->started_ns) / 1e9);
    fact(out, _("duration"), buf, 0);
  }
  for (int i = 0; i < rec->ngpus; i++) {
    const struct gw_gpu_series *g = &rec->gpus[i];
    const struct gw_gpu_facts *gf = f ? gw_run_facts_gpu(f, g->gpu) : NULL;
    char label[32];
    snprintf(label, sizeof label, "GPU %d", g->gpu);
    snprintf(buf, sizeof buf, "%s%s%s%s", g->name[0] ? g->name : _("unknown model"), gf && gf->uuid[0] ? " (" : "",
             gf ? gf->uuid : "", gf && gf->uuid[0] ? ")" : "");
    fact(out, label, buf, 0);
  }
  if (f && f->driver_version[0]) {
    if (f->cuda_driver_version > 0)
      snprintf(buf, sizeof buf, "%s (CUDA %d.%d)", f->driver_version, f->cuda_driver_version / 1000,
               f->cuda_driver_version % 1000 / 10);
    else
      gw_strlcpy(buf, f->driver_version, sizeof buf);
    fact(out, _("driver"), buf, 0);
  }
  if (f && (f->hostname[0] || f->cpu_model[0])) {
    snprintf(buf, sizeof buf, _("%s%s%s, %d physical cores"), f->hostname,
             f->hostname[0] && f->cpu_model[0] ? ", " : "", f->cpu_model, f->physical_cores);
    fact(out, _("host"), buf, 0);
  }
  if (rec->interval_ms > 0) {
    /* a sampled trace leaves has_timeline at 0 but still holds kernels inside its windows */
    if (rec->timeline_sampled)
      snprintf(buf, sizeof buf, _("every %d ms, with a sampled kernel trace (%zu windows)"), rec->interval_ms,
               rec->nwindows);
    else
      snprintf(buf, sizeof buf,
               rec->has_timeline ? _("every %d ms, with the kernel tracer") : _("every %d ms (counters only)"),
               rec->interval_ms);
    fact(out, _("sampling"), buf, 0);
  }
  if (dx->steps.n >= 2 && !isnan(dx->steps.median_s)) {
    snprintf(buf, sizeof buf, _("%d, median %.1f ms (%s)"), dx->steps.n, dx->steps.median_s * 1e3,
             dx->steps.from_table ? _("marked by the program") : _("estimated from the activity rhythm"));
    fact(out, _("steps"), buf, 0);
  }
  if (f && f->exit_status >= 0) {
    snprintf(buf, sizeof buf, "%d", f->exit_status);
    fact(out, _("exit status"), buf, 0);
  }
  if (rec->gpu_note[0])
    fact(out, _("no GPU data"), rec->gpu_note, 0);
  fputs("</dl>", out);
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *p = &dx->profiles[i];
    if (isnan(p->util_med_pct))
      continue;
    fputs("<p class=\"why\">", out);
    fprintf(out, _("GPU %d medians while working: GPU-Util %.0f%%"), p->gpu, p->util_med_pct);
    if (!isnan(p->sm_med_pct))
      fprintf(out, _(", SM activity %.1f%%"), p->sm_med_pct);
    if (!isnan(p->power_med_w))
      fprintf(out, _(", power %.0f of %.0f W"), p->power_med_w, p->power_limit_w);
    fputs(".</p>", out);
  }
  fputs("</div>\n", out);
}

static void html_cell(FILE *out, double v, const char *unit) {
  if (isnan(v))
    fputs("<td>&ndash;</td>", out);
  else
    fprintf(out, "<td>%.0f%s</td>", v, unit);
}

/* The kernel timeline of the traced GPUs, the rows of the text report. */
static void kernels_card(FILE *out, const struct gw_diagnosis *dx) {
  int sampled = 0;
  if (!gw_kernel_facts_present(dx->kstats, dx->ngpus, &sampled))
    return;
  fprintf(out, "<h2>%s</h2><div class=\"card\" id=\"kernels\"><p class=\"why\">%s</p>", _("Kernel timeline"),
          sampled ? _("Sampled trace: every figure covers the trace windows only.")
                  : _("Every traced kernel of the run."));
  fputs("<table class=\"ledger\"><tr><th></th>", out);
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->kstats[i].nkernels > 0)
      fprintf(out, "<th>GPU %d</th>", dx->ledgers[i].gpu);
  fputs("</tr>\n", out);
  for (int r = 0; r < GW_KFACT_COUNT; r++) {
    if (r == GW_KFACT_WINDOW_GAPS && !sampled)
      continue;
    fputs("<tr><td>", out);
    gw_html_write(out, gw_kernel_fact_label((enum gw_kernel_fact_id)r));
    fputs("</td>", out);
    for (int i = 0; i < dx->ngpus; i++) {
      char v[160];
      if (dx->kstats[i].nkernels <= 0)
        continue;
      gw_kernel_fact_value(&dx->kstats[i], (enum gw_kernel_fact_id)r, v, sizeof v);
      fputs("<td>", out);
      gw_html_write(out, v);
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</table></div>\n", out);
}

/* Per GPU: what nvidia-smi shows beside what tells the ranks apart. */
static void multi_gpu(FILE *out, const struct gw_diagnosis *dx) {
  const struct gw_multi_gpu *m = dx->multi;
  if (!m)
    return;
  fputs("<h2>", out);
  fprintf(out, _("Multi-GPU: %d GPUs"), m->ngpus);
  fprintf(out, "</h2><div class=\"card\" id=\"multi-gpu\"><p class=\"why\">%s</p>",
          m->timeline == GW_MGPU_FULL      ? _("NCCL time from the kernel timeline.")
          : m->timeline == GW_MGPU_SAMPLED ? _("NCCL time measured inside the sampled trace windows.")
                                           : _("Counters only: no kernel timeline, so no NCCL time."));
  fputs("<table class=\"ledger\"><tr><th></th><th>GPU</th>", out);
  /* TRANSLATORS: headings of the multi-GPU table's columns */
  const char *heads[] = {"rank",        "GPU-Util",      _("SM activity"), _("tensor"),
                         _("SM clock"), _("NCCL share"), _("overlapped"),  _("transport")};
  for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++)
    fprintf(out, "<th>%s</th>", heads[h]);
  fputs("</tr>\n", out);
  for (int i = 0; i < m->ngpus; i++) {
    const struct gw_mgpu_gpu *g = &m->gpus[i];
    if (i == m->straggler)
      fprintf(out, "<tr><td title=\"%s\">&#9873;</td><td>", _("straggler"));
    else
      fputs("<tr><td></td><td>", out);
    gw_html_write(out, g->label);
    fputs("</td>", out);
    struct gw_mgpu_cell cells[GW_MGPU_NUMBER_COLUMNS];
    gw_mgpu_number_cells(g, cells);
    for (int c = 0; c < GW_MGPU_NUMBER_COLUMNS; c++)
      html_cell(out, cells[c].value, cells[c].unit);
    fputs("<td>", out);
    gw_html_write(out, g->transport[0] ? g->transport : "-");
    fputs("</td></tr>\n", out);
  }
  fputs("</table><ul>", out);
  if (!isnan(m->sm_spread_pts)) {
    fputs("<li>", out);
    fprintf(out,
            m->sm_spread_unequal ? _("SM activity spread: %.0f points (the GPUs do unequal work: at least %.0f).")
                                 : _("SM activity spread: %.0f points (balanced: under %.0f)."),
            m->sm_spread_pts, m->sm_spread_limit_pts);
    fputs("</li>", out);
  }
  if (m->straggler >= 0) {
    fprintf(out, "<li><b>%s ", _("Straggler:"));
    gw_html_write(out, m->gpus[m->straggler].label);
    fputs("</b>: ", out);
    gw_html_write(out, gw_straggler_cause_text(m->cause));
    fprintf(out, "%s</li>", _("; the other GPUs wait for it."));
  }
  if (!isnan(m->exposed_share)) {
    fputs("<li>", out);
    fprintf(out, _("NCCL time not overlapped with compute: %.1f%% of the traced GPU time."), m->exposed_share * 100);
    fputs("</li>", out);
  }
  if (!isnan(m->shared_dip_share) && m->shared_dip_share + m->solo_dip_share > 0) {
    fputs("<li>", out);
    fprintf(out, _("Dips on all GPUs at once: %.0f%% of the time; on one GPU alone: up to %.0f%%."),
            m->shared_dip_share * 100, m->solo_dip_share * 100);
    fputs("</li>", out);
  }
  if (!m->nccl.has_log) {
    fputs("<li>", out);
    /* TRANSLATORS: %s is the environment variable setting NCCL_DEBUG=INFO, in HTML code markup */
    fprintf(out, _("No NCCL log in this recording: run with %s to see the transport."), "<code>NCCL_DEBUG=INFO</code>");
    fputs("</li>", out);
  } else {
    fputs("<li>NCCL ", out);
    gw_html_write(out, m->nccl.version[0] ? m->nccl.version : _("(version not logged)"));
    fputs(_(", network "), out);
    gw_html_write(out, m->nccl.network[0] ? m->nccl.network : "-");
    fputs(".</li>", out);
  }
  for (int a = 0; a < GW_NCCL_NADVICE; a++)
    if (m->nccl.advice[a]) {
      fprintf(out, "<li><b>%s</b> ", _("Check:"));
      gw_html_write(out, gw_nccl_advice_text((enum gw_nccl_advice)a));
      fputs("</li>", out);
    }
  for (int w = 0; w < m->nccl.nwarnings && w < GW_NCCL_MAX_WARN; w++) {
    fputs("<li><code>NCCL WARN ", out);
    gw_html_write(out, m->nccl.warnings[w]);
    fputs("</code></li>", out);
  }
  fputs("</ul></div>\n", out);
}

static void findings(FILE *out, const struct gw_diagnosis *dx) {
  if (dx->nfindings == 0)
    return;
  fprintf(out, "<h2>%s</h2><div class=\"row\">\n", _("Findings, largest first"));
  for (int i = 0; i < dx->nfindings; i++) {
    const struct gw_finding *f = &dx->findings[i];
    fprintf(out, "<div class=\"card finding c-%d\"><h3>%d. ", class_row(f->class_id), i + 1);
    gw_html_write(out, gw_class_title(f->class_id, 1));
    fputs(" <code>", out);
    gw_html_write(out, f->class_id);
    fputs("</code></h3><div class=\"meta\">", out);
    fprintf(out, _("%.0f%% of the lost GPU time (%.0f%% of the active time), confidence %.2f%s"),
            f->share_of_lost * 100, f->share_of_active * 100, f->confidence, f->fix_first ? _("; fix this first") : "");
    fputs("</div><ul>", out);
    for (int e = 0; e < f->nevidence; e++) {
      char line[GW_TEXT];
      gw_evidence_text(&f->evidence[e], 1, line, sizeof line);
      fputs("<li>", out);
      gw_html_write(out, line);
      if (f->evidence[e].t0_ns || f->evidence[e].t1_ns)
        fprintf(out, " <span class=\"when\">[%.1f s &ndash; %.1f s]</span>", gw_render_rel_s(dx, f->evidence[e].t0_ns),
                gw_render_rel_s(dx, f->evidence[e].t1_ns));
      fputs("</li>", out);
    }
    fprintf(out, "</ul><b>%s</b><ol>", _("Try, cheapest first:"));
    for (int k = 0; k < f->nfixes; k++) {
      fputs("<li>", out);
      gw_html_write(out, gw_fix_what(&f->fixes[k], 1));
      fputs("<span class=\"why\">", out);
      gw_html_write(out, gw_fix_why(&f->fixes[k], 1));
      fputs("</span></li>", out);
    }
    fputs("</ol></div>\n", out);
  }
  fputs("</div>\n", out);
}

/* A titled list of n notes' sentences, in the reader's language; nothing
 * when there are none. */
static void note_list(FILE *out, const char *title, const struct gw_evidence *notes, int n) {
  if (n <= 0)
    return;
  char line[GW_TEXT];
  fprintf(out, "<h2>%s</h2><ul>", title);
  for (int i = 0; i < n; i++) {
    fputs("<li>", out);
    gw_note_text(&notes[i], 1, line, sizeof line);
    gw_html_write(out, line);
    fputs("</li>", out);
  }
  fputs("</ul>\n", out);
}

static void lists(FILE *out, const struct gw_diagnosis *dx) {
  char line[GW_TEXT];
  note_list(out, _("Reading the numbers"), dx->interp, dx->ninterp);
  if (dx->nexperiments > 0) {
    fprintf(out, "<h2>%s</h2><p class=\"why\">%s</p><ul>", _("Next experiments"),
            _("The data cannot decide these alone."));
    for (int i = 0; i < dx->nexperiments; i++) {
      fputs("<li><code>", out);
      gw_html_write(out, dx->experiments[i].what);
      fputs("</code><span class=\"why\">", out);
      gw_note_id_text(dx->experiments[i].why_id, 1, line, sizeof line);
      gw_html_write(out, line);
      fputs("</span></li>", out);
    }
    fputs("</ul>\n", out);
  }
  note_list(out, _("Notes"), dx->notes, dx->nnotes);
}

const char *gw_report_html_style(void) {
  return STYLE;
}

void gw_render_html(const struct gw_recording *rec, const struct gw_diagnosis *dx, const struct gw_run_facts *facts,
                    FILE *out) {
  const char *name = gw_render_basename(dx->path);
  /* TRANSLATORS: the language of the HTML pages, a BCP 47 tag for <html lang>: zh-CN in Chinese */
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">", _("en"));
  fputs("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<meta name=\"generator\" content=\"gpuwhy\"><title>gpuwhy: ",
        out);
  gw_html_write(out, name);
  fprintf(out, "</title><style>%s</style></head>\n<body data-gw=\"static\">\n<header><h1>%s ", STYLE,
          _("Why the GPU waited:"));
  gw_html_write(out, name);
  fputs("</h1>\n", out);
  verdict(out, dx);
  fputs("</header>\n<main>\n<div class=\"row\">\n", out);
  if (dx->ngpus > 0)
    ledger(out, dx);
  facts_card(out, rec, dx, facts);
  fputs("</div>\n", out);
  mfu_card(out, dx);
  multi_gpu(out, dx);
  kernels_card(out, dx);
  findings(out, dx);

  struct span sp = chart_span(rec, dx);
  fprintf(out, "<h2>%s</h2><p class=\"why\">%s</p>\n", _("Timelines"),
          _("Time in seconds from the start of the recording. Shaded: dips in the GPU's activity; ticks on the bottom "
            "edge: step starts when the program marked them."));
  findings_strip(out, dx, &sp);
  for (int i = 0; i < rec->ngpus; i++)
    gpu_charts(out, rec, dx, i, &sp, facts);
  host_charts(out, rec, dx, &sp);
  lists(out, dx);
  fputs("</main>\n<footer>", out);
  fprintf(out, _("Made by gpuwhy %s from"), gw_version());
  fputs(" <code>", out);
  gw_html_write(out, name);
  /* The only script: marks the page as rendered, which the tests look for. */
  fputs("</code>. <span id=\"gw-js\"></span></footer>\n"
        "<script>document.body.dataset.gw='ready';"
        "document.getElementById('gw-js').textContent='",
        out);
  fputs(_("Self-contained page: no network needed."), out);
  fputs("';</script>\n</body></html>\n", out);
}

gw_status gw_render_html_file(const char *path, FILE *out, struct gw_err *err) {
  struct gw_recording *rec = NULL;
  struct gw_diagnosis *dx = NULL;
  gw_status rc = gw_recording_load(path, &rec, err);
  if (rc)
    return rc;
  if ((rc = gw_diagnose(rec, &dx, err))) {
    gw_recording_free(rec);
    return rc;
  }
  struct gw_run_facts *facts = gw_xcalloc(1, sizeof *facts);
  struct gw_err ferr = {{0}};
  int have_facts = gw_run_facts_of(rec, facts, &ferr) == GW_OK;
  gw_render_html(rec, dx, have_facts ? facts : NULL, out);
  free(facts);
  gw_diagnosis_free(dx);
  gw_recording_free(rec);
  return GW_OK;
}
