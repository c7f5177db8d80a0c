/* gpuwhy baseline save | check | list: keep a run's summary and test later
 * runs against it (see include/gpuwhy/compare.h, docs/compare.md). */
#include <dirent.h>
#include <errno.h>
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compare/baseline_file.h"
#include "compare/compare_render.h"
#include "compare/run_load.h"
#include "core/i18n.h"
#include "core/util.h"
#include "core/json_write.h"
#include "render/renderer_formats.h"

int gw_baseline_dir(char *buf, size_t cap, char *errbuf, size_t errcap) {
  const char *home = getenv("GPUWHY_HOME");
  int w;
  if (home && home[0])
    w = snprintf(buf, cap, "%s/baselines", home);
  else if ((home = getenv("HOME")) && home[0])
    w = snprintf(buf, cap, "%s/.local/share/gpuwhy/baselines", home);
  else
    return gw_errbuf_fail(errbuf, errcap, -1, _("neither GPUWHY_HOME nor HOME is set: nowhere to keep baselines"));
  if (w < 0 || (size_t)w >= cap)
    return gw_errbuf_fail(errbuf, errcap, -1, _("the baseline folder's path is too long"));
  return 0;
}

/* Names become file names: keep them to a safe alphabet, no leading dot. */
static int valid_name(const char *name) {
  if (!name[0] || name[0] == '.' || strlen(name) > 100)
    return 0;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
          *p == '-'))
      return 0;
  return 1;
}

static int baseline_path(const char *name, char *path, size_t cap, char *dir, size_t dircap, char *errbuf,
                         size_t errcap) {
  if (!valid_name(name))
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE,
                          _("baseline name '%s': use letters, digits, '.', '_' and '-' (not starting with '.')"), name);
  if (gw_baseline_dir(dir, dircap, errbuf, errcap) != 0)
    return GPUWHY_EXIT_INPUT;
  int w = snprintf(path, cap, "%s/%s.json", dir, name);
  if (w < 0 || (size_t)w >= cap)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("the baseline's path is too long"));
  return 0;
}

static void throughput_words(const struct gw_run_summary *s, char *buf, size_t cap) {
  char rate[48], med[48];
  gw_fmt_duration(s->step_median_s, med, sizeof med);
  if (!isnan(s->samples_per_s)) {
    gw_fmt_rate(s->samples_per_s, rate, sizeof rate);
    snprintf(buf, cap, _("%s samples/s, median step %s"), rate, med);
  } else if (!isnan(s->steps_per_s)) {
    gw_fmt_rate(s->steps_per_s, rate, sizeof rate);
    snprintf(buf, cap, _("%s steps/s, median step %s"), rate, med);
  } else if (!isnan(s->sm_mean_pct)) {
    snprintf(buf, cap, _("no step times, SM activity %.1f%%"), s->sm_mean_pct);
  } else {
    snprintf(buf, cap, "%s", _("no step times and no GPU data"));
  }
}

int gw_baseline_save(const char *name, const char *path, FILE *out, char *errbuf, size_t errcap) {
  char dir[1024], file[1200];
  int rc = baseline_path(name, file, sizeof file, dir, sizeof dir, errbuf, errcap);
  if (rc)
    return rc;
  struct gw_run_summary s;
  struct gw_err err = {{0}};
  if (gw_run_summary_load(path, &s, &err) != GW_OK)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, "%s", err.msg);
  if (gw_mkdir_p(dir) != 0) {
    gw_run_summary_free(&s);
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("cannot create %s: %s"), dir, strerror(errno));
  }
  /* write beside, then rename: a crash never leaves half a baseline */
  char tmp[1300];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", file, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    gw_run_summary_free(&s);
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("cannot write %s: %s"), tmp, strerror(errno));
  }
  gw_baseline_file_write(f, &s, name, gw_now_realtime_ns());
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, file) != 0) {
    unlink(tmp);
    gw_run_summary_free(&s);
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("writing %s failed"), file);
  }
  char words[160], src[400];
  throughput_words(&s, words, sizeof words);
  gw_step_source_describe(&s, 1, src, sizeof src);
  if (s.nsteps > 0)
    /* TRANSLATORS: "saved baseline NAME: 1875 samples/s, median step 34.0 ms
     * (586 steps from SOURCE)", then the baseline file on its own line */
    fprintf(out, _("saved baseline %s: %s (%zu steps from %s)\n  %s\n"), name, words, s.nsteps, src, file);
  else
    fprintf(out, _("saved baseline %s: %s\n  %s\n"), name, words, file);
  if (s.nsteps < 2 && isnan(s.samples_per_s))
    fputs(_("  note: without step times or a reported throughput, `baseline check` cannot judge speed\n"), out);
  gw_run_summary_free(&s);
  return GPUWHY_EXIT_OK;
}

/* ---- check ---- */

struct check_result {
  int regression;
  int nreasons;
  char reasons[2][400];
  char summary[480];
};

static void reason(struct check_result *r, const char *fmt, ...) GW_PRINTF(2, 3);
static void reason(struct check_result *r, const char *fmt, ...) {
  if (r->nreasons >= 2)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->reasons[r->nreasons++], sizeof r->reasons[0], fmt, ap);
  va_end(ap);
}

/* s (a literal marked with N_) in English (translate 0, for JSON) or in the
 * language of the messages (text, Markdown). */
static const char *tr(int translate, const char *s) __attribute__((format_arg(2)));
static const char *tr(int translate, const char *s) {
  return translate ? gw_gettext(s) : s;
}

static void interval_words(const struct gw_ratio_ci *ci, int t, char *buf, size_t cap) {
  if (isnan(ci->lo))
    snprintf(buf, cap, "%s", tr(t, N_("no interval")));
  else
    snprintf(buf, cap, tr(t, N_("95%% interval %+.1f%% .. %+.1f%%")), (ci->lo - 1) * 100, (ci->hi - 1) * 100);
}

/* A regression: throughput down (or median step time up) by more than the
 * tolerance, and, where an interval exists, the interval excluding no change.
 * The reasons are in English with t 0 (JSON), else in the language of the
 * messages; the judgement is the same. */
static void judge(const struct gw_comparison *c, double tol, int t, struct check_result *r) {
  memset(r, 0, sizeof *r);
  char iv[96], ch[64];
  const struct gw_ratio_ci *tp = &c->throughput, *m = &c->step_median;
  interval_words(tp, t, iv, sizeof iv);
  gw_fmt_change(tp->point, ch, sizeof ch);
  int has_iv = !isnan(tp->lo);
  if (tp->point < 1 - tol && (!has_iv || tp->hi < 1)) {
    r->regression = 1;
    /* TRANSLATORS: "throughput -95.3% (95% interval ...), beyond the 5.0%
     * tolerance"; the last %s is empty or the clause after it */
    reason(r, tr(t, N_("throughput %s (%s), beyond the %.1f%% tolerance%s")), ch, iv, tol * 100,
           has_iv ? "" : tr(t, N_("; a single reported figure, so there is no interval")));
  }
  if (c->basis == GW_BASIS_STEPS && m->point > 1 + tol && m->lo > 1) {
    char mi[96], mc[64];
    interval_words(m, t, mi, sizeof mi);
    gw_fmt_change(m->point, mc, sizeof mc);
    r->regression = 1;
    reason(r, tr(t, N_("median step time %s (%s), beyond the %.1f%% tolerance")), mc, mi, tol * 100);
  }
  if (!r->regression)
    /* TRANSLATORS: the result of a baseline check that passed: the run holds
     * up against the baseline */
    snprintf(r->summary, sizeof r->summary,
             tr(t, N_("holds: throughput %s (%s), within the %.1f%% tolerance or not significant")), ch, iv, tol * 100);
  else
    /* TRANSLATORS: the result of a failed baseline check; %s is the reason */
    snprintf(r->summary, sizeof r->summary, tr(t, N_("REGRESSION: %s")), r->reasons[0]);
}

static void check_json(const char *name, const char *path, double tol, const struct gw_comparison *c,
                       const struct check_result *r, FILE *out) {
  fprintf(out, "{\n  \"schema\": \"gpuwhy.baseline_check/%d\",\n  \"schema_version\": %d,\n  \"baseline\": ",
          GW_BASELINE_CHECK_JSON_SCHEMA_VERSION, GW_BASELINE_CHECK_JSON_SCHEMA_VERSION);
  gw_json_write_string(out, name);
  fputs(",\n  \"recording\": ", out);
  gw_json_write_string(out, path);
  fprintf(out, ",\n  \"tolerance_pct\": %.6g,\n  \"regression\": %s,\n  \"reasons\": [", tol * 100,
          r->regression ? "true" : "false");
  for (int i = 0; i < r->nreasons; i++) {
    fputs(i ? ", " : "", out);
    gw_json_write_string(out, r->reasons[i]);
  }
  fputs("],\n  \"summary\": ", out);
  gw_json_write_string(out, r->summary);
  fputs(",\n  \"runs\": [\n", out);
  gw_compare_json_run(c->a, "A", out, "    ");
  fputs(",\n", out);
  gw_compare_json_run(c->b, "B", out, "    ");
  fputs("\n  ],\n  \"comparison\":\n", out);
  gw_compare_json_pair(c, "A", "B", out, "  ");
  fputs("\n}\n", out);
}

/* What the check's renderers show. */
struct check_view {
  const char *name, *path, *base_path;
  double tolerance_pct;
  const struct gw_comparison *c;
  const struct check_result *r;
  int color;
};

static void check_render_json(const struct check_view *v, FILE *out) {
  check_json(v->name, v->path, v->tolerance_pct / 100, v->c, v->r, out);
}

static void check_render_md(const struct check_view *v, FILE *out) {
  fprintf(out, _("# gpuwhy baseline check: `%s`\n\nBaseline `%s` (A) against `%s` (B), tolerance %.1f%%.\n\n"), v->name,
          v->base_path, v->path, v->tolerance_pct);
  gw_compare_md_pair(v->c, "A", "B", out);
  fprintf(out, _("**Result: %s.**\n"), v->r->summary);
}

static void check_render_text(const struct check_view *v, FILE *out) {
  struct gw_text_style st = gw_text_style(v->color);
  fprintf(out, _("%sgpuwhy baseline check%s: %s against baseline %s (tolerance %.1f%%)\n\n"), st.bold, st.reset,
          v->path, v->name, v->tolerance_pct);
  gw_compare_text_pair(v->c, "A", "B", out, &st);
  fprintf(out, _("%sResult: %s%s\n"), v->r->regression ? st.red : st.green, v->r->summary, st.reset);
  for (int i = 1; i < v->r->nreasons; i++)
    /* TRANSLATORS: a further reason under "Result: REGRESSION: ...",
     * indented to start under the text after "Result: " */
    fprintf(out, _("        and %s\n"), v->r->reasons[i]);
}

/* baseline's renderers, one row per format: check's here; list renders the
 * same formats (refuse_format below guards both). */
static const struct baseline_renderer {
  enum gw_report_format format;
  void (*check)(const struct check_view *v, FILE *out);
} baseline_renderers[] = {
    {GW_REPORT_TEXT, check_render_text},
    {GW_REPORT_JSON, check_render_json},
    {GW_REPORT_MD, check_render_md},
};

unsigned gw_baseline_formats(void) {
  return GW_RENDERER_TABLE_FORMATS(baseline_renderers);
}

/* GPUWHY_EXIT_USAGE with the formats baseline has, for one it lacks; else 0. */
static int refuse_format(enum gw_report_format f, char *errbuf, size_t errcap) {
  if (gw_baseline_formats() & GW_FORMAT_BIT(f))
    return 0;
  return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("baseline renders %s only"),
                        gw_format_names(gw_baseline_formats()).text);
}

static int baseline_check(const char *name, const char *path, double tolerance_pct, const struct gw_compare_opts *opts,
                          FILE *out, char *errbuf, size_t errcap);

int gw_baseline_check(const char *name, const char *path, double tolerance_pct, const struct gw_compare_opts *opts,
                      FILE *out, char *errbuf, size_t errcap) {
  return baseline_check(name, path, tolerance_pct, opts, out, errbuf, errcap);
}

static int baseline_check(const char *name, const char *path, double tolerance_pct, const struct gw_compare_opts *opts,
                          FILE *out, char *errbuf, size_t errcap) {
  if (refuse_format(opts->format, errbuf, errcap))
    return GPUWHY_EXIT_USAGE;
  char dir[1024], file[1200];
  int rc = baseline_path(name, file, sizeof file, dir, sizeof dir, errbuf, errcap);
  if (rc)
    return rc;
  if (!(tolerance_pct >= 0 && tolerance_pct < 100))
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("tolerance %g%% is not between 0 and 100"),
                          tolerance_pct);
  if (access(file, F_OK) != 0)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT,
                          _("no baseline named %s in %s (gpuwhy baseline list shows them)"), name, dir);
  struct gw_run_summary base, now;
  struct gw_err err = {{0}};
  if (gw_run_summary_load(file, &base, &err) != GW_OK)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, "%s", err.msg);
  if (gw_run_summary_load(path, &now, &err) != GW_OK) {
    gw_run_summary_free(&base);
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, "%s", err.msg);
  }
  struct gw_comparison c;
  gw_compare_pair(&base, &now, opts->ignore_args, opts->nignore, &c);
  if (c.basis != GW_BASIS_STEPS && c.basis != GW_BASIS_REPORTED) {
    rc = gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT,
                        _("nothing to check: %s or baseline %s has neither step times nor a reported throughput (%s)"),
                        path, name, c.basis_shown);
  } else {
    struct check_result r;
    judge(&c, tolerance_pct / 100, opts->format != GW_REPORT_JSON, &r);
    struct check_view view = {name, path, base.path, tolerance_pct, &c, &r, opts->color};
    const struct baseline_renderer *renderer = GW_RENDERER_TABLE_ROW(baseline_renderers, opts->format);
    if (renderer) /* refuse_format above let only these formats in */
      renderer->check(&view, out);
    rc = r.regression ? GPUWHY_EXIT_FINDINGS : GPUWHY_EXIT_OK;
  }
  gw_run_summary_free(&base);
  gw_run_summary_free(&now);
  return rc;
}

/* ---- list ---- */

/* The headings of the list's columns. */
static const char *col_name(void) {
  /* TRANSLATORS: column heading of `gpuwhy baseline list`: the baseline's name */
  return _("name");
}
static const char *col_saved(void) {
  /* TRANSLATORS: column heading of `gpuwhy baseline list`: when the baseline was saved */
  return _("saved");
}
static const char *col_steps(void) {
  /* TRANSLATORS: column heading of `gpuwhy baseline list`: how many training steps it holds */
  return _("steps");
}
static const char *col_recording(void) {
  /* TRANSLATORS: column heading of `gpuwhy baseline list`: the recording the baseline was made from */
  return _("recording");
}

/* s right-aligned in width terminal columns (printf's %*s counts bytes). */
static void fputs_right(FILE *out, const char *s, int width) {
  int pad = width - gw_text_width(s);
  fprintf(out, "%*s%s", pad > 0 ? pad : 0, "", s);
}

static int by_name(const void *x, const void *y) {
  return strcmp(*(char *const *)x, *(char *const *)y);
}

int gw_baseline_list(const struct gw_compare_opts *opts, FILE *out, char *errbuf, size_t errcap) {
  char dir[1024];
  if (refuse_format(opts->format, errbuf, errcap))
    return GPUWHY_EXIT_USAGE;
  if (gw_baseline_dir(dir, sizeof dir, errbuf, errcap) != 0)
    return GPUWHY_EXIT_INPUT;
  DIR *d = opendir(dir);
  char **names = NULL;
  size_t n = 0;
  if (!d && errno != ENOENT)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("cannot read %s: %s"), dir, strerror(errno));
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && e->d_name[0] != '.') {
      names = gw_xrealloc(names, (n + 1) * sizeof *names);
      names[n++] = gw_xstrdup(e->d_name);
    }
  }
  if (d)
    closedir(d);
  qsort(names, n, sizeof *names, by_name);
  int json = opts->format == GW_REPORT_JSON, md = opts->format == GW_REPORT_MD;
  if (json) {
    fprintf(out, "{\n  \"schema\": \"gpuwhy.baseline_list/%d\",\n  \"schema_version\": %d,\n  \"folder\": ",
            GW_BASELINE_LIST_JSON_SCHEMA_VERSION, GW_BASELINE_LIST_JSON_SCHEMA_VERSION);
    gw_json_write_string(out, dir);
    fputs(",\n  \"baselines\": [", out);
  } else if (n == 0) {
    fprintf(out, _("no baselines saved yet in %s (gpuwhy baseline save NAME FILE makes one)\n"), dir);
  } else if (md) {
    fprintf(out, _("# gpuwhy baselines in `%s`\n\n"), dir);
    fprintf(out, "| %s | %s | %s | %s | %s | %s |\n|---|---|---:|---:|---:|---|\n", col_name(), col_saved(),
            col_steps(), _("throughput"), _("median step"), col_recording());
  } else {
    fprintf(out, _("baselines in %s\n"), dir);
    /* the columns of the rows below, padded by terminal columns */
    fputs("  ", out);
    gw_fputs_padded(out, col_name(), 24);
    fputc(' ', out);
    gw_fputs_padded(out, col_saved(), 16);
    fputc(' ', out);
    fputs_right(out, col_steps(), 7);
    fputs("  ", out);
    gw_fputs_padded(out, _("throughput"), 18);
    fputc(' ', out);
    gw_fputs_padded(out, _("median step"), 12);
    fprintf(out, " %s\n", col_recording());
  }
  int printed = 0;
  for (size_t i = 0; i < n; i++) {
    char file[1400];
    snprintf(file, sizeof file, "%s/%s", dir, names[i]);
    struct gw_baseline_info info;
    struct gw_err err = {{0}};
    if (gw_baseline_file_info(file, &info, &err) != GW_OK) {
      if (!json)
        fprintf(out, _("  %s: unreadable: %s\n"), names[i], err.msg);
      continue;
    }
    char saved[32] = "-", num[48], rate[64], med[32];
    time_t t = (time_t)(info.saved_ns / 1000000000LL);
    struct tm tm;
    if (info.saved_ns > 0 && localtime_r(&t, &tm))
      strftime(saved, sizeof saved, "%Y-%m-%d %H:%M", &tm);
    int samples = !isnan(info.samples_per_s);
    gw_fmt_rate(samples ? info.samples_per_s : info.steps_per_s, num, sizeof num);
    snprintf(rate, sizeof rate, "%s%s", num, strcmp(num, "-") == 0 ? "" : samples ? " samples/s" : " steps/s");
    gw_fmt_duration(info.step_median_s, med, sizeof med);
    if (json) {
      fprintf(out, "%s\n    {\"name\": ", printed ? "," : "");
      gw_json_write_string(out, info.name);
      fputs(", \"saved_ns\": ", out);
      gw_json_write_int(out, (long long)info.saved_ns);
      fprintf(out, ", \"steps\": %ld, \"step_source\": ", info.nsteps);
      gw_json_write_string(out, info.step_source);
      fputs(", \"samples_per_s\": ", out);
      if (samples)
        gw_json_write_number(out, info.samples_per_s);
      else
        fputs("null", out);
      fputs(", \"steps_per_s\": ", out);
      gw_json_write_number(out, info.steps_per_s);
      fputs(", \"recording\": ", out);
      gw_json_write_string(out, info.recording);
      fputs("}", out);
    } else if (md) {
      fprintf(out, "| %s | %s | %ld | %s | %s | `%s` |\n", info.name, saved, info.nsteps, rate, med, info.recording);
    } else {
      fprintf(out, "  %-24s %-16s %7ld  %-18s %-12s %s\n", info.name, saved, info.nsteps, rate, med, info.recording);
    }
    printed++;
  }
  if (json)
    fputs(printed ? "\n  ]\n}\n" : "]\n}\n", out);
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  return GPUWHY_EXIT_OK;
}
