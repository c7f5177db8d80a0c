/* gpuwhy check [--json | --format text|json] [--load] [--root DIR] [--nvml-lib PATH]: the
 * pre-flight checkup of driver, GPUs, kernel log and host. */
#include <getopt.h>
#include <gpuwhy/check.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"

static const char *check_usage(void) {
  return _("usage: gpuwhy check [OPTION]...\n"
           "\n"
           "Check the driver, each GPU, the kernel log and the host before touching training code.\n"
           "Every item says pass, note, warn or fail, with the numbers behind it and what to do.\n"
           "\n"
           "      --json           one JSON document instead of the table (--format json)\n"
           "  -f, --format FMT     text (default) or json\n"
           "      --load           run a short bf16 matmul loop on each GPU (needs python3 with PyTorch)\n"
           "                       and judge clocks, power, temperature and the PCIe link under work;\n"
           "                       without it those are idle readings\n"
           "      --data DIR       judge the disk that holds DIR (default: the current directory)\n"
           "      --root DIR       read /proc, /sys and /dev/kmsg under DIR (for tests and saved trees)\n"
           "      --nvml-lib PATH  the libnvidia-ml to load (default: $GPUWHY_NVML_LIB, then the system's)\n"
           "      --color[=WHEN]   colour the table: auto (default: standard output is a terminal,\n"
           "                       NO_COLOR unset or empty, TERM not dumb), always or never\n"
           "  -h, --help           this help\n"
           "  -V, --version        the version\n"
           "\n"
           "Environment: GPUWHY_PYTHON names the Python asked about PyTorch and used by --load\n"
           "(default python3), GPUWHY_NVCC the nvcc asked for its version (default nvcc); with\n"
           "--root they run only when set.\n"
           "\n"
           "Exit status: 0 every item passes (notes included), 1 some item warns or fails (no\n"
           "NVIDIA driver is a failure; the summary and the JSON say which), 2 usage error,\n"
           "3 input error (a --root that cannot be read).\n");
}

/* --json, the same as --format json */
static int take_json(void *format, const char *value) {
  (void)value;
  *(enum gw_report_format *)format = GW_REPORT_JSON;
  return GW_CLI_PARSE_ON;
}

int gw_cmd_check(int argc, char **argv) {
  enum { OPT_JSON = 1000, OPT_LOAD, OPT_DATA, OPT_ROOT, OPT_NVML_LIB };
  struct gw_check_opts opts;
  memset(&opts, 0, sizeof opts);
  enum gw_report_format format = GW_REPORT_TEXT;
  enum gw_color_mode color_mode = GW_COLOR_AUTO;
  const struct gw_cli_option options[] = {
      {"json", no_argument, OPT_JSON, GW_CLI_OWN, &format, .take = take_json},
      {"format", required_argument, 'f', GW_CLI_FORMAT, &format, N_("no format '%s' (check has %s)"),
       .formats = gw_check_formats()},
      {"load", no_argument, OPT_LOAD, GW_CLI_FLAG, &opts.load},
      {"data", required_argument, OPT_DATA, GW_CLI_NONEMPTY, &opts.data_dir, N_("option '%s' needs a value")},
      {"root", required_argument, OPT_ROOT, GW_CLI_NONEMPTY, &opts.root, N_("option '%s' needs a value")},
      {"nvml-lib", required_argument, OPT_NVML_LIB, GW_CLI_NONEMPTY, &opts.nvml_lib, N_("option '%s' needs a value")},
      GW_CLI_COLOR_OPTIONS(&color_mode),
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  int rc = GW_CLI_PARSE(argc, argv, ":f:hV", options, check_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  if (optind < argc)
    return gw_cli_usage_error(NULL, _("unexpected argument '%s'"), argv[optind]);
  /* The items are worded when they are judged; JSON is for machines and
   * stays English in every language. */
  int json = format == GW_REPORT_JSON;
  opts.english = json;
  struct gw_check_report *report = NULL;
  char err[600] = "";
  rc = gw_check_run(&opts, &report, err, sizeof err);
  if (rc != GPUWHY_EXIT_OK) {
    fprintf(stderr, "gpuwhy check: %s\n", err);
    return rc;
  }
  int color = !json && gw_color_use(color_mode, STDOUT_FILENO);
  gw_check_print(stdout, report, (int)format, color);
  int status = gw_check_exit_status(report);
  gw_check_free(report);
  if (fflush(stdout) != 0) {
    fputs(_("gpuwhy check: writing the output failed\n"), stderr);
    return GPUWHY_EXIT_INPUT;
  }
  return status;
}
