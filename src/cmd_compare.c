/* gpuwhy compare A B [C ...]: did a change help? The work is in lib/compare. */
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int gw_cmd_compare(int argc, char **argv);

static const char *compare_usage(void) {
  /* xgettext:no-c-format */
  return _("usage: gpuwhy compare A B [C ...] [--format text|json|md|html] [-o OUT] [--ignore-arg NAME]...\n"
           "\n"
           "Compares runs in the order given, each against the one before (and the last\n"
           "against the first when there are more than two): throughput and median step\n"
           "time with 95% bootstrap intervals, a verdict (better, worse, no significant\n"
           "change), SM activity, power, the ledger and the findings, and what changed\n"
           "between the runs (command line, environment knobs, host, driver, GPU).\n"
           "A, B, ... are recordings or baseline files saved by `gpuwhy baseline save`.\n"
           "\n"
           "  --format FMT        text (default, colour on a terminal unless NO_COLOR is set), json, md,\n"
           "                      html (one self-contained page)\n"
           "  -o OUT              write to OUT instead of standard output\n"
           "  --ignore-arg NAME   an option whose value differs without being a change (repeatable);\n"
           "                      output paths and run names are already left out\n"
           "Exit status: 0 ok, 2 usage error, 3 unreadable input.\n");
}

int gw_cmd_compare(int argc, char **argv) {
  const char *outpath = NULL;
  struct gw_compare_opts opts = {GW_REPORT_TEXT, 0, NULL, 0};
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  const char **ignore = calloc((size_t)argc + 1, sizeof *ignore);
  int npaths = 0, rc = GPUWHY_EXIT_OK;
  if (!paths || !ignore) {
    fputs(_("gpuwhy compare: out of memory\n"), stderr);
    free(paths);
    free(ignore);
    return GPUWHY_EXIT_INPUT;
  }
  for (int i = 1; i < argc && rc == GPUWHY_EXIT_OK; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(compare_usage(), stdout);
      free(paths);
      free(ignore);
      return GPUWHY_EXIT_OK;
    } else if (strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0 || strncmp(a, "--format=", 9) == 0) {
      const char *v = strncmp(a, "--format=", 9) == 0 ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      char have[64];
      if (gw_format_pick(gw_compare_formats(), v, &opts.format, have, sizeof have) != 0)
        rc = gw_cli_usage_error(compare_usage(), _("compare: no format '%s' (compare has %s)"), v ? v : "", have);
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc)
        rc = gw_cli_usage_error(compare_usage(), _("compare: %s needs a file name"), a);
      else
        outpath = argv[++i];
    } else if (strcmp(a, "--ignore-arg") == 0 || strncmp(a, "--ignore-arg=", 13) == 0) {
      const char *v = a[12] == '=' ? a + 13 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !v[0])
        rc = gw_cli_usage_error(compare_usage(), _("compare: --ignore-arg needs an option name"));
      else
        ignore[opts.nignore++] = v;
    } else if (strcmp(a, "--") == 0) {
      while (++i < argc)
        paths[npaths++] = argv[i];
    } else if (a[0] == '-' && a[1] != '\0') {
      rc = gw_cli_usage_error(compare_usage(), _("compare: unknown option '%s'"), a);
    } else {
      paths[npaths++] = a;
    }
  }
  if (rc == GPUWHY_EXIT_OK && npaths < 2)
    rc = gw_cli_usage_error(compare_usage(), "compare: %s",
                            npaths ? _("give at least two runs to compare") : _("no runs given"));
  if (rc != GPUWHY_EXIT_OK) {
    free(paths);
    free(ignore);
    return rc;
  }
  opts.ignore_args = ignore;
  FILE *out = stdout;
  if (outpath && !(out = fopen(outpath, "w"))) {
    fprintf(stderr, _("gpuwhy compare: cannot write %s\n"), outpath);
    free(paths);
    free(ignore);
    return GPUWHY_EXIT_INPUT;
  }
  const char *no_color = getenv("NO_COLOR");
  opts.color = !outpath && isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
  char err[1024] = "";
  rc = gw_compare_files(paths, npaths, &opts, out, err, sizeof err);
  if (out != stdout && fclose(out) != 0 && rc == GPUWHY_EXIT_OK) {
    fprintf(stderr, _("gpuwhy compare: writing %s failed\n"), outpath);
    rc = GPUWHY_EXIT_INPUT;
  }
  if (rc != GPUWHY_EXIT_OK && err[0])
    fprintf(stderr, "gpuwhy compare: %s\n", err);
  free(paths);
  free(ignore);
  return rc;
}
