/* gpuwhy report FILE... [--format text|json|md|html] [-o OUT] */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"

int gw_cmd_report(int argc, char **argv);

static void usage(FILE *out) {
  fputs(_("usage: gpuwhy report FILE... [--format text|json|md|html] [-o OUT]\n"
          "\n"
          "Explain where each GPU's time went in a recording and which bottleneck classes cost it.\n"
          "Several files (one recording per node of a multi-node job) are reported together.\n"
          "  --format FMT   text (default, colour on a terminal unless NO_COLOR is set), json, md,\n"
          "                 or html (one self-contained page with charts; opens offline)\n"
          "  -o OUT         write the report to OUT instead of standard output\n"
          "Exit status: 0 ok, 2 usage error, 3 unreadable input.\n"),
        out);
}

/* Parse the options into opts, outpath and paths (argc entries at most).
 * Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct gw_report_opts *opts, const char **outpath, const char **paths,
                      int *npaths) {
  /* argv[0] is "report" */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return GPUWHY_EXIT_OK;
    } else if (strcmp(a, "--format") == 0 || strcmp(a, "-f") == 0 || strncmp(a, "--format=", 9) == 0) {
      const char *v = a[2] == 'f' && a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v || gw_report_format_from_name(v, &opts->format) != 0) {
        fprintf(stderr, _("gpuwhy report: unknown format '%s' (text, json, md or html)\n"), v ? v : "");
        return GPUWHY_EXIT_USAGE;
      }
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, _("gpuwhy report: %s needs a file name\n"), a);
        return GPUWHY_EXIT_USAGE;
      }
      *outpath = argv[++i];
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, _("gpuwhy report: unknown option '%s'\n"), a);
      usage(stderr);
      return GPUWHY_EXIT_USAGE;
    } else {
      paths[(*npaths)++] = a;
    }
  }
  if (*npaths == 0) {
    usage(stderr);
    return GPUWHY_EXIT_USAGE;
  }
  return -1;
}

static int report(const char *const *paths, int npaths, struct gw_report_opts *opts, const char *outpath) {
  FILE *out = stdout;
  if (outpath && !(out = fopen(outpath, "w"))) {
    fprintf(stderr, _("gpuwhy report: cannot write %s\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  const char *no_color = getenv("NO_COLOR");
  opts->color = !outpath && isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
  char err[512] = "";
  int rc = gw_report_files(paths, npaths, opts, out, err, sizeof err);
  if (out != stdout && fclose(out) != 0 && rc == GPUWHY_EXIT_OK) {
    fprintf(stderr, _("gpuwhy report: writing %s failed\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  if (rc != GPUWHY_EXIT_OK)
    fprintf(stderr, "gpuwhy report: %s\n", err);
  return rc;
}

int gw_cmd_report(int argc, char **argv) {
  struct gw_report_opts opts = {GW_REPORT_TEXT, 0};
  const char *outpath = NULL;
  gw_i18n_init();
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  if (!paths)
    return GPUWHY_EXIT_INPUT;
  int npaths = 0;
  int rc = parse_args(argc, argv, &opts, &outpath, paths, &npaths);
  if (rc < 0)
    rc = report(paths, npaths, &opts, outpath);
  free(paths);
  return rc;
}
