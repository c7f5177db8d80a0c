/* gpuwhy export FILE --perfetto OUT.json[.gz] */
#include <getopt.h>
#include <gpuwhy/export.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"

static const char *export_usage(void) {
  return _("usage: gpuwhy export [OPTION]... FILE --perfetto OUT.json\n"
           "\n"
           "Write a recording as a trace in the Chrome Trace Event Format, which Perfetto\n"
           "(ui.perfetto.dev, works offline once loaded) and chrome://tracing open: counters\n"
           "of SM activity, GPU-Util, power, clocks, PCIe, CPU and disk; steps, activity dips\n"
           "and the findings' time ranges as slices; and, when the run was recorded with\n"
           "--trace, every kernel, copy and synchronising wait on its process and stream.\n"
           "\n"
           "  -o, --perfetto OUT  the trace file to write (- for standard output); OUT ending\n"
           "                      in .gz (x.json.gz) is written gzip-compressed, which\n"
           "                      Perfetto opens as it is\n"
           "  -h, --help          this help\n"
           "  -V, --version       the version\n"
           "\n"
           "Exit status: 0 ok, 2 usage error, 3 unreadable input or unwritable output.\n");
}

int gw_cmd_export(int argc, char **argv) {
  const char *path = NULL, *outpath = NULL;
  const struct gw_cli_option options[] = {
      {"perfetto", required_argument, 'p', GW_CLI_STRING, &outpath},
      {"output", required_argument, 'o', GW_CLI_STRING, &outpath},
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  int rc = GW_CLI_PARSE(argc, argv, ":o:hV", options, export_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  const char *extra = gw_cli_one_operand(argc, argv, &path);
  if (extra)
    return gw_cli_usage_error(NULL, _("one recording at a time ('%s' is extra)"), extra);
  if (!path)
    return gw_cli_usage_error(NULL, _("which recording?"));
  if (!outpath || !outpath[0])
    return gw_cli_usage_error(NULL, _("say which file to write: --perfetto OUT.json"));
  int to_stdout = strcmp(outpath, "-") == 0;
  /* a .gz name is written compressed: the trace goes to a temporary file first */
  int gz = !to_stdout && gw_cli_path_is_gz(outpath);
  FILE *out = to_stdout ? stdout : gz ? tmpfile() : fopen(outpath, "w");
  if (!out) {
    fprintf(stderr, _("gpuwhy export: cannot write %s\n"), outpath);
    return GPUWHY_EXIT_INPUT;
  }
  char err[512] = "";
  unsigned long long n = 0;
  rc = gw_export_perfetto_file(path, out, &n, err, sizeof err);
  int write_failed = ferror(out) != 0;
  if (gz && rc == GPUWHY_EXIT_OK && !write_failed)
    write_failed = gw_cli_write_output(out, outpath) != 0;
  if (!to_stdout && fclose(out) != 0)
    write_failed = 1;
  if (rc != GPUWHY_EXIT_OK) {
    fprintf(stderr, "gpuwhy export: %s\n", err); /* err is translated where it is made */
    if (!to_stdout && !gz)
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
