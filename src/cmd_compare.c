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

int gw_cmd_compare(int argc, char **argv);

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
  static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                           {"output", required_argument, NULL, 'o'},
                                           {"ignore-arg", required_argument, NULL, OPT_IGNORE_ARG},
                                           {"color", optional_argument, NULL, GW_CLI_OPT_COLOR},
                                           {"colour", optional_argument, NULL, GW_CLI_OPT_COLOR},
                                           GW_CLI_COMMON_OPTIONS,
                                           {NULL, 0, NULL, 0}};
  enum gw_color_mode color = GW_COLOR_AUTO;
  int c, format_given = 0, done = 0;
  optind = 1;
  while (rc == GPUWHY_EXIT_OK && !done && (c = getopt_long(argc, argv, ":f:o:hV", longopts, NULL)) != -1) {
    char have[64];
    switch (c) {
    case 'f':
      if (gw_format_pick(gw_compare_formats(), optarg, &opts.format, have, sizeof have) != 0)
        rc = gw_cli_usage_error(NULL, _("no format '%s' (compare has %s)"), optarg, have);
      format_given = 1;
      break;
    case 'o':
      outpath = optarg;
      break;
    case OPT_IGNORE_ARG:
      if (!optarg[0])
        rc = gw_cli_usage_error(NULL, _("--ignore-arg needs an option name"));
      else
        ignore[opts.nignore++] = optarg;
      break;
    case GW_CLI_OPT_COLOR:
      if (gw_cli_parse_color(optarg, &color) != 0)
        rc = GPUWHY_EXIT_USAGE;
      break;
    case 'h':
      fputs(compare_usage(), stdout);
      done = 1;
      break;
    case 'V':
      gw_cli_version();
      done = 1;
      break;
    default:
      rc = gw_cli_option_error(c, argc, argv);
    }
  }
  if (done) {
    free(paths);
    free(ignore);
    return GPUWHY_EXIT_OK;
  }
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
