/* gpuwhy sweep's table (gw_sweep_table) and its knee (see sweep.h). */
#include "compare/sweep.h"

#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_render.h"
#include "compare/run_load.h"
#include "core/i18n.h"
#include "core/json_write.h"
#include "core/util.h"
#include "render/renderer_formats.h"

void gw_sweep_find_knee(const double *x, const double *thr, int n, double min_gain, struct gw_sweep_knee *out) {
  memset(out, 0, sizeof *out);
  out->at = out->next = -1;
  out->gain = out->gain_per_doubling = out->min_gain_before = out->last_gain_per_doubling = NAN;
  int prev = -1, pairs = 0;
  for (int i = 0; i < n; i++) {
    if (!(x[i] > 0) || isnan(x[i]))
      return; /* not a numeric sweep */
    if (i > 0 && !(x[i] > x[i - 1]))
      return;
  }
  for (int j = 0; j < n; j++) {
    if (!(thr[j] > 0))
      continue;
    if (prev >= 0) {
      double gain = thr[j] / thr[prev] - 1;
      double per_doubling = pow(thr[j] / thr[prev], 1 / log2(x[j] / x[prev])) - 1;
      pairs++;
      if (per_doubling < min_gain) {
        out->computed = out->found = 1;
        out->at = prev;
        out->next = j;
        out->gain = gain;
        out->gain_per_doubling = per_doubling;
        return;
      }
      if (isnan(out->min_gain_before) || per_doubling < out->min_gain_before)
        out->min_gain_before = per_doubling;
      out->last_gain_per_doubling = per_doubling;
      out->at = prev;
      out->next = j;
      out->gain = gain;
    }
    prev = j;
  }
  out->computed = pairs > 0;
}

/* ---- the table ---- */

struct sweep_row {
  char value[128]; /* a copy: rows move when sorted */
  double x;
  int index; /* position given, for a stable sort */
  struct gw_run_summary s;
};

static int by_x(const void *p, const void *q) {
  const struct sweep_row *a = p, *b = q;
  if (a->x != b->x)
    return a->x < b->x ? -1 : 1;
  return a->index - b->index;
}

/* The parameter's value of each run when none were given: what gpuwhy sweep
 * wrote into meta, else the option named param on the command line, else the
 * one option that differs between the runs, else the run's name. */
static const char *find_param(struct sweep_row *rows, int n, const char *param, char *found, size_t cap) {
  if (param)
    return param;
  if (rows[0].s.sweep_param[0]) {
    gw_strlcpy(found, rows[0].s.sweep_param, cap);
    return found;
  }
  found[0] = '\0';
  for (int i = 1; i < n; i++) {
    struct gw_change_list cl;
    gw_run_setup_diff(&rows[0].s.setup, &rows[i].s.setup, NULL, 0, &cl);
    int args = 0;
    const char *key = NULL;
    for (int k = 0; k < cl.n && k < GW_MAX_CHANGES; k++)
      if (cl.items[k].kind == GW_CHANGE_ARG) {
        args++;
        key = cl.items[k].what;
      }
    if (args != 1 || !key || strncmp(key, "argument ", 9) == 0 || (found[0] && strcmp(found, key) != 0))
      return NULL;
    gw_strlcpy(found, key, cap);
  }
  return found[0] ? found : NULL;
}

/* A swept option named as a batch size (--batch-size, --batch_size, --bs,
 * --batch) is taken as the samples per step where the recordings do not
 * know them (no DataLoader and no truth file), as --batch says. */
static int param_names_batch_size(const char *param) {
  if (!param)
    return 0;
  while (*param == '-')
    param++;
  static const char *const names[] = {"batch-size", "batch_size", "batchsize", "bs", "batch"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(param, names[i]) == 0)
      return 1;
  return 0;
}

/* Returns how many runs took their value from the option param on their
 * command line (or from sweep's own note of it). */
static int fill_values(struct sweep_row *rows, int n, const char *param) {
  int from_param = 0;
  for (int i = 0; i < n; i++) {
    struct gw_run_summary *s = &rows[i].s;
    const char *opt = param ? gw_run_setup_option(&s->setup, param) : NULL;
    if (rows[i].value[0]) {
      from_param++;
      continue;
    }
    if (s->sweep_value[0] && (!param || strcmp(param, s->sweep_param) == 0))
      gw_strlcpy(rows[i].value, s->sweep_value, sizeof rows[i].value);
    else if (opt)
      gw_strlcpy(rows[i].value, opt, sizeof rows[i].value);
    else {
      gw_strlcpy(rows[i].value, s->name, sizeof rows[i].value);
      continue;
    }
    from_param++;
  }
  return from_param;
}

/* Values that are not all numbers (run names when the parameter is in no
 * command) in natural order, "bs8" before "bs16", not the order of a glob. */
static int by_value_text(const void *p, const void *q) {
  const struct sweep_row *a = p, *b = q;
  int c = strverscmp(a->value, b->value);
  return c ? c : a->index - b->index;
}

static const char *param_label(const char *param) {
  if (!param)
    return "value";
  while (*param == '-')
    param++;
  return param;
}

static void top_finding(const struct gw_run_summary *s, char *buf, size_t cap) {
  if (s->nfindings > 0)
    snprintf(buf, cap, "%s %.0f%%", s->findings[0].class_id, s->findings[0].share_of_lost * 100);
  else
    snprintf(buf, cap, "%s", s->verdict);
}

/* s (a literal marked with N_) in English (translate 0, for JSON) or in the
 * language of the messages (text, Markdown). */
static const char *tr(int translate, const char *s) __attribute__((format_arg(2)));
static const char *tr(int translate, const char *s) {
  return translate ? gw_gettext(s) : s;
}

/* The sentence under the table, in English with t 0 (JSON), else in the
 * language of the messages. */
static void knee_text(const struct sweep_row *rows, int n, const char *pname, const struct gw_sweep_knee *k,
                      const char *unit, int t, char *buf, size_t cap) {
  char a[48], b[48];
  if (!k->computed) {
    gw_textf(buf, cap, "%s",
             n < 2 ? tr(t, N_("one run: nothing to say about where throughput stops rising"))
                   : tr(t, N_("where throughput stops rising needs numeric values in increasing order and two "
                              "throughputs")));
    return;
  }
  if (k->found) {
    double ta = gw_run_throughput(&rows[k->at].s, strcmp(unit, "samples/s") == 0);
    double tb = gw_run_throughput(&rows[k->next].s, strcmp(unit, "samples/s") == 0);
    gw_fmt_rate(ta, a, sizeof a);
    gw_fmt_rate(tb, b, sizeof b);
    double steps = log2(rows[k->next].x / rows[k->at].x);
    char per[96] = "";
    if (fabs(steps - 1) > 1e-9)
      /* TRANSLATORS: added after "(51980 -> 57538" when the step between
       * the two values was not a doubling of the parameter */
      gw_textf(per, sizeof per, tr(t, N_(", %.1f%% per doubling")), k->gain_per_doubling * 100);
    char before[300] = "";
    if (!isnan(k->min_gain_before))
      /* TRANSLATORS: ends the knee sentence: "; up to 1024 each doubling of
       * the parameter gained at least 23.3%" */
      gw_textf(before, sizeof before, tr(t, N_("; up to %s each doubling gained at least %.1f%%")), rows[k->at].value,
               k->min_gain_before * 100);
    gw_textf(buf, cap,
             /* TRANSLATORS: the knee of a sweep: "Throughput stops rising at
              * batch-size=1024: going to 2048 raised samples/s by only 10.7%
              * (51980 -> 57538), under the 20% a doubling should bring; ..."
              * The first %s is the parameter, the second its value, the
              * third the next value, the fourth the unit. */
             tr(t, N_("Throughput stops rising at %s=%s: going to %s raised %s by only %.1f%% (%s -> %s%s), under the "
                      "%.0f%% a doubling should bring%s.")),
             pname, rows[k->at].value, rows[k->next].value, unit, k->gain * 100, a, b, per, GW_SWEEP_MIN_GAIN * 100,
             before);
  } else {
    gw_textf(buf, cap,
             /* TRANSLATORS: "the largest batch-size tried (2048)" */
             tr(t, N_("Throughput still rises at the largest %s tried (%s): the last step gained %.1f%% per doubling, "
                      "at least %.0f%% every time; try larger values.")),
             pname, rows[n - 1].value, k->last_gain_per_doubling * 100, GW_SWEEP_MIN_GAIN * 100);
  }
}

static void fmt_pct1(double v, char *buf, size_t cap) {
  gw_compare_fmt_num(v, 1, "%", buf, cap);
}

static void fmt_mem(const struct gw_run_summary *s, char *buf, size_t cap) {
  if (isnan(s->mem_used_peak_bytes))
    snprintf(buf, cap, "-");
  else if (!isnan(s->mem_total_bytes) && s->mem_total_bytes > 0)
    snprintf(buf, cap, "%.1f GiB (%.0f%%)", s->mem_used_peak_bytes / 1073741824.0,
             s->mem_used_peak_bytes / s->mem_total_bytes * 100);
  else
    snprintf(buf, cap, "%.1f GiB", s->mem_used_peak_bytes / 1073741824.0);
}

static void fmt_gain(const struct gw_comparison *c, char *buf, size_t cap) {
  if (!c || isnan(c->throughput.point)) {
    snprintf(buf, cap, "-");
    return;
  }
  char ch[48];
  gw_fmt_change(c->throughput.point, ch, sizeof ch);
  if (isnan(c->throughput.lo))
    snprintf(buf, cap, "%s", ch);
  else
    snprintf(buf, cap, "%s [%+.1f%%, %+.1f%%]", ch, (c->throughput.lo - 1) * 100, (c->throughput.hi - 1) * 100);
}

/* unknown is null; whole values as integers, others round-trip exactly */
static void jnum(FILE *out, double v) {
  gw_json_write_number(out, v);
}

static void render_json(const struct sweep_row *rows, int n, const char *pname, const char *unit,
                        const struct gw_comparison *gains, const struct gw_sweep_knee *k, const char *text, FILE *out) {
  fprintf(out, "{\n  \"schema\": \"gpuwhy.sweep/%d\",\n  \"schema_version\": %d,\n  \"param\": ",
          GW_SWEEP_JSON_SCHEMA_VERSION, GW_SWEEP_JSON_SCHEMA_VERSION);
  gw_json_write_string(out, pname);
  fprintf(out, ",\n  \"throughput_unit\": \"%s\",\n  \"min_gain_per_doubling\": %.2f,\n  \"rows\": [\n", unit,
          GW_SWEEP_MIN_GAIN);
  for (int i = 0; i < n; i++) {
    const struct gw_run_summary *s = &rows[i].s;
    char top[96];
    top_finding(s, top, sizeof top);
    fputs("    {\"value\": ", out);
    gw_json_write_string(out, rows[i].value);
    fputs(", \"recording\": ", out);
    gw_json_write_string(out, s->path);
    fprintf(out, ", \"step_source\": \"%s\", \"steps\": %zu", gw_step_source_id(s->step_source), s->nsteps);
    struct {
      const char *key;
      double v;
    } nums[] = {{"samples_per_s", s->samples_per_s},
                {"steps_per_s", s->steps_per_s},
                {"step_median_s", s->step_median_s},
                {"sm_mean_pct", s->sm_mean_pct},
                {"power_mean_w", s->power_mean_w},
                {"mem_used_peak_bytes", s->mem_used_peak_bytes},
                {"mem_total_bytes", s->mem_total_bytes},
                {"mfu_pct", s->mfu_pct},
                {"achieved_tflops", s->achieved_tflops},
                {"gain_vs_previous", i ? gains[i - 1].throughput.point : NAN},
                {"gain_lo", i ? gains[i - 1].throughput.lo : NAN},
                {"gain_hi", i ? gains[i - 1].throughput.hi : NAN}};
    for (size_t j = 0; j < sizeof nums / sizeof nums[0]; j++) {
      fprintf(out, ", \"%s\": ", nums[j].key);
      jnum(out, nums[j].v);
    }
    fputs(", \"top_finding\": ", out);
    gw_json_write_string(out, s->nfindings ? s->findings[0].class_id : s->verdict);
    fputs(i + 1 < n ? "},\n" : "}\n", out);
  }
  fprintf(out, "  ],\n  \"knee\": {\"computed\": %s, \"found\": %s, \"value\": ", k->computed ? "true" : "false",
          k->found ? "true" : "false");
  if (k->found)
    gw_json_write_string(out, rows[k->at].value);
  else
    fputs("null", out);
  fputs(", \"next_value\": ", out);
  if (k->found)
    gw_json_write_string(out, rows[k->next].value);
  else
    fputs("null", out);
  fputs(", \"gain\": ", out);
  jnum(out, k->found ? k->gain : NAN);
  fputs(", \"gain_per_doubling\": ", out);
  jnum(out, k->found ? k->gain_per_doubling : k->last_gain_per_doubling);
  fputs(", \"text\": ", out);
  gw_json_write_string(out, text);
  fputs("}\n}\n", out);
}

/* s right-aligned in width terminal columns (printf's %*s counts bytes). */
static void fputs_right(FILE *out, const char *s, int width) {
  int pad = width - gw_text_width(s);
  fprintf(out, "%*s%s", pad > 0 ? pad : 0, "", s);
}

static void render_table(const struct sweep_row *rows, int n, const char *pname, const char *unit,
                         const struct gw_comparison *gains, const char *text, int md, int color, FILE *out) {
  struct gw_text_style st = gw_text_style(color);
  /* TRANSLATORS: column heading of the sweep table: the throughput's change
   * from the previous row, with its 95% interval in brackets */
  const char *gain_h = _("gain vs previous [95%]");
  if (md)
    /* TRANSLATORS: the same heading in Markdown, where there is room */
    /* xgettext:no-c-format */
    gain_h = _("gain vs previous [95% interval]");
  /* TRANSLATORS: column heading of the sweep table: the median step time */
  const char *med_h = _("step median");
  /* TRANSLATORS: column heading of the sweep table: mean SM activity (short, 8 columns at most) */
  const char *sm_h = md ? _("SM activity") : _("SM act");
  /* TRANSLATORS: column heading of the sweep table: mean GPU power (7 columns at most) */
  const char *power_h = _("power");
  /* TRANSLATORS: column heading of the sweep table: the most GPU memory used */
  const char *mem_h = _("memory peak");
  /* the FLOP/s the counted step reached: a unit, the same in every language, as "samples/s" */
  const char *tflops_h = "TFLOP/s";
  /* the gain column as wide as its widest cell: a gain of 100% or more
   * carries its factor ("+105.5% (x2.06)") */
  char(*gain_cells)[96] = gw_xcalloc((size_t)n, sizeof *gain_cells);
  int gain_w = 28;
  for (int i = 0; i < n; i++) {
    fmt_gain(i ? &gains[i - 1] : NULL, gain_cells[i], sizeof gain_cells[i]);
    if ((int)strlen(gain_cells[i]) > gain_w)
      gain_w = (int)strlen(gain_cells[i]);
  }
  if (md) {
    fprintf(out, "# gpuwhy sweep: %s\n\n", pname);
    fprintf(out,
            "| %s | %s | %s | %s | %s | %s | %s | MFU | %s | %s |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n",
            pname, unit, gain_h, med_h, sm_h, power_h, mem_h, tflops_h, _("top finding"));
  } else {
    fprintf(out, _("%sgpuwhy sweep%s: %s over %d runs\n\n"), st.bold, st.reset, pname, n);
    /* the headings padded by terminal columns, as the rows below by bytes */
    fprintf(out, "  %s", st.bold);
    gw_fputs_padded(out, pname, 12);
    fputc(' ', out);
    fputs_right(out, unit, 10);
    fputs("  ", out);
    gw_fputs_padded(out, gain_h, gain_w);
    fputc(' ', out);
    fputs_right(out, med_h, 11);
    fputc(' ', out);
    fputs_right(out, sm_h, 8);
    fputc(' ', out);
    fputs_right(out, power_h, 7);
    fputc(' ', out);
    gw_fputs_padded(out, mem_h, 17);
    fputc(' ', out);
    fputs_right(out, "MFU", 6);
    fputc(' ', out);
    fputs_right(out, tflops_h, 8);
    fprintf(out, " %s%s\n", _("top finding"), st.reset);
  }
  for (int i = 0; i < n; i++) {
    const struct gw_run_summary *s = &rows[i].s;
    const char *gain = gain_cells[i];
    char thr[48], med[32], sm[16], pw[16], mem[48], top[96], mfu[16], tflops[32];
    gw_fmt_rate(gw_run_throughput(s, strcmp(unit, "samples/s") == 0), thr, sizeof thr);
    gw_fmt_duration(s->step_median_s, med, sizeof med);
    fmt_pct1(s->sm_mean_pct, sm, sizeof sm);
    gw_compare_fmt_num(s->power_mean_w, 0, " W", pw, sizeof pw);
    fmt_mem(s, mem, sizeof mem);
    fmt_pct1(s->mfu_pct, mfu, sizeof mfu);
    gw_compare_fmt_num(s->achieved_tflops, 1, "", tflops, sizeof tflops);
    top_finding(s, top, sizeof top);
    if (md)
      fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rows[i].value, thr, gain, med, sm, pw, mem,
              mfu, tflops, top);
    else
      fprintf(out, "  %-12s %10s  %-*s %11s %8s %7s %-17s %6s %8s %s\n", rows[i].value, thr, gain_w, gain, med, sm, pw,
              mem, mfu, tflops, top);
  }
  free(gain_cells);
  fprintf(out, "\n%s%s%s\n", md ? "**" : st.bold, text, md ? "**" : st.reset);
}

/* What the sweep's renderers show. */
struct sweep_view {
  const struct sweep_row *rows;
  int n;
  const char *pname, *unit;
  const struct gw_comparison *gains;
  const struct gw_sweep_knee *knee;
  const char *text;
  int color;
};

static void sweep_render_json(const struct sweep_view *v, FILE *out) {
  render_json(v->rows, v->n, v->pname, v->unit, v->gains, v->knee, v->text, out);
}
static void sweep_render_text(const struct sweep_view *v, FILE *out) {
  render_table(v->rows, v->n, v->pname, v->unit, v->gains, v->text, 0, v->color, out);
}
static void sweep_render_md(const struct sweep_view *v, FILE *out) {
  render_table(v->rows, v->n, v->pname, v->unit, v->gains, v->text, 1, v->color, out);
}

/* sweep's renderers: a format is one row here. */
static const struct sweep_renderer {
  enum gw_report_format format;
  void (*render)(const struct sweep_view *v, FILE *out);
} sweep_renderers[] = {
    {GW_REPORT_TEXT, sweep_render_text},
    {GW_REPORT_JSON, sweep_render_json},
    {GW_REPORT_MD, sweep_render_md},
};

unsigned gw_sweep_formats(void) {
  return GW_RENDERER_TABLE_FORMATS(sweep_renderers);
}

static int sweep_table(const char *const *paths, const char *const *values, int n, const struct gw_sweep_opts *opts,
                       FILE *out, char *errbuf, size_t errcap);

int gw_sweep_table(const char *const *paths, const char *const *values, int n, const struct gw_sweep_opts *opts,
                   FILE *out, char *errbuf, size_t errcap) {
  return sweep_table(paths, values, n, opts, out, errbuf, errcap);
}

static int sweep_table(const char *const *paths, const char *const *values, int n, const struct gw_sweep_opts *opts,
                       FILE *out, char *errbuf, size_t errcap) {
  const struct sweep_renderer *renderer = GW_RENDERER_TABLE_ROW(sweep_renderers, opts->format);
  if (!renderer)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("sweep renders %s only"),
                          gw_format_names(gw_sweep_formats()).text);
  if (n < 1) {
    snprintf(errbuf, errcap, "%s", _("a sweep needs at least one recording"));
    return GPUWHY_EXIT_USAGE;
  }
  struct sweep_row *rows = gw_xcalloc((size_t)n, sizeof *rows);
  int loaded = 0, rc = GPUWHY_EXIT_OK;
  for (; loaded < n; loaded++) {
    struct gw_err err = {{0}};
    rows[loaded].index = loaded;
    if (values)
      gw_strlcpy(rows[loaded].value, values[loaded], sizeof rows[loaded].value);
    if (gw_run_summary_load(paths[loaded], &rows[loaded].s, &err) != GW_OK) {
      snprintf(errbuf, errcap, "%s", err.msg);
      rc = GPUWHY_EXIT_INPUT;
      break;
    }
  }
  if (rc != GPUWHY_EXIT_OK) {
    for (int i = 0; i < loaded; i++)
      gw_run_summary_free(&rows[i].s);
    free(rows);
    return rc;
  }
  char found[128];
  const char *param = values ? opts->param : find_param(rows, n, opts->param, found, sizeof found);
  int from_param = fill_values(rows, n, param);
  if (opts->param && !values && from_param < n)
    fprintf(stderr,
            _("gpuwhy sweep: --param %s: %d of %d recorded commands have no such option; those runs are named by their "
              "recording and the table is ordered by those names\n"),
            opts->param, n - from_param, n);
  int is_batch = opts->param_is_batch || param_names_batch_size(param);
  int numeric = 1;
  for (int i = 0; i < n; i++) {
    double x;
    rows[i].x = gw_parse_double(rows[i].value, &x) == 0 && x > 0 ? x : NAN;
    numeric &= !isnan(rows[i].x);
  }
  /* Sorting moves the summaries, so it must happen before anything points into them. */
  if (numeric)
    qsort(rows, (size_t)n, sizeof *rows, by_x);
  else if (!values) /* values given to sweep stay in the order given */
    qsort(rows, (size_t)n, sizeof *rows, by_value_text);
  int per_sample = 1;
  for (int i = 0; i < n; i++) {
    struct gw_run_summary *s = &rows[i].s;
    if (is_batch && numeric && isnan(s->samples_per_step)) {
      s->samples_per_step = rows[i].x;
      gw_strlcpy(s->samples_per_step_from, "the swept batch size", sizeof s->samples_per_step_from);
      gw_run_summary_step_stats(s);
    }
    per_sample &= !isnan(s->samples_per_s);
  }
  const char *unit = per_sample ? "samples/s" : "steps/s";
  struct gw_comparison *gains = gw_xcalloc((size_t)n, sizeof *gains);
  double *x = gw_xcalloc((size_t)n, sizeof *x), *thr = gw_xcalloc((size_t)n, sizeof *thr);
  for (int i = 0; i < n; i++) {
    if (i > 0)
      gw_compare_pair(&rows[i - 1].s, &rows[i].s, NULL, 0, &gains[i - 1]);
    x[i] = rows[i].x;
    thr[i] = gw_run_throughput(&rows[i].s, per_sample);
  }
  struct gw_sweep_knee knee;
  gw_sweep_find_knee(x, thr, numeric ? n : 0, GW_SWEEP_MIN_GAIN, &knee);
  char text[1536];
  int json = opts->format == GW_REPORT_JSON;
  /* JSON names an unknown parameter "value" in English; people read it in
   * their language */
  /* TRANSLATORS: heading of the sweep table's first column when the swept
   * parameter has no name: the parameter's value of each run */
  const char *pname = param || json ? param_label(param) : _("value");
  knee_text(rows, n, pname, &knee, unit, !json, text, sizeof text);
  struct sweep_view view = {rows, n, pname, unit, gains, &knee, text, opts->color};
  renderer->render(&view, out);
  free(x);
  free(thr);
  free(gains);
  for (int i = 0; i < n; i++)
    gw_run_summary_free(&rows[i].s);
  free(rows);
  return GPUWHY_EXIT_OK;
}
