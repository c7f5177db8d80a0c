/* gpuwhy report FILE [--format text|json|md|html] [-o OUT] */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"

int gw_cmd_report(int argc, char **argv);

static void usage(FILE *out) {
  fputs(_("usage: gpuwhy report FILE [--format text|json|md|html] [-o OUT]\n"
          "\n"
          "Explain where each GPU's time went in a recording and which bottleneck classes cost it.\n"
          "  --format FMT   text (default, colour on a terminal unless NO_COLOR is set), json, md,\n"
          "                 or html (one self-contained page with charts; opens offline)\n"
          "  -o OUT         write the report to OUT instead of standard output\n"
          "Exit status: 0 ok, 2 usage error, 3 unreadable input.\n"),
        out);
}

int gw_cmd_report(int argc, char **argv) {
  const char *path = NULL, *outpath = NULL;
  struct gw_report_opts opts = {GW_REPORT_TEXT, 0};
  gw_i18n_init();
  /* argv[0] is "report" */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return GPUWHY_EXIT_OK;
    } else if (strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0 || strncmp(a, "--format=", 9) == 0) {
      const char *v = a[2] == 'f' && a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || gw_report_format_from_name(v, &opts.format) != 0) {
        fprintf(stderr, _("gpuwhy report: unknown format '%s' (text, json, md or html)\n"), v ? v : "");
        return GPUWHY_EXIT_USAGE;
      }
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, _("gpuwhy report: %s needs a file name\n"), a);
        return GPUWHY_EXIT_USAGE;
      }
      outpath = argv[++i];
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, _("gpuwhy report: unknown option '%s'\n"), a);
      usage(stderr);
      return GPUWHY_EXIT_USAGE;
    } else if (!path) {
      path = a;
    } else {
      fprintf(stderr, _("gpuwhy report: one recording at a time ('%s' is extra)\n"), a);
      return GPUWHY_EXIT_USAGE;
    }
  }
  if (!path) {
    usage(stderr);
    return GPUWHY_EXIT_USAGE;
  }
  FILE *out = stdout;
  if (outpath && !(out = fopen(outpath, "w"))) {
    fprintf(stderr, _("gpuwhy report: cannot write %s\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  const char *no_color = getenv("NO_COLOR");
  opts.color = !outpath && isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
  char err[512] = "";
  int rc = gw_report_file(path, &opts, out, err, sizeof err);
  if (out != stdout && fclose(out) != 0 && rc == GPUWHY_EXIT_OK) {
    fprintf(stderr, _("gpuwhy report: writing %s failed\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  if (rc != GPUWHY_EXIT_OK)
    fprintf(stderr, "gpuwhy report: %s\n", err);
  return rc;
}
