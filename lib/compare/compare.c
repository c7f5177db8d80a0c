/* gpuwhy compare: load each run, compare each with the one before (and the
 * last with the first when there are more than two), render. */
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <stdlib.h>

#include "compare/compare_render.h"

int gw_compare_files(const char *const *paths, int n, const struct gw_compare_opts *opts, FILE *out, char *errbuf,
                     size_t errcap) {
  if (n < 2) {
    snprintf(errbuf, errcap, "compare needs at least two runs");
    return GPUWHY_EXIT_USAGE;
  }
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
    if (opts->format == GW_REPORT_JSON)
      gw_compare_render_json(runs, n, pairs, npairs, out);
    else if (opts->format == GW_REPORT_MD)
      gw_compare_render_md(runs, n, pairs, npairs, out);
    else
      gw_compare_render_text(runs, n, pairs, npairs, out, opts->color);
    free(pairs);
  }
  for (int i = 0; i < loaded; i++)
    gw_run_summary_free(&runs[i]);
  free(runs);
  return rc;
}
