/* gpuwhy compare: load each run, compare each with the one before (and the
 * last with the first when there are more than two), render. */
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <stdlib.h>

#include "compare/compare_render.h"
#include "compare/run_load.h"
#include "core/i18n.h"
#include "core/util.h"
#include "render/renderer_formats.h"

static void render_text(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                        FILE *out, int color) {
  gw_compare_render_text(runs, n, pairs, npairs, out, color);
}
static void render_json(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                        FILE *out, int color) {
  (void)color;
  gw_compare_render_json(runs, n, pairs, npairs, out);
}
static void render_md(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                      FILE *out, int color) {
  (void)color;
  gw_compare_render_md(runs, n, pairs, npairs, out);
}
static void render_html(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs,
                        FILE *out, int color) {
  (void)color;
  gw_compare_render_html(runs, n, pairs, npairs, out);
}

/* compare's renderers: a format is one row here. */
static const struct compare_renderer {
  enum gw_report_format format;
  void (*render)(const struct gw_run_summary *runs, int n, const struct gw_comparison *pairs, int npairs, FILE *out,
                 int color);
} compare_renderers[] = {
    {GW_REPORT_TEXT, render_text},
    {GW_REPORT_JSON, render_json},
    {GW_REPORT_MD, render_md},
    {GW_REPORT_HTML, render_html},
};

unsigned gw_compare_formats(void) {
  return GW_RENDERER_TABLE_FORMATS(compare_renderers);
}

static int compare_files(const char *const *paths, int n, const struct gw_compare_opts *opts, FILE *out, char *errbuf,
                         size_t errcap);

int gw_compare_files(const char *const *paths, int n, const struct gw_compare_opts *opts, FILE *out, char *errbuf,
                     size_t errcap) {
  return compare_files(paths, n, opts, out, errbuf, errcap);
}

static int compare_files(const char *const *paths, int n, const struct gw_compare_opts *opts, FILE *out, char *errbuf,
                         size_t errcap) {
  if (n < 2) {
    snprintf(errbuf, errcap, "compare needs at least two runs");
    return GPUWHY_EXIT_USAGE;
  }
  const struct compare_renderer *renderer = GW_RENDERER_TABLE_ROW(compare_renderers, opts->format);
  if (!renderer)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("compare renders %s only"),
                          gw_format_names(gw_compare_formats()).text);
  struct gw_run_summary *runs = gw_xcalloc((size_t)n, sizeof *runs);
  int loaded = 0, rc = GPUWHY_EXIT_OK;
  for (; loaded < n; loaded++) {
    struct gw_err err = {{0}};
    if (gw_run_summary_load(paths[loaded], &runs[loaded], &err) != GW_OK) {
      snprintf(errbuf, errcap, "%s", err.msg);
      rc = GPUWHY_EXIT_INPUT;
      break;
    }
  }
  if (rc == GPUWHY_EXIT_OK) {
    int npairs = n - 1 + (n > 2);
    struct gw_comparison *pairs = gw_xcalloc((size_t)npairs, sizeof *pairs);
    for (int i = 1; i < n; i++)
      gw_compare_pair(&runs[i - 1], &runs[i], opts->ignore_args, opts->nignore, &pairs[i - 1]);
    if (n > 2) {
      gw_compare_pair(&runs[0], &runs[n - 1], opts->ignore_args, opts->nignore, &pairs[n - 1]);
      pairs[n - 1].show_declared = 0; /* the last run's declared change is one of several since the first */
    }
    renderer->render(runs, n, pairs, npairs, out, opts->color);
    free(pairs);
  }
  for (int i = 0; i < loaded; i++)
    gw_run_summary_free(&runs[i]);
  free(runs);
  return rc;
}
