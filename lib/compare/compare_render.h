/* Output of compare (and the comparison part of baseline check) as terminal
 * text, JSON (schema "gpuwhy.compare", docs/compare.md), Markdown and HTML. */
#ifndef GW_COMPARE_RENDER_H
#define GW_COMPARE_RENDER_H

#include <stdio.h>

#include "compare/comparison.h"
#include "core/util.h"

/* 2: "schema" carries the version ("gpuwhy.compare/2"); method.seed, above
 * 2^53, is a string; numbers round-trip */
#define GW_COMPARE_JSON_SCHEMA_VERSION 2
#define GW_SWEEP_JSON_SCHEMA_VERSION 2

struct gw_text_style {
  const char *bold, *dim, *red, *green, *yellow, *reset;
};
struct gw_text_style gw_text_style(int color);

/* Run labels: A, B, ... Z, then R27, R28, ... */
void gw_run_label(int i, char *buf, size_t cap);

/* n runs, with npairs comparisons (each names its two runs). */
void gw_compare_render_text(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                            FILE *out, int color);
void gw_compare_render_json(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                            FILE *out);
void gw_compare_render_md(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                          FILE *out);
/* One self-contained HTML page (lib/compare/compare_html.c) in the report
 * page's style. */
void gw_compare_render_html(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                            FILE *out);

/* Pieces shared with baseline check. */
void gw_compare_text_pair(const struct gw_comparison *c, const char *la, const char *lb, FILE *out,
                          const struct gw_text_style *st);
void gw_compare_md_pair(const struct gw_comparison *c, const char *la, const char *lb, FILE *out);
void gw_compare_json_run(const struct gw_run_summary *s, const char *label, FILE *out, const char *indent);
/* The findings of s as the members of a JSON array: {"class", "share_of_lost",
 * "confidence"} each; baselines and compare's JSON write them alike. */
void gw_compare_json_findings(const struct gw_run_summary *s, FILE *out);
void gw_compare_json_pair(const struct gw_comparison *c, const char *la, const char *lb, FILE *out, const char *indent);

/* snprintf that cuts long text without a compile-time truncation warning:
 * for sentences built from file and option names of any length. */
void gw_textf(char *buf, size_t cap, const char *fmt, ...) GW_PRINTF(3, 4);

/* Shared by the renderers: the verdict and the interval in words, the
 * findings "input_pipeline 62%, ...", the changes' warning (translate 0:
 * English, for JSON), a percentage, a number with its unit, GiB. */
const char *gw_compare_verdict_title(enum gw_verdict v);
void gw_compare_fmt_interval(const struct gw_ratio_ci *r, char *buf, size_t cap);
void gw_compare_fmt_findings(const struct gw_run_summary *s, char *buf, size_t cap);
void gw_compare_fmt_top_finding(const struct gw_run_summary *s, char *buf, size_t cap);
void gw_compare_warning_text(const struct gw_comparison *c, int translate, char *buf, size_t cap);
const char *gw_compare_change_kind_title(enum gw_change_kind k);
void gw_compare_join_ignored(const struct gw_change_list *cl, char *buf, size_t cap);
const char *gw_compare_throughput_unit(const struct gw_comparison *c);
void gw_compare_fmt_pct(double v, char *buf, size_t cap);
/* One row of a runs table: label, then n cells of cell_cap bytes each. */
typedef void (*gw_compare_row_emit)(FILE *out, const char *label, const char *cells, size_t cell_cap, int n);
void gw_compare_each_run_row(const struct gw_run_summary *runs, int n, size_t cell_cap, FILE *out,
                             gw_compare_row_emit emit);
void gw_compare_fmt_num(double v, int decimals, const char *unit, char *buf, size_t cap);
void gw_compare_fmt_gib(double bytes, char *buf, size_t cap);

/* Formatting: "732.5 ms"; "+12.3%" ("+2011.6% (x21.12)" when large). */
void gw_fmt_duration(double s, char *buf, size_t cap);
void gw_fmt_change(double ratio, char *buf, size_t cap);
void gw_fmt_rate(double v, char *buf, size_t cap);

#endif
