/* gpuwhy compare --format html: one self-contained page (inline CSS, no
 * script, no external URL) in the report page's style: the runs side by
 * side, then each comparison with its verdict, changes and limits. The same
 * content as the Markdown, in the language of the messages; everything taken
 * from a recording goes through the HTML escaper. */
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <string.h>

#include "analysis/ledger.h"
#include "compare/compare_render.h"
#include "core/i18n.h"
#include "render/escape.h"
#include "render/report_html.h"

/* The verdict box's colour: green for better, the report's orange for worse,
 * grey when nothing changed or nothing can be said. */
static const char *verdict_class(enum gw_verdict v) {
  return v == GW_VERDICT_BETTER ? "verdict ok" : v == GW_VERDICT_WORSE ? "verdict" : "verdict nodata";
}

static void html_cell(FILE *out, const char *tag, const char *text) {
  fprintf(out, "<%s>", tag);
  gw_html_write(out, text);
  fprintf(out, "</%s>", tag);
}

static void html_row(FILE *out, const char *label, const char *cells, size_t cell_cap, int n) {
  fputs("<tr><td></td>", out);
  html_cell(out, "td", label);
  for (int i = 0; i < n; i++)
    html_cell(out, "td", cells + (size_t)i * cell_cap);
  fputs("</tr>\n", out);
}

static void runs_table(const struct gw_run_summary *runs, int n, FILE *out) {
  char lab[16];
  fputs("<div class=\"card\"><table class=\"ledger\"><tr><th></th><th></th>", out);
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    html_cell(out, "th", lab);
  }
  fputs("</tr>\n", out);
  gw_compare_each_run_row(runs, n, 256, out, html_row);
  fputs("</table></div>\n", out);
}

/* <li>text</li> with the text escaped */
static void item(FILE *out, const char *text) {
  html_cell(out, "li", text);
  fputc('\n', out);
}

static void pair_card(const struct gw_comparison *c, const char *la, const char *lb, FILE *out) {
  const struct gw_run_summary *a = c->a, *b = c->b;
  char x[96], y[96], ch[96], iv[96], line[1600];
  fputs("<div class=\"card\"><h3>", out);
  gw_textf(line, sizeof line, _("%s vs %s (%s vs %s)"), lb, la, b->name, a->name);
  gw_html_write(out, line);
  fprintf(out, "</h3><p class=\"%s\">", verdict_class(c->verdict));
  gw_html_write(out, gw_compare_verdict_title(c->verdict));
  fputs("</p><ul>\n", out);
  if (c->basis == GW_BASIS_STEPS || c->basis == GW_BASIS_REPORTED) {
    gw_fmt_rate(c->throughput_a, x, sizeof x);
    gw_fmt_rate(c->throughput_b, y, sizeof y);
    gw_fmt_change(c->throughput.point, ch, sizeof ch);
    gw_compare_fmt_interval(&c->throughput, iv, sizeof iv);
    gw_textf(line, sizeof line, _("throughput %s -> %s %s: %s, %s"), x, y, gw_compare_throughput_unit(c), ch, iv);
    item(out, line);
  }
  if (c->basis == GW_BASIS_STEPS) {
    gw_fmt_duration(a->step_median_s, x, sizeof x);
    gw_fmt_duration(b->step_median_s, y, sizeof y);
    gw_fmt_change(c->step_median.point, ch, sizeof ch);
    gw_compare_fmt_interval(&c->step_median, iv, sizeof iv);
    gw_textf(line, sizeof line, _("median step %s -> %s: %s, %s (%s)"), x, y, ch, iv,
             gw_compare_verdict_title(c->median_verdict));
    item(out, line);
  }
  char fa[256], fb[256];
  gw_compare_fmt_findings(a, fa, sizeof fa);
  gw_compare_fmt_findings(b, fb, sizeof fb);
  gw_textf(line, sizeof line, _("findings: %s -> %s"), fa, fb);
  item(out, line);
  const struct gw_change_list *cl = &c->changes;
  if (cl->n == 0)
    item(out, _("changed: nothing in the command line, environment knobs, host, driver or GPU"));
  for (int i = 0; i < cl->n && i < GW_MAX_CHANGES; i++) {
    char d[600];
    gw_change_describe(&cl->items[i], d, sizeof d);
    gw_textf(line, sizeof line, _("changed (%s): %s"), gw_compare_change_kind_title(cl->items[i].kind), d);
    item(out, line);
  }
  if (c->show_declared) {
    gw_textf(line, sizeof line, _("declared change (%s): %s"), b->setup.change_from, b->setup.change);
    item(out, line);
  }
  if (cl->nignored) {
    char ig[512];
    gw_compare_join_ignored(cl, ig, sizeof ig);
    gw_textf(line, sizeof line, _("not counted (output paths and run labels): %s"), ig);
    item(out, line);
  }
  gw_textf(line, sizeof line, _("based on: %s"), c->basis_shown);
  item(out, line);
  for (int i = 0; i < c->nnotes; i++) {
    gw_textf(line, sizeof line, _("note: %s"), c->notes_shown[i]);
    item(out, line);
  }
  fputs("</ul>", out);
  if (cl->n > 1) {
    char w[1400];
    gw_compare_warning_text(c, 1, w, sizeof w);
    fputs("<p class=\"verdict\">", out);
    gw_html_write(out, w);
    fputs("</p>", out);
  }
  fputs("</div>\n", out);
}

void gw_compare_render_html(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                            FILE *out) {
  char lab[16], line[1024];
  /* TRANSLATORS: the language of the HTML pages, a BCP 47 tag for <html lang>: zh-CN in Chinese */
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">", _("en"));
  fputs("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<meta name=\"generator\" content=\"gpuwhy\"><title>gpuwhy compare</title><style>",
        out);
  fputs(gw_report_html_style(), out);
  fputs("</style></head>\n<body>\n<header><h1>gpuwhy compare</h1>\n", out);
  gw_textf(line, sizeof line, _("%d runs, each against the one before"), n);
  fputs("<p>", out);
  gw_html_write(out, line);
  fputs("</p><dl class=\"facts\">", out);
  for (int i = 0; i < n; i++) {
    gw_run_label(i, lab, sizeof lab);
    html_cell(out, "dt", lab);
    fputs("<dd><code>", out);
    gw_html_write(out, runs[i].path);
    fputs("</code></dd>", out);
  }
  fputs("</dl></header>\n<main>\n", out);
  runs_table(runs, n, out);
  fputs("<h2>", out);
  gw_html_write(out, _("Differences"));
  fputs("</h2>\n", out);
  for (int p = 0; p < npairs; p++) {
    char la[16], lb[16];
    gw_run_label((int)(pairs[p].a - runs), la, sizeof la);
    gw_run_label((int)(pairs[p].b - runs), lb, sizeof lb);
    pair_card(&pairs[p], la, lb, out);
  }
  fputs("<p class=\"why\">", out);
  gw_textf(line, sizeof line,
           _("Method: %d bootstrap resamples of the per-step times, 95%% percentile intervals; a verdict of better "
             "or worse needs the interval to exclude no change and the change to exceed %.0f%%.\n"),
           GW_BOOT_RESAMPLES, GW_PRACTICAL_CHANGE * 100);
  gw_html_write(out, line);
  gw_textf(line, sizeof line, _("Made by gpuwhy %s"), gw_version());
  fputs("</p>\n</main>\n<footer>", out);
  gw_html_write(out, line);
  fputs("</footer>\n</body></html>\n", out);
}
