/* gpuwhy compare A B [C ...]: did a change help? The work is in lib/compare. */
#include <getopt.h>
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"

static const char *compare_usage(void) {
  /* xgettext:no-c-format */
  return _("usage: gpuwhy compare [OPTION]... A B [C ...]\n"
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
  enum { OPT_IGNORE_ARG = 1000 };
  enum gw_color_mode color = GW_COLOR_AUTO;
  int format_given = 0;
  const struct gw_cli_option options[] = {
      {"format", required_argument, 'f', GW_CLI_FORMAT, &opts.format, N_("no format '%s' (compare has %s)"),
       .formats = gw_compare_formats(), .count = &format_given},
      {"output", required_argument, 'o', GW_CLI_STRING, &outpath},
      {"ignore-arg", required_argument, OPT_IGNORE_ARG, GW_CLI_APPEND, ignore, N_("--ignore-arg needs an option name"),
       .count = &opts.nignore},
      GW_CLI_COLOR_OPTIONS(&color),
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  rc = GW_CLI_PARSE(argc, argv, ":f:o:hV", options, compare_usage());
  if (rc != GW_CLI_PARSE_ON) {
    free(paths);
    free(ignore);
    return rc;
  }
  rc = GPUWHY_EXIT_OK;
  for (int i = optind; rc == GPUWHY_EXIT_OK && i < argc; i++)
    paths[npaths++] = argv[i];
  if (rc == GPUWHY_EXIT_OK && npaths < 2)
    rc = gw_cli_usage_error(NULL, "%s", npaths ? _("give at least two runs to compare") : _("no runs given"));
  /* -o cmp.html: the extension names the format when --format does not */
  if (rc == GPUWHY_EXIT_OK && !format_given && outpath)
    gw_cli_format_from_path(outpath, gw_compare_formats(), &opts.format);
  if (rc != GPUWHY_EXIT_OK) {
    free(paths);
    free(ignore);
    return rc;
  }
  opts.ignore_args = ignore;
  FILE *out = stdout;
  int gz = outpath && gw_cli_path_is_gz(outpath); /* written to a temporary file, then compressed */
  if (outpath && !(out = gz ? tmpfile() : fopen(outpath, "w"))) {
    fprintf(stderr, _("gpuwhy compare: cannot write %s\n"), outpath);
    free(paths);
    free(ignore);
    return GPUWHY_EXIT_INPUT;
  }
  opts.color = outpath ? color == GW_COLOR_ALWAYS : gw_color_use(color, STDOUT_FILENO);
  char err[1024] = "";
  rc = gw_compare_files(paths, npaths, &opts, out, err, sizeof err);
  if (gz && rc == GPUWHY_EXIT_OK && gw_cli_write_output(out, outpath) != 0) {
    fprintf(stderr, _("gpuwhy compare: writing %s failed\n"), outpath);
    rc = GPUWHY_EXIT_INPUT;
  }
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
