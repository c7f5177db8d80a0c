/* gpuwhy baseline save NAME FILE | check NAME FILE [--tolerance PCT] | list.
 * The work is in lib/compare/baseline.c. */
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int gw_cmd_baseline(int argc, char **argv);

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
           "  --tolerance PCT     allowed slowdown in percent (0 to 100, default 5)\n"
           "  --format FMT        text (default), json, md\n"
           "  --ignore-arg NAME   an option whose value differs without being a change (repeatable)\n"
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

int gw_cmd_baseline(int argc, char **argv) {
  struct gw_compare_opts opts = {GW_REPORT_TEXT, 0, NULL, 0};
  double tolerance = 5;
  const char *pos[3] = {NULL, NULL, NULL};
  int npos = 0, extra = 0;
  const char **ignore = calloc((size_t)argc + 1, sizeof *ignore);
  if (!ignore)
    return GPUWHY_EXIT_INPUT;
  int rc = GPUWHY_EXIT_OK;
  for (int i = 1; i < argc && rc == GPUWHY_EXIT_OK; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(baseline_usage(), stdout);
      free(ignore);
      return GPUWHY_EXIT_OK;
    } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
      const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      char have[64];
      if (gw_format_pick(gw_baseline_formats(), v, &opts.format, have, sizeof have) != 0)
        rc = gw_cli_usage_error(baseline_usage(), _("baseline: no format '%s' (baseline has %s)"), v ? v : "", have);
    } else if (strcmp(a, "--tolerance") == 0 || strncmp(a, "--tolerance=", 12) == 0) {
      const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || parse_percent(v, &tolerance) != 0)
        rc = gw_cli_usage_error(baseline_usage(), _("baseline: --tolerance wants a percentage from 0 to 100, got '%s'"),
                                v ? v : "");
    } else if (strcmp(a, "--ignore-arg") == 0 || strncmp(a, "--ignore-arg=", 13) == 0) {
      const char *v = a[12] == '=' ? a + 13 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || !v[0])
        rc = gw_cli_usage_error(baseline_usage(), _("baseline: --ignore-arg needs an option name"));
      else
        ignore[opts.nignore++] = v;
    } else if (a[0] == '-' && a[1] != '\0') {
      rc = gw_cli_usage_error(baseline_usage(), _("baseline: unknown option '%s'"), a);
    } else if (npos < 3) {
      pos[npos++] = a;
    } else {
      extra++;
    }
  }
  opts.ignore_args = ignore;
  const char *sub = pos[0];
  if (rc == GPUWHY_EXIT_OK) {
    if (!sub)
      rc = gw_cli_usage_error(baseline_usage(), _("baseline: say save, check or list"));
    else if ((strcmp(sub, "save") == 0 || strcmp(sub, "check") == 0) && (npos != 3 || extra))
      rc = gw_cli_usage_error(baseline_usage(), _("baseline %s: give NAME and FILE"), sub);
    else if (strcmp(sub, "list") == 0 && npos != 1)
      rc = gw_cli_usage_error(baseline_usage(), _("baseline list takes no arguments"));
    else if (strcmp(sub, "save") != 0 && strcmp(sub, "check") != 0 && strcmp(sub, "list") != 0)
      rc = gw_cli_usage_error(baseline_usage(), _("baseline: unknown action '%s' (save, check or list)"), sub);
  }
  if (rc != GPUWHY_EXIT_OK) {
    free(ignore);
    return rc;
  }
  const char *no_color = getenv("NO_COLOR");
  opts.color = isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
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
