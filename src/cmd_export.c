/* gpuwhy export FILE --perfetto OUT.json */
#include <gpuwhy/export.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <string.h>

int gw_cmd_export(int argc, char **argv);

static void usage(FILE *out) {
  fputs(_("usage: gpuwhy export FILE --perfetto OUT.json\n"
          "\n"
          "Write a recording as a trace in the Chrome Trace Event Format, which Perfetto\n"
          "(ui.perfetto.dev, works offline once loaded) and chrome://tracing open: counters\n"
          "of SM activity, GPU-Util, power, clocks, PCIe, CPU and disk; steps, activity dips\n"
          "and the findings' time ranges as slices; and, when the run was recorded with\n"
          "--trace, every kernel, copy and synchronising wait on its process and stream.\n"
          "  --perfetto OUT  the trace file to write (- for standard output)\n"
          "Exit status: 0 ok, 2 usage error, 3 unreadable input or unwritable output.\n"),
        out);
}

int gw_cmd_export(int argc, char **argv) {
  const char *path = NULL, *outpath = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return GPUWHY_EXIT_OK;
    } else if (strcmp(a, "--perfetto") == 0) {
      if (i + 1 >= argc) {
        fputs(_("gpuwhy export: --perfetto needs a file name\n"), stderr);
        return GPUWHY_EXIT_USAGE;
      }
      outpath = argv[++i];
    } else if (strncmp(a, "--perfetto=", 11) == 0) {
      outpath = a + 11;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, _("gpuwhy export: unknown option '%s'\n"), a);
      usage(stderr);
      return GPUWHY_EXIT_USAGE;
    } else if (!path) {
      path = a;
    } else {
      fprintf(stderr, _("gpuwhy export: one recording at a time ('%s' is extra)\n"), a);
      return GPUWHY_EXIT_USAGE;
    }
  }
  if (!path || !outpath || !outpath[0]) {
    if (path && !outpath)
      fputs(_("gpuwhy export: say which format to write: --perfetto OUT.json\n"), stderr);
    usage(stderr);
    return GPUWHY_EXIT_USAGE;
  }
  int to_stdout = strcmp(outpath, "-") == 0;
  FILE *out = to_stdout ? stdout : fopen(outpath, "w");
  if (!out) {
    fprintf(stderr, _("gpuwhy export: cannot write %s\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  char err[512] = "";
  unsigned long long n = 0;
  int rc = gw_export_perfetto_file(path, out, &n, err, sizeof err);
  int write_failed = ferror(out) != 0;
  if (!to_stdout && fclose(out) != 0)
    write_failed = 1;
  if (rc != GPUWHY_EXIT_OK) {
    fprintf(stderr, "gpuwhy export: %s\n", err); /* err is translated where it is made */
    if (!to_stdout)
      remove(outpath);
    return rc;
  }
  if (write_failed) {
    fprintf(stderr, _("gpuwhy export: writing %s failed\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  if (!to_stdout)
    fprintf(stderr,
            gw_ngettext("gpuwhy export: %llu event to %s; open it at ui.perfetto.dev or chrome://tracing\n",
                        "gpuwhy export: %llu events to %s; open it at ui.perfetto.dev or chrome://tracing\n",
                        (unsigned long)n),
            n, outpath);
  return GPUWHY_EXIT_OK;
}
