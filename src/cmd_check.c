/* gpuwhy check [--json | --format text|json] [--load] [--root DIR] [--nvml-lib PATH]: the
 * pre-flight checkup of driver, GPUs, kernel log and host. */
#include <getopt.h>
#include <gpuwhy/check.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/report.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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

int gw_cmd_check(int argc, char **argv) {
  enum { OPT_JSON = 1000, OPT_LOAD, OPT_DATA, OPT_ROOT, OPT_NVML_LIB };
  static const struct option longopts[] = {{"json", no_argument, NULL, OPT_JSON},
                                           {"format", required_argument, NULL, 'f'},
                                           {"load", no_argument, NULL, OPT_LOAD},
                                           {"data", required_argument, NULL, OPT_DATA},
                                           {"root", required_argument, NULL, OPT_ROOT},
                                           {"nvml-lib", required_argument, NULL, OPT_NVML_LIB},
                                           {"color", optional_argument, NULL, GW_CLI_OPT_COLOR},
                                           {"colour", optional_argument, NULL, GW_CLI_OPT_COLOR},
                                           GW_CLI_COMMON_OPTIONS,
                                           {NULL, 0, NULL, 0}};
  struct gw_check_opts opts;
  memset(&opts, 0, sizeof opts);
  enum gw_report_format format = GW_REPORT_TEXT;
  enum gw_color_mode color_mode = GW_COLOR_AUTO;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":f:hV", longopts, NULL)) != -1) {
    char have[64];
    switch (c) {
    case OPT_JSON:
      format = GW_REPORT_JSON;
      break;
    case 'f':
      if (gw_format_pick(gw_check_formats(), optarg, &format, have, sizeof have) != 0)
        return gw_cli_usage_error(NULL, _("no format '%s' (check has %s)"), optarg, have);
      break;
    case OPT_LOAD:
      opts.load = 1;
      break;
    case OPT_DATA:
    case OPT_ROOT:
    case OPT_NVML_LIB:
      if (!optarg[0])
        return gw_cli_usage_error(NULL, _("option '%s' needs a value"), argv[optind - 1]);
      *(c == OPT_DATA ? &opts.data_dir : c == OPT_ROOT ? &opts.root : &opts.nvml_lib) = optarg;
      break;
    case GW_CLI_OPT_COLOR:
      if (gw_cli_parse_color(optarg, &color_mode) != 0)
        return GPUWHY_EXIT_USAGE;
      break;
    case 'h':
      fputs(check_usage(), stdout);
      return GPUWHY_EXIT_OK;
    case 'V':
      return gw_cli_version();
    default:
      return gw_cli_option_error(c, argc, argv);
    }
  }
  if (optind < argc)
    return gw_cli_usage_error(NULL, _("unexpected argument '%s'"), argv[optind]);
  /* The items are written in the language of the messages when they are
   * judged; JSON is for machines and stays English in every language, so
   * its text is judged in the C locale (gettext then ignores LANGUAGE). */
  int json = format == GW_REPORT_JSON;
  if (json)
    setlocale(LC_MESSAGES, "C");
  struct gw_check_report *report = NULL;
  char err[600] = "";
  int rc = gw_check_run(&opts, &report, err, sizeof err);
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
