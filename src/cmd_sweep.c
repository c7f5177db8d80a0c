/* gpuwhy sweep --param NAME=V1,V2,... [-o DIR] [--interval MS] -- CMD ... {NAME} ...
 * gpuwhy sweep --from R1 R2 ...
 * The work is in lib/compare/sweep.c and sweep_run.c. */
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

static const char *sweep_usage(void) {
  /* xgettext:no-c-format */
  return _("usage: gpuwhy sweep --param NAME=V1,V2,... [-o DIR] [--interval MS] [--batch]\n"
           "                    [--format text|json|md] -- CMD ARGS... {NAME} ...\n"
           "       gpuwhy sweep --from R1 R2 ... [--param NAME] [--batch] [--format text|json|md]\n"
           "\n"
           "Runs CMD once per value under gpuwhy record, with {NAME} in its arguments\n"
           "replaced by the value (recordings DIR/sweep_NAME_VALUE.db), then prints one\n"
           "row per value: samples/s (steps/s when the batch is unknown), the gain over the\n"
           "previous value with its 95% interval, median step time, SM activity, power,\n"
           "peak memory and the top finding, and says where throughput stops rising\n"
           "(the first value after which a doubling gains less than 20%).\n"
           "With --from, builds the same table from existing recordings.\n"
           "\n"
           "  -p, --param NAME=V1,V2,...  the parameter and its values (with --from: NAME only,\n"
           "                              read from each recording's command line)\n"
           "  -o, --output DIR            folder for the recordings (default: the current one)\n"
           "  -i, --interval MS           sampling period of each recording (default 100)\n"
           "  -b, --batch                 the parameter is the batch size: samples per step = value\n"
           "  -f, --format FMT            text (default), json, md\n"
           "  -q, --quiet                 no recorder status lines\n"
           "      --from R1 R2 ...        use existing recordings instead of running CMD\n"
           "      --color[=WHEN]          colour the text: auto (default: standard output is a\n"
           "                              terminal, NO_COLOR unset or empty, TERM not dumb),\n"
           "                              always or never\n"
           "      --nvml-lib PATH         NVML library to load (tests)\n"
           "  -h, --help                  this help\n"
           "  -V, --version               the version\n"
           "\n"
           "With --from, options may come before or after the recordings. Without it the\n"
           "first argument that is not an option starts CMD (or put -- before CMD).\n"
           "With --from --param NAME, the runs are ordered by NAME's value (read from each\n"
           "command line); a NAME found in no command is said once on stderr.\n"
           "\n"
           "Exit status: 0 ok, 2 usage error, 3 unreadable input or failed recording,\n"
           "125 gpuwhy could not record, 126 CMD could not be run, 127 CMD not found,\n"
           "128+N when interrupted by signal N.\n");
}

/* "a,b,c" -> a NULL-free array of copies; returns the count (0 when empty). */
static int split_values(const char *list, char ***out) {
  int n = 0;
  char **v = NULL;
  const char *p = list;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len > 0) {
      char **grown = realloc(v, (size_t)(n + 1) * sizeof *v);
      char *copy = malloc(len + 1);
      if (!grown || !copy) {
        free(copy);
        free(grown ? grown : v);
        return -1;
      }
      v = grown;
      memcpy(copy, p, len);
      copy[len] = '\0';
      v[n++] = copy;
    }
    if (!comma)
      break;
    p = comma + 1;
  }
  *out = v;
  return n;
}

int gw_cmd_sweep(int argc, char **argv) {
  struct gw_sweep_opts opts = {GW_REPORT_TEXT, 0, NULL, 0};
  enum gw_color_mode color = GW_COLOR_AUTO;
  struct gw_sweep_run_opts run;
  memset(&run, 0, sizeof run);
  run.interval_ms = 100;
  const char *param_arg = NULL;
  int from = 0;
  const struct gw_cli_option options[] = {
      {"param", required_argument, 'p', GW_CLI_STRING, &param_arg},
      {"output", required_argument, 'o', GW_CLI_STRING, &run.out_dir},
      {"interval", required_argument, 'i', GW_CLI_INT, &run.interval_ms,
       N_("--interval wants milliseconds between 10 and 600000, got '%s'"), 10, 600000},
      {"batch", no_argument, 'b', GW_CLI_FLAG, &opts.param_is_batch},
      {"format", required_argument, 'f', GW_CLI_FORMAT, &opts.format, N_("no format '%s' (sweep has %s)"),
       .formats = gw_sweep_formats()},
      {"quiet", no_argument, 'q', GW_CLI_FLAG, &run.quiet},
      {"from", no_argument, 'F', GW_CLI_FLAG, &from},
      {"nvml-lib", required_argument, 'N', GW_CLI_STRING, &run.nvml_lib},
      {"color", optional_argument, GW_CLI_OPT_COLOR, GW_CLI_COLOR, &color},
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  /* With --from every argument is a recording and options may go anywhere
   * (getopt_long permutes); otherwise the first non-option starts CMD, whose
   * own options are not ours. */
  const char *optstring = ":p:o:i:bf:qhV";
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--from") == 0)
      from = 1;
  if (!from)
    optstring = "+:p:o:i:bf:qhV";
  int rc = GW_CLI_PARSE(argc, argv, optstring, options, sweep_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  opts.color = gw_color_use(color, STDOUT_FILENO);
  char err[1024] = "";
  if (from) {
    if (optind >= argc)
      return gw_cli_usage_error(sweep_usage(), _("--from: give the recordings"));
    if (param_arg && strchr(param_arg, '='))
      return gw_cli_usage_error(sweep_usage(), _("--from: --param takes a name only, the values come from the "
                                                 "recordings"));
    opts.param = param_arg;
    rc = gw_sweep_table((const char *const *)(argv + optind), NULL, argc - optind, &opts, stdout, err, sizeof err);
  } else {
    const char *eq = param_arg ? strchr(param_arg, '=') : NULL;
    if (!eq || eq == param_arg)
      return gw_cli_usage_error(sweep_usage(), _("--param NAME=V1,V2,... is required"));
    if (optind >= argc)
      return gw_cli_usage_error(sweep_usage(), _("give the command to run after --"));
    char name[128];
    size_t nlen = (size_t)(eq - param_arg);
    if (nlen >= sizeof name)
      return gw_cli_usage_error(sweep_usage(), _("parameter name too long"));
    memcpy(name, param_arg, nlen);
    name[nlen] = '\0';
    char **values = NULL;
    int nvalues = split_values(eq + 1, &values);
    if (nvalues <= 0) {
      free(values);
      return gw_cli_usage_error(sweep_usage(), _("--param %s= has no values"), name);
    }
    run.param = name;
    run.values = (const char *const *)values;
    run.nvalues = nvalues;
    run.argv = argv + optind;
    rc = gw_sweep_run(&run, &opts, stdout, err, sizeof err);
    for (int i = 0; i < nvalues; i++)
      free(values[i]);
    free(values);
  }
  if (rc != GPUWHY_EXIT_OK && err[0])
    fprintf(stderr, "gpuwhy sweep: %s\n", err);
  return rc;
}
