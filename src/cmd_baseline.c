/* gpuwhy baseline save NAME FILE | check NAME FILE [--tolerance PCT] | list.
 * The work is in lib/compare/baseline.c. */
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

static const char *baseline_usage(void) {
  /* xgettext:no-c-format */
  return _("usage: gpuwhy baseline save NAME FILE\n"
           "       gpuwhy baseline check NAME FILE [--tolerance PCT] [--format text|json|md]\n"
           "       gpuwhy baseline list [--format text|json|md]\n"
           "\n"
           "save   keeps a summary of recording FILE (throughput, per-step times and their\n"
           "       distribution, ledger, findings, command line and environment) as NAME in\n"
           "       $GPUWHY_HOME/baselines, or ~/.local/share/gpuwhy/baselines without it.\n"
           "check  compares FILE with baseline NAME: exit status 1 when throughput fell, or the\n"
           "       median step time rose, by more than PCT percent (default 5) and the 95%\n"
           "       bootstrap interval excludes no change; 0 otherwise.\n"
           "list   shows the saved baselines.\n"
           "\n"
           "  -f, --format FMT      text (default), json, md\n"
           "      --tolerance PCT   allowed slowdown in percent (0 to 100, default 5)\n"
           "      --ignore-arg NAME  an option whose value differs without being a change (repeatable)\n"
           "      --color[=WHEN]    colour the text: auto (default: standard output is a terminal,\n"
           "                        NO_COLOR unset or empty, TERM not dumb), always or never\n"
           "  -h, --help            this help\n"
           "  -V, --version         the version\n"
           "\n"
           "Exit status: 0 ok, 1 regression (check), 2 usage error, 3 unreadable input.\n");
}

/* A whole-token percentage in [0, 100); 0 on success. */
static int parse_percent(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !(v >= 0 && v < 100))
    return -1;
  *out = v;
  return 0;
}

/* --tolerance PCT */
static int take_tolerance(void *tolerance, const char *value) {
  if (parse_percent(value, tolerance) != 0)
    return gw_cli_usage_error(NULL, _("--tolerance wants a percentage from 0 to 100, got '%s'"), value);
  return GW_CLI_PARSE_ON;
}

int gw_cmd_baseline(int argc, char **argv) {
  struct gw_compare_opts opts = {GW_REPORT_TEXT, 0, NULL, 0};
  double tolerance = 5;
  const char *pos[3] = {NULL, NULL, NULL};
  int npos = 0, extra = 0;
  const char **ignore = calloc((size_t)argc + 1, sizeof *ignore);
  if (!ignore)
    return GPUWHY_EXIT_INPUT;
  int rc = GPUWHY_EXIT_OK;
  enum { OPT_TOLERANCE = 1000, OPT_IGNORE_ARG };
  enum gw_color_mode color = GW_COLOR_AUTO;
  const struct gw_cli_option options[] = {
      {"format", required_argument, 'f', GW_CLI_FORMAT, &opts.format, N_("no format '%s' (baseline has %s)"),
       .formats = gw_baseline_formats()},
      {"tolerance", required_argument, OPT_TOLERANCE, GW_CLI_OWN, &tolerance, .take = take_tolerance},
      {"ignore-arg", required_argument, OPT_IGNORE_ARG, GW_CLI_APPEND, ignore, N_("--ignore-arg needs an option name"),
       .count = &opts.nignore},
      GW_CLI_COLOR_OPTIONS(&color),
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  rc = GW_CLI_PARSE(argc, argv, ":f:hV", options, baseline_usage());
  if (rc != GW_CLI_PARSE_ON) {
    free(ignore);
    return rc;
  }
  rc = GPUWHY_EXIT_OK;
  for (int i = optind; i < argc; i++) {
    if (npos < 3)
      pos[npos++] = argv[i];
    else
      extra++;
  }
  opts.ignore_args = ignore;
  const char *sub = pos[0];
  if (rc == GPUWHY_EXIT_OK) {
    if (!sub)
      rc = gw_cli_usage_error(NULL, _("say save, check or list"));
    else if ((strcmp(sub, "save") == 0 || strcmp(sub, "check") == 0) && (npos != 3 || extra))
      rc = gw_cli_usage_error(NULL, _("%s: give NAME and FILE"), sub);
    else if (strcmp(sub, "list") == 0 && npos != 1)
      rc = gw_cli_usage_error(NULL, _("list takes no arguments"));
    else if (strcmp(sub, "save") != 0 && strcmp(sub, "check") != 0 && strcmp(sub, "list") != 0)
      rc = gw_cli_usage_error(NULL, _("unknown action '%s' (save, check or list)"), sub);
  }
  if (rc != GPUWHY_EXIT_OK) {
    free(ignore);
    return rc;
  }
  opts.color = gw_color_use(color, STDOUT_FILENO);
  char err[1024] = "";
  if (strcmp(sub, "save") == 0)
    rc = gw_baseline_save(pos[1], pos[2], stdout, err, sizeof err);
  else if (strcmp(sub, "check") == 0)
    rc = gw_baseline_check(pos[1], pos[2], tolerance, &opts, stdout, err, sizeof err);
  else
    rc = gw_baseline_list(&opts, stdout, err, sizeof err);
  if (err[0] && rc != GPUWHY_EXIT_OK && rc != GPUWHY_EXIT_FINDINGS)
    fprintf(stderr, "gpuwhy baseline %s: %s\n", sub, err);
  free(ignore);
  return rc;
}
