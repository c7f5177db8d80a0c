/* gpuwhy check [--json | --format text|json] [--load] [--root DIR] [--nvml-lib PATH]: the
 * pre-flight checkup of driver, GPUs, kernel log and host. */
#include <gpuwhy/check.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/report.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gw_cmd_check(int argc, char **argv);

static const char *check_usage(void) {
  return _("usage: gpuwhy check [--json] [--format text|json] [--load] [--data DIR] [--root DIR] [--nvml-lib PATH]\n"
           "\n"
           "Check the driver, each GPU, the kernel log and the host before touching training code.\n"
           "Every item says pass, note, warn or fail, with the numbers behind it and what to do.\n"
           "\n"
           "  --json           one JSON document instead of the table (--format json)\n"
           "  --format FMT     text (default) or json\n"
           "  --load           run a short bf16 matmul loop on each GPU (needs python3 with PyTorch)\n"
           "                   and judge clocks, power, temperature and the PCIe link under work;\n"
           "                   without it those are idle readings\n"
           "  --data DIR       judge the disk that holds DIR (default: the current directory)\n"
           "  --root DIR       read /proc, /sys and /dev/kmsg under DIR (for tests and saved trees)\n"
           "  --nvml-lib PATH  the libnvidia-ml to load (default: $GPUWHY_NVML_LIB, then the system's)\n"
           "\n"
           "Environment: GPUWHY_PYTHON names the Python asked about PyTorch and used by --load\n"
           "(default python3), GPUWHY_NVCC the nvcc asked for its version (default nvcc); with\n"
           "--root they run only when set. NO_COLOR turns colour off; colour is used on a terminal only.\n"
           "\n"
           "Exit status: 0 every item passes (notes included), 1 some item warns, 2 some item fails\n"
           "(no NVIDIA driver is a failure), 2 also for a usage error, 3 input error (a --root that\n"
           "cannot be read).\n");
}

static int usage_error(const char *what, const char *arg) {
  fprintf(stderr, "gpuwhy check: %s '%s'\n\n", what, arg);
  fputs(check_usage(), stderr);
  return GPUWHY_EXIT_USAGE;
}

int gw_cmd_check(int argc, char **argv) {
  struct gw_check_opts opts;
  memset(&opts, 0, sizeof opts);
  enum gw_report_format format = GW_REPORT_TEXT;
  /* argv[0] is "check" */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(check_usage(), stdout);
      return GPUWHY_EXIT_OK;
    } else if (strcmp(a, "--json") == 0) {
      format = GW_REPORT_JSON;
    } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
      const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
      char have[64];
      if (gw_format_pick(gw_check_formats(), v, &format, have, sizeof have) != 0) {
        fprintf(stderr, _("gpuwhy check: no format '%s' (check has %s)\n\n"), v ? v : "", have);
        fputs(check_usage(), stderr);
        return GPUWHY_EXIT_USAGE;
      }
    } else if (strcmp(a, "--load") == 0) {
      opts.load = 1;
    } else if (strcmp(a, "--root") == 0 || strcmp(a, "--nvml-lib") == 0 || strcmp(a, "--data") == 0) {
      if (i + 1 >= argc || argv[i + 1][0] == '\0')
        return usage_error(_("a value must follow"), a);
      const char **target = a[2] == 'r' ? &opts.root : a[2] == 'd' ? &opts.data_dir : &opts.nvml_lib;
      *target = argv[++i];
    } else if (strncmp(a, "--root=", 7) == 0 && a[7]) {
      opts.root = a + 7;
    } else if (strncmp(a, "--data=", 7) == 0 && a[7]) {
      opts.data_dir = a + 7;
    } else if (strncmp(a, "--nvml-lib=", 11) == 0 && a[11]) {
      opts.nvml_lib = a + 11;
    } else if (a[0] == '-') {
      return usage_error(_("unknown option"), a);
    } else {
      return usage_error(_("unexpected argument"), a);
    }
  }
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
  const char *no_color = getenv("NO_COLOR");
  int color = !json && isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
  gw_check_print(stdout, report, (int)format, color);
  int status = gw_check_exit_status(report);
  gw_check_free(report);
  if (fflush(stdout) != 0) {
    fputs(_("gpuwhy check: writing the output failed\n"), stderr);
    return GPUWHY_EXIT_INPUT;
  }
  return status;
}
