/* Rendering of comparisons: text, JSON and Markdown (see compare_render.h). */
#include "compare/compare_render.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ledger.h"
#include "core/i18n.h"
#include "core/json_write.h"

struct gw_text_style gw_text_style(int color) {
  if (color)
    return (struct gw_text_style){"\033[1m", "\033[2m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"};
  return (struct gw_text_style){"", "", "", "", "", ""};
}

void gw_run_label(int i, char *buf, size_t cap) {
  if (i < 26)
    snprintf(buf, cap, "%c", 'A' + i);
  else
    snprintf(buf, cap, "R%d", i + 1);
}

void gw_textf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
}

void gw_fmt_duration(double s, char *buf, size_t cap) {
  if (isnan(s))
    snprintf(buf, cap, "-");
  else if (s >= 10)
    snprintf(buf, cap, "%.1f s", s);
  else if (s >= 1)
    snprintf(buf, cap, "%.2f s", s);
  else if (s >= 1e-3)
    snprintf(buf, cap, "%.1f ms", s * 1e3);
  else
    snprintf(buf, cap, "%.0f us", s * 1e6);
}

void gw_fmt_rate(double v, char *buf, size_t cap) {
  if (isnan(v))
    snprintf(buf, cap, "-");
  else if (v >= 1000)
    snprintf(buf, cap, "%.0f", v);
  else if (v >= 100)
    snprintf(buf, cap, "%.1f", v);
  else if (v >= 10)
    snprintf(buf, cap, "%.2f", v);
  else
    snprintf(buf, cap, "%.3f", v);
}

void gw_fmt_change(double ratio, char *buf, size_t cap) {
  if (isnan(ratio))
    snprintf(buf, cap, "-");
  else if (ratio >= 2 || ratio <= 0.5)
    snprintf(buf, cap, "%+.1f%% (x%.3g)", (ratio - 1) * 100, ratio);
  else
    snprintf(buf, cap, "%+.1f%%", (ratio - 1) * 100);
}

static void fmt_pct(double v, char *buf, size_t cap) {
  if (isnan(v))
    snprintf(buf, cap, "-");
  else
    snprintf(buf, cap, "%.1f%%", v);
}

/* v with decimals digits after the point and an optional unit ("1.33", "141 W") */
static void fmt_num(double v, int decimals, const char *unit, char *buf, size_t cap) {
  if (isnan(v))
    snprintf(buf, cap, "-");
  else
    snprintf(buf, cap, "%.*f%s", decimals, v, unit);
}

static void fmt_gib(double bytes, char *buf, size_t cap) {
  if (isnan(bytes))
    snprintf(buf, cap, "-");
  else
    snprintf(buf, cap, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
}

static void fmt_interval(const struct gw_ratio_ci *r, char *buf, size_t cap) {
  if (isnan(r->lo) || isnan(r->hi)) {
    snprintf(buf, cap, "%s", _("no interval"));
    return;
  }
  /* A cut interval text is still readable; the return value is checked so
   * the compiler knows truncation is handled. */
  if (snprintf(buf, cap, _("95%% interval %+.1f%% .. %+.1f%%"), (r->lo - 1) * 100, (r->hi - 1) * 100) >= (int)cap)
    buf[cap - 1] = '\0';
}

/* gw_verdict_title in the language of the messages (the same English). */
static const char *verdict_title(enum gw_verdict v) {
  switch (v) {
  case GW_VERDICT_BETTER:
    return _("better");
  case GW_VERDICT_WORSE:
    return _("worse");
  case GW_VERDICT_SAME:
    return _("no significant change");
  case GW_VERDICT_UNDECIDED:
    break;
  }
  return _("undecided");
}

static const char *throughput_unit(const struct gw_comparison *c) {
  return c->per_sample ? "samples/s" : "steps/s";
}

static const char *verdict_colour(enum gw_verdict v, const struct gw_text_style *st) {
  return v == GW_VERDICT_BETTER ? st->green : v == GW_VERDICT_WORSE ? st->red : st->yellow;
}

/* "input_pipeline 62%" or "none" */
static void fmt_top_finding(const struct gw_run_summary *s, char *buf, size_t cap) {
  if (s->nfindings > 0)
    snprintf(buf, cap, "%s %.0f%%", s->findings[0].class_id, s->findings[0].share_of_lost * 100);
  else
    snprintf(buf, cap, "%s", s->verdict);
}

static void fmt_findings(const struct gw_run_summary *s, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  if (s->nfindings == 0) {
    snprintf(buf, cap, "%s", s->verdict);
    return;
  }
  for (int i = 0; i < s->nfindings; i++) {
    int w = snprintf(buf + used, cap - used, "%s%s %.0f%%", i ? ", " : "", s->findings[i].class_id,
                     s->findings[i].share_of_lost * 100);
    if (w < 0 || (size_t)w >= cap - used)
      break;
    used += (size_t)w;
  }
}

/* ---- the changes between two runs, shared by all formats ---- */

/* gw_change_kind_id in the language of the messages (the same English). */
static const char *change_kind_title(enum gw_change_kind k) {
  switch (k) {
  case GW_CHANGE_PROGRAM:
    return _("program");
  case GW_CHANGE_ARG:
    /* TRANSLATORS: a command-line argument, the kind of a change between two runs */
    return _("argument");
  case GW_CHANGE_ENV:
    /* TRANSLATORS: an environment variable, the kind of a change between two runs */
    return _("environment");
  case GW_CHANGE_HOST:
    return _("host");
  case GW_CHANGE_DRIVER:
    return _("driver");
  case GW_CHANGE_GPU:
    /* TRANSLATORS: the kind of a change between two runs: the GPU model or count */
    return _("gpu");
  }
  return gw_change_kind_id(k);
}

static void join_changes(const struct gw_change_list *cl, int translate, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < cl->n && i < GW_MAX_CHANGES; i++) {
    char what[160];
    if (translate)
      gw_change_what(&cl->items[i], what, sizeof what);
    else
      gw_strlcpy(what, cl->items[i].what, sizeof what);
    int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", what);
    if (w < 0 || (size_t)w >= cap - used)
      return;
    used += (size_t)w;
  }
  if (cl->n > GW_MAX_CHANGES)
    snprintf(buf + used, cap - used, translate ? _(" and %d more") : " and %d more", cl->n - GW_MAX_CHANGES);
}

static void join_ignored(const struct gw_change_list *cl, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < cl->nignored && i < GW_MAX_IGNORED; i++) {
    int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", cl->ignored[i]);
    if (w < 0 || (size_t)w >= cap - used)
      return;
    used += (size_t)w;
  }
}

/* The warning for several changes at once: translated for people, English
 * (translate 0) in JSON. */
#define WARNING_FMT                                                                                                    \
  N_("%d things changed at once (%s): this comparison cannot tell which of them made the difference; change one "      \
     "thing per run")
static void warning_text(const struct gw_comparison *c, int translate, char *buf, size_t cap) {
  char names[1024];
  join_changes(&c->changes, translate, names, sizeof names);
  snprintf(buf, cap, translate ? _(WARNING_FMT) : WARNING_FMT, c->changes.n, names);
}

/* ---- text ---- */

#define LABEL_W 30
#define COL_W 20

/* Labels and cells pad by terminal columns: translated labels are
 * double-width. */
static void row_start(FILE *out, const char *label) {
  fputs("  ", out);
  gw_fputs_padded(out, label, LABEL_W - 2);
}
/* A column of the per-run table; a value wider than the column keeps one space. */
static void cell(FILE *out, const char *v, int last) {
  if (last) {
    fputs(v, out);
  } else {
    gw_fputs_padded(out, v, COL_W - 1);
    fputc(' ', out);
  }
}
/* "  label          " before a line of a comparison: 14 columns and a space. */
static void pair_label(FILE *out, const char *pre, const char *label) {
  fprintf(out, "  %s", pre);
  gw_fputs_padded(out, label, 14);
  fputc(' ', out);
}

void gw_compare_text_pair(const struct gw_comparison *c, const char *la, const char *lb, FILE *out,
                          const struct gw_text_style *st) {
  const struct gw_run_summary *a = c->a, *b = c->b;
  char x[96], y[96], ch[96], iv[96];
  fprintf(out, _("%s%s vs %s%s (%s vs %s): %s%s%s\n"), st->bold, lb, la, st->reset, b->name, a->name,
          verdict_colour(c->verdict, st), verdict_title(c->verdict), st->reset);
  if (c->basis == GW_BASIS_STEPS || c->basis == GW_BASIS_REPORTED) {
    gw_fmt_rate(c->throughput_a, x, sizeof x);
    gw_fmt_rate(c->throughput_b, y, sizeof y);
    gw_fmt_change(c->throughput.point, ch, sizeof ch);
    fmt_interval(&c->throughput, iv, sizeof iv);
    pair_label(out, "", _("throughput"));
    fprintf(out, "%s -> %s %s: %s, %s\n", x, y, throughput_unit(c), ch, iv);
  }
  if (c->basis == GW_BASIS_STEPS) {
    gw_fmt_duration(a->step_median_s, x, sizeof x);
    gw_fmt_duration(b->step_median_s, y, sizeof y);
    gw_fmt_change(c->step_median.point, ch, sizeof ch);
    fmt_interval(&c->step_median, iv, sizeof iv);
    pair_label(out, "", _("median step"));
    fprintf(out, "%s -> %s: %s, %s (%s)\n", x, y, ch, iv, verdict_title(c->median_verdict));
    if (c->median_verdict != c->verdict && c->median_verdict != GW_VERDICT_UNDECIDED) {
      char pa[32], pb[32];
      gw_fmt_duration(a->step_p90_s, pa, sizeof pa);
      gw_fmt_duration(b->step_p90_s, pb, sizeof pb);
      pair_label(out, "", "");
      fprintf(out,
              _("the typical step and the throughput disagree: the slow steps (p90 %s -> %s) decide the "
                "throughput\n"),
              pa, pb);
    }
  }
  fmt_pct(a->sm_mean_pct, x, sizeof x);
  fmt_pct(b->sm_mean_pct, y, sizeof y);
  char pa[32], pb[32];
  fmt_num(a->power_mean_w, 0, " W", pa, sizeof pa);
  fmt_num(b->power_mean_w, 0, " W", pb, sizeof pb);
  pair_label(out, "", "GPU");
  if (isnan(a->sm_mean_pct) && isnan(b->sm_mean_pct) && isnan(a->power_mean_w) && isnan(b->power_mean_w))
    fputs(_("no GPU data in either run\n"), out);
  else
    fprintf(out, _("SM activity %s -> %s, power %s -> %s\n"), x, y, pa, pb);
  char fa[256], fb[256];
  fmt_findings(a, fa, sizeof fa);
  fmt_findings(b, fb, sizeof fb);
  pair_label(out, "", _("findings"));
  fprintf(out, "%s -> %s\n", fa, fb);

  const struct gw_change_list *cl = &c->changes;
  if (cl->n == 0) {
    pair_label(out, "", _("changed"));
    fputs(cl->commands_known ? _("nothing in the command line, environment knobs, host, driver or GPU\n")
                             : _("nothing in the command line, environment knobs, host, driver or GPU (a command "
                                 "line was not recorded)\n"),
          out);
  }
  for (int i = 0; i < cl->n && i < GW_MAX_CHANGES; i++) {
    char d[600];
    gw_change_describe(&cl->items[i], d, sizeof d);
    pair_label(out, "", i ? "" : _("changed"));
    fprintf(out, "%s%s\n", cl->items[i].kind == GW_CHANGE_ENV ? _("environment ") : "", d);
  }
  if (c->show_declared) {
    pair_label(out, "", _("declared"));
    fprintf(out, "%s %s(%s)%s\n", b->setup.change, st->dim, b->setup.change_from, st->reset);
  }
  if (cl->nignored) {
    char ig[512];
    join_ignored(cl, ig, sizeof ig);
    pair_label(out, "", _("not counted"));
    fprintf(out, _("%s%s (output paths and run labels)%s\n"), ig, st->dim, st->reset);
  }
  if (cl->n > 1) {
    char w[1400];
    warning_text(c, 1, w, sizeof w);
    pair_label(out, st->yellow, _("WARNING"));
    fprintf(out, "%s%s\n", w, st->reset);
  }
  pair_label(out, st->dim, _("based on"));
  fprintf(out, "%s%s\n", c->basis_shown, st->reset);
  for (int i = 0; i < c->nnotes; i++) {
    pair_label(out, st->dim, i ? "" : _("note"));
    fprintf(out, "%s%s\n", c->notes_shown[i], st->reset);
  }
  fprintf(out, "\n");
}

static void text_runs(const struct gw_run_summary *runs, int n, FILE *out, const struct gw_text_style *st) {
  char lab[16], v[96];
  fprintf(out, "%-*s", LABEL_W, "");
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    fprintf(out, "%s", st->bold);
    cell(out, lab, i == n - 1);
    fprintf(out, "%s", st->reset);
  }
  fprintf(out, "\n");
#define ROW(label, expr)                                                                                               \
  do {                                                                                                                 \
    row_start(out, label);                                                                                             \
    for (int i = 0; i < n; i++) {                                                                                      \
      const struct gw_run_summary *s = &runs[i];                                                                       \
      expr;                                                                                                            \
      cell(out, v, i == n - 1);                                                                                        \
    }                                                                                                                  \
    fprintf(out, "\n");                                                                                                \
  } while (0)
  ROW("samples/s", gw_fmt_rate(s->samples_per_s, v, sizeof v));
  ROW("steps/s", gw_fmt_rate(s->steps_per_s, v, sizeof v));
  ROW(_("step time, median"), gw_fmt_duration(s->step_median_s, v, sizeof v));
  ROW(_("step time, p90"), gw_fmt_duration(s->step_p90_s, v, sizeof v));
  ROW(_("dispersion p90/p50"), fmt_num(s->step_p90_over_p50, 2, "", v, sizeof v));
  ROW(_("dispersion cv"), fmt_num(s->step_cv, 2, "", v, sizeof v));
  ROW(_("steps measured"), snprintf(v, sizeof v, "%zu %s", s->nsteps,
                                    s->step_source == GW_STEPS_LOG        ? _("(log)")
                                    : s->step_source == GW_STEPS_TABLE    ? _("(table)")
                                    : s->step_source == GW_STEPS_ACTIVITY ? _("(est.)")
                                                                          : ""));
  ROW(_("SM activity, mean"), fmt_pct(s->sm_mean_pct, v, sizeof v));
  ROW(_("GPU-Util, mean"), fmt_pct(s->util_mean_pct, v, sizeof v));
  ROW(_("power, mean"), fmt_num(s->power_mean_w, 0, " W", v, sizeof v));
  ROW(_("memory used, peak"), fmt_gib(s->mem_used_peak_bytes, v, sizeof v));
  ROW("MFU", fmt_pct(s->mfu_pct, v, sizeof v));
  /* TRANSLATORS: row of the compare table: the FLOP/s the job's counted step reached, all GPUs together */
  ROW(_("achieved TFLOP/s"), fmt_num(s->achieved_tflops, 1, "", v, sizeof v));
  int estimated = 0;
  for (int i = 0; i < n; i++)
    estimated |= runs[i].ledger_estimated;
  fputs(estimated ? _("  ledger, share of active time (estimated from counters)\n")
                  : _("  ledger, share of active time\n"),
        out);
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    if (r == GW_ROW_STARTUP)
      continue;
    char label[64];
    snprintf(label, sizeof label, "  %s", gw_ledger_row_id((enum gw_ledger_row)r));
    ROW(label, fmt_pct(s->ledger_share[r] * 100, v, sizeof v));
  }
  ROW(_("top finding"), fmt_top_finding(s, v, sizeof v));
#undef ROW
  fprintf(out, "\n");
}

void gw_compare_render_text(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                            FILE *out, int color) {
  struct gw_text_style st = gw_text_style(color);
  char lab[16];
  fprintf(out, _("%sgpuwhy compare%s: %d runs, each against the one before\n"), st.bold, st.reset, n);
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    fprintf(out, "  %-3s %s\n", lab, runs[i].path);
  }
  fprintf(out, "\n");
  text_runs(runs, n, out, &st);
  for (int p = 0; p < npairs; p++) {
    char la[16], lb[16];
    int ia = (int)(pairs[p].a - runs), ib = (int)(pairs[p].b - runs);
    gw_run_label(ia, la, sizeof la);
    gw_run_label(ib, lb, sizeof lb);
    if (p == n - 1)
      fprintf(out, _("%sFirst to last%s\n"), st.bold, st.reset);
    gw_compare_text_pair(&pairs[p], la, lb, out, &st);
  }
  fprintf(out,
          _("%sMethod:%s %d bootstrap resamples of the per-step times, 95%% percentile intervals; \"better\" or "
            "\"worse\" needs the interval to exclude no change and the change to exceed %.0f%%.\n"),
          st.dim, st.reset, GW_BOOT_RESAMPLES, GW_PRACTICAL_CHANGE * 100);
}

/* ---- JSON ---- */

/* unknown is null; whole values as integers, others round-trip exactly */
static void jnum(FILE *out, double v) {
  gw_json_write_number(out, v);
}

void gw_compare_json_findings(const struct gw_run_summary *s, FILE *out) {
  for (int i = 0; i < s->nfindings; i++) {
    fprintf(out, "%s{\"class\": ", i ? ", " : "");
    gw_json_write_string(out, s->findings[i].class_id);
    fputs(", \"share_of_lost\": ", out);
    jnum(out, s->findings[i].share_of_lost);
    fputs(", \"confidence\": ", out);
    jnum(out, s->findings[i].confidence);
    fputs("}", out);
  }
}

static void jratio(FILE *out, const char *key, const struct gw_ratio_ci *r, const char *in) {
  fprintf(out, "%s\"%s\": {\"ratio\": ", in, key);
  jnum(out, r->point);
  fputs(", \"lo\": ", out);
  jnum(out, r->lo);
  fputs(", \"hi\": ", out);
  jnum(out, r->hi);
  fputs("}", out);
}

void gw_compare_json_run(const struct gw_run_summary *s, const char *label, FILE *out, const char *in) {
  fprintf(out, "%s{\n%s  \"label\": \"%s\",\n%s  \"name\": ", in, in, label, in);
  gw_json_write_string(out, s->name);
  fprintf(out, ",\n%s  \"path\": ", in);
  gw_json_write_string(out, s->path);
  fprintf(out, ",\n%s  \"from_baseline\": %s,\n%s  \"step_source\": \"%s\",\n%s  \"steps\": %zu", in,
          s->from_baseline ? "true" : "false", in, gw_step_source_id(s->step_source), in, s->nsteps);
  struct {
    const char *key;
    double v;
  } nums[] = {{"samples_per_s", s->samples_per_s},
              {"steps_per_s", s->steps_per_s},
              {"samples_per_step", s->samples_per_step},
              {"step_median_s", s->step_median_s},
              {"step_p90_s", s->step_p90_s},
              {"step_p90_over_p50", s->step_p90_over_p50},
              {"step_cv", s->step_cv},
              {"sm_mean_pct", s->sm_mean_pct},
              {"util_mean_pct", s->util_mean_pct},
              {"power_mean_w", s->power_mean_w},
              {"mem_used_peak_bytes", s->mem_used_peak_bytes},
              {"mfu_pct", s->mfu_pct},
              {"achieved_tflops", s->achieved_tflops},
              {"lost_share_of_active", s->lost_share}};
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
    fprintf(out, ",\n%s  \"%s\": ", in, nums[i].key);
    jnum(out, nums[i].v);
  }
  fprintf(out, ",\n%s  \"samples_per_s_reported\": %s", in, s->samples_per_s_reported ? "true" : "false");
  fprintf(out, ",\n%s  \"ledger_estimated\": %s,\n%s  \"ledger_share_of_active\": {", in,
          s->ledger_estimated ? "true" : "false", in);
  int first = 1;
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    if (r == GW_ROW_STARTUP)
      continue;
    fprintf(out, "%s\"%s\": ", first ? "" : ", ", gw_ledger_row_id((enum gw_ledger_row)r));
    jnum(out, s->ledger_share[r]);
    first = 0;
  }
  fprintf(out, "},\n%s  \"verdict\": ", in);
  gw_json_write_string(out, s->verdict);
  fprintf(out, ",\n%s  \"findings\": [", in);
  gw_compare_json_findings(s, out);
  fprintf(out, "],\n%s  \"host\": ", in);
  gw_json_write_string(out, s->setup.host);
  fprintf(out, ",\n%s  \"driver\": ", in);
  gw_json_write_string(out, s->setup.driver);
  fprintf(out, ",\n%s  \"gpu\": ", in);
  gw_json_write_string(out, s->setup.gpu);
  fprintf(out, ",\n%s  \"declared_change\": ", in);
  if (s->setup.change[0])
    gw_json_write_string(out, s->setup.change);
  else
    fputs("null", out);
  fprintf(out, "\n%s}", in);
}

static void json_opt_string(FILE *out, int set, const char *v) {
  if (set)
    gw_json_write_string(out, v);
  else
    fputs("null", out);
}

void gw_compare_json_pair(const struct gw_comparison *c, const char *la, const char *lb, FILE *out, const char *in) {
  fprintf(out, "%s{\n%s  \"a\": \"%s\",\n%s  \"b\": \"%s\",\n", in, in, la, in, lb);
  fprintf(out, "%s  \"verdict\": \"%s\",\n%s  \"basis\": \"%s\",\n", in, gw_verdict_id(c->verdict), in,
          gw_compare_basis_id(c->basis));
  fprintf(out, "%s  \"throughput_unit\": \"%s\",\n%s  \"throughput_a\": ", in, throughput_unit(c), in);
  jnum(out, c->throughput_a);
  fprintf(out, ",\n%s  \"throughput_b\": ", in);
  jnum(out, c->throughput_b);
  fputs(",\n", out);
  char in2[64];
  snprintf(in2, sizeof in2, "%s  ", in);
  jratio(out, "throughput", &c->throughput, in2);
  fputs(",\n", out);
  jratio(out, "step_median", &c->step_median, in2);
  fprintf(out, ",\n%s  \"step_median_verdict\": \"%s\",\n%s  \"changes\": [", in, gw_verdict_id(c->median_verdict), in);
  for (int i = 0; i < c->changes.n && i < GW_MAX_CHANGES; i++) {
    const struct gw_change *ch = &c->changes.items[i];
    fprintf(out, "%s\n%s    {\"kind\": \"%s\", \"what\": ", i ? "," : "", in, gw_change_kind_id(ch->kind));
    gw_json_write_string(out, ch->what);
    fputs(", \"before\": ", out);
    json_opt_string(out, ch->before_set, ch->before);
    fputs(", \"after\": ", out);
    json_opt_string(out, ch->after_set, ch->after);
    fputs("}", out);
  }
  fprintf(out, "%s],\n%s  \"changes_total\": %d,\n%s  \"not_counted\": [", c->changes.n ? "\n" : "", in, c->changes.n,
          in);
  for (int i = 0; i < c->changes.nignored && i < GW_MAX_IGNORED; i++) {
    fputs(i ? ", " : "", out);
    gw_json_write_string(out, c->changes.ignored[i]);
  }
  fprintf(out, "],\n%s  \"declared_change\": ", in);
  json_opt_string(out, c->show_declared, c->b->setup.change);
  fprintf(out, ",\n%s  \"warning\": ", in);
  if (c->changes.n > 1) {
    char w[1400];
    warning_text(c, 0, w, sizeof w);
    gw_json_write_string(out, w);
  } else {
    fputs("null", out);
  }
  fprintf(out, ",\n%s  \"based_on\": ", in);
  gw_json_write_string(out, c->basis_text);
  fprintf(out, ",\n%s  \"notes\": [", in);
  for (int i = 0; i < c->nnotes; i++) {
    fputs(i ? ", " : "", out);
    gw_json_write_string(out, c->notes[i]);
  }
  fprintf(out, "]\n%s}", in);
}

static void json_method(FILE *out) {
  /* the seed is above 2^53: gw_json_write_uint writes it as a string */
  fprintf(out, "  \"method\": {\"resamples\": %d, \"level\": %.2f, \"seed\": ", GW_BOOT_RESAMPLES, GW_BOOT_LEVEL);
  gw_json_write_uint(out, (unsigned long long)GW_BOOT_SEED);
  fprintf(out, ", \"practical_change\": %.2f, \"interval\": \"percentile\"},\n", GW_PRACTICAL_CHANGE);
}

void gw_compare_render_json(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                            FILE *out) {
  fprintf(out, "{\n  \"schema\": \"gpuwhy.compare/%d\",\n  \"schema_version\": %d,\n", GW_COMPARE_JSON_SCHEMA_VERSION,
          GW_COMPARE_JSON_SCHEMA_VERSION);
  json_method(out);
  fputs("  \"runs\": [\n", out);
  char lab[16];
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    gw_compare_json_run(&runs[i], lab, out, "    ");
    fputs(i + 1 < n ? ",\n" : "\n", out);
  }
  fputs("  ],\n  \"comparisons\": [\n", out);
  for (int p = 0; p < npairs; p++) {
    char la[16], lb[16];
    gw_run_label((int)(pairs[p].a - runs), la, sizeof la);
    gw_run_label((int)(pairs[p].b - runs), lb, sizeof lb);
    gw_compare_json_pair(&pairs[p], la, lb, out, "    ");
    fputs(p + 1 < npairs ? ",\n" : "\n", out);
  }
  fputs("  ]\n}\n", out);
}

/* ---- Markdown ---- */

void gw_compare_md_pair(const struct gw_comparison *c, const char *la, const char *lb, FILE *out) {
  const struct gw_run_summary *a = c->a, *b = c->b;
  char x[96], y[96], ch[96], iv[96];
  fprintf(out, _("### %s vs %s (`%s` vs `%s`): **%s**\n\n"), lb, la, b->name, a->name, verdict_title(c->verdict));
  if (c->basis == GW_BASIS_STEPS || c->basis == GW_BASIS_REPORTED) {
    gw_fmt_rate(c->throughput_a, x, sizeof x);
    gw_fmt_rate(c->throughput_b, y, sizeof y);
    gw_fmt_change(c->throughput.point, ch, sizeof ch);
    fmt_interval(&c->throughput, iv, sizeof iv);
    fprintf(out, _("- throughput %s -> %s %s: %s, %s\n"), x, y, throughput_unit(c), ch, iv);
  }
  if (c->basis == GW_BASIS_STEPS) {
    gw_fmt_duration(a->step_median_s, x, sizeof x);
    gw_fmt_duration(b->step_median_s, y, sizeof y);
    gw_fmt_change(c->step_median.point, ch, sizeof ch);
    fmt_interval(&c->step_median, iv, sizeof iv);
    fprintf(out, _("- median step %s -> %s: %s, %s (%s)\n"), x, y, ch, iv, verdict_title(c->median_verdict));
  }
  char fa[256], fb[256];
  fmt_findings(a, fa, sizeof fa);
  fmt_findings(b, fb, sizeof fb);
  fprintf(out, _("- findings: %s -> %s\n"), fa, fb);
  const struct gw_change_list *cl = &c->changes;
  if (cl->n == 0)
    fputs(_("- changed: nothing in the command line, environment knobs, host, driver or GPU\n"), out);
  for (int i = 0; i < cl->n && i < GW_MAX_CHANGES; i++) {
    char d[600];
    gw_change_describe(&cl->items[i], d, sizeof d);
    fprintf(out, _("- changed (%s): `%s`\n"), change_kind_title(cl->items[i].kind), d);
  }
  if (c->show_declared)
    fprintf(out, _("- declared change (%s): %s\n"), b->setup.change_from, b->setup.change);
  if (cl->nignored) {
    char ig[512];
    join_ignored(cl, ig, sizeof ig);
    fprintf(out, _("- not counted (output paths and run labels): %s\n"), ig);
  }
  if (cl->n > 1) {
    char w[1400];
    warning_text(c, 1, w, sizeof w);
    fprintf(out, _("\n> **Warning:** %s.\n"), w);
  }
  fprintf(out, _("- based on: %s\n"), c->basis_shown);
  for (int i = 0; i < c->nnotes; i++)
    fprintf(out, _("- note: %s\n"), c->notes_shown[i]);
  fprintf(out, "\n");
}
/* The per-run rows every comparison table shows, in order; emit writes one
 * row from its label and one cell per run (each at most cell_cap bytes). */
void gw_compare_each_run_row(const struct gw_run_summary *runs, int n, size_t cell_cap, FILE *out,
                             gw_compare_row_emit emit) {
  char *cells = calloc((size_t)(n > 0 ? n : 1), cell_cap);
  if (!cells)
    return;
#define ROW(label, expr)                                                                                               \
  do {                                                                                                                 \
    for (int i = 0; i < n; i++) {                                                                                      \
      const struct gw_run_summary *s = &runs[i];                                                                       \
      char *v = cells + (size_t)i * cell_cap;                                                                          \
      size_t cap = cell_cap;                                                                                           \
      expr;                                                                                                            \
    }                                                                                                                  \
    emit(out, label, cells, cell_cap, n);                                                                              \
  } while (0)
  ROW("samples/s", gw_fmt_rate(s->samples_per_s, v, cap));
  ROW("steps/s", gw_fmt_rate(s->steps_per_s, v, cap));
  ROW(_("step time, median"), gw_fmt_duration(s->step_median_s, v, cap));
  ROW(_("step time, p90"), gw_fmt_duration(s->step_p90_s, v, cap));
  ROW(_("dispersion p90/p50"), fmt_num(s->step_p90_over_p50, 2, "", v, cap));
  ROW(_("dispersion cv"), fmt_num(s->step_cv, 2, "", v, cap));
  ROW(_("steps measured"), snprintf(v, cap, "%zu (%s)", s->nsteps, gw_step_source_id(s->step_source)));
  ROW(_("SM activity, mean"), fmt_pct(s->sm_mean_pct, v, cap));
  ROW(_("GPU-Util, mean"), fmt_pct(s->util_mean_pct, v, cap));
  ROW(_("power, mean"), fmt_num(s->power_mean_w, 0, " W", v, cap));
  ROW(_("memory used, peak"), fmt_gib(s->mem_used_peak_bytes, v, cap));
  ROW("MFU", fmt_pct(s->mfu_pct, v, cap));
  ROW(_("achieved TFLOP/s"), fmt_num(s->achieved_tflops, 1, "", v, cap));
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    if (r == GW_ROW_STARTUP)
      continue;
    char label[64];
    snprintf(label, sizeof label, _("ledger: %s"), gw_ledger_row_id((enum gw_ledger_row)r));
    ROW(label, fmt_pct(s->ledger_share[r] * 100, v, cap));
  }
  ROW(_("top finding"), fmt_top_finding(s, v, cap));
#undef ROW
  free(cells);
}

static void md_row(FILE *out, const char *label, const char *cells, size_t cell_cap, int n) {
  fprintf(out, "| %s |", label);
  for (int i = 0; i < n; i++)
    fprintf(out, " %s |", cells + (size_t)i * cell_cap);
  fprintf(out, "\n");
}

void gw_compare_render_md(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                          FILE *out) {
  char lab[16];
  fprintf(out, "# gpuwhy compare\n\n");
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    fprintf(out, "- **%s**: `%s`\n", lab, runs[i].path);
  }
  fprintf(out, "\n| |");
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    fprintf(out, " %s |", lab);
  }
  fprintf(out, "\n|---|");
  for (int i = 0; i < n; i++)
    fprintf(out, "---:|");
  fprintf(out, "\n");
  gw_compare_each_run_row(runs, n, 96, out, md_row);
  fputs(_("\n## Differences\n\n"), out);
  for (int p = 0; p < npairs; p++) {
    char la[16], lb[16];
    gw_run_label((int)(pairs[p].a - runs), la, sizeof la);
    gw_run_label((int)(pairs[p].b - runs), lb, sizeof lb);
    gw_compare_md_pair(&pairs[p], la, lb, out);
  }
  fprintf(out,
          _("Method: %d bootstrap resamples of the per-step times, 95%% percentile intervals; a verdict of better "
            "or worse needs the interval to exclude no change and the change to exceed %.0f%%.\n"),
          GW_BOOT_RESAMPLES, GW_PRACTICAL_CHANGE * 100);
}

/* ---- the helpers above, for the HTML renderer ---- */

const char *gw_compare_verdict_title(enum gw_verdict v) {
  return verdict_title(v);
}
void gw_compare_fmt_interval(const struct gw_ratio_ci *r, char *buf, size_t cap) {
  fmt_interval(r, buf, cap);
}
void gw_compare_fmt_findings(const struct gw_run_summary *s, char *buf, size_t cap) {
  fmt_findings(s, buf, cap);
}
void gw_compare_fmt_top_finding(const struct gw_run_summary *s, char *buf, size_t cap) {
  fmt_top_finding(s, buf, cap);
}
void gw_compare_warning_text(const struct gw_comparison *c, int translate, char *buf, size_t cap) {
  warning_text(c, translate, buf, cap);
}
const char *gw_compare_change_kind_title(enum gw_change_kind k) {
  return change_kind_title(k);
}
void gw_compare_join_ignored(const struct gw_change_list *cl, char *buf, size_t cap) {
  join_ignored(cl, buf, cap);
}
const char *gw_compare_throughput_unit(const struct gw_comparison *c) {
  return throughput_unit(c);
}
void gw_compare_fmt_pct(double v, char *buf, size_t cap) {
  fmt_pct(v, buf, cap);
}
void gw_compare_fmt_num(double v, int decimals, const char *unit, char *buf, size_t cap) {
  fmt_num(v, decimals, unit, buf, cap);
}
void gw_compare_fmt_gib(double bytes, char *buf, size_t cap) {
  fmt_gib(bytes, buf, cap);
}
