/* gpuwhy experiment fixed-batch [--batches K] [--seconds S] [--max-seconds T] -- CMD ARGS...
 * gpuwhy experiment try [--fix NAME[=VALUE]]... [--rounds R] ... (-- CMD ARGS... | --from RUN.db)
 * The work is in lib/compare/fixed_batch.c and lib/compare/experiment_try.c. */
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include <gpuwhy/experiment.h>
#include <gpuwhy/i18n.h>

static const char *experiment_usage(void) {
  /* xgettext:no-c-format */
  return _("usage: gpuwhy experiment fixed-batch [--batches K] [--seconds S] [--max-seconds T] -- CMD ARGS...\n"
           "\n"
           "Runs CMD twice under gpuwhy record: as it is, then with every torch DataLoader\n"
           "replaying its first K batches from memory (the Python hook does it; the script\n"
           "is not changed). Each run goes on until it has run S seconds of steady steps\n"
           "after its warm-up (the steps before the loop settled: workers starting, CUDA\n"
           "set-up, compilation), then is stopped; only steady steps are measured. Prints\n"
           "both throughputs, their ratio with its 95% interval and one sentence:\n"
           "input-bound and by how much, or not.\n"
           "\n"
           "  -k, --batches K      batches cached per DataLoader iterator (default 8)\n"
           "  -s, --seconds S      steady seconds to measure per run (default 30)\n"
           "  -t, --max-seconds T  stop a run after T seconds in all, steady or not\n"
           "                       (default S + 600)\n"
           "  -q, --quiet          no progress lines\n"
           "      --nvml-lib PATH  NVML library to load (tests)\n"
           "Exit status: 0 done, 2 usage error, nothing to replay (no DataLoader), too few\n"
           "steps or a run that never became steady, 3 a run could not be recorded.\n"
           "\n"
           "See also: gpuwhy experiment try --help\n");
}

static const char *try_usage(void) {
  /* xgettext:no-c-format */
  return _("usage: gpuwhy experiment try [--fix NAME[=VALUE]]... [--rounds R] [--seconds S]\n"
           "           [--max-seconds T] [--keep DIR] [--format text|json] [-q] (-- CMD ARGS... | --from RUN.db)\n"
           "\n"
           "Runs CMD under gpuwhy record as it is (the baseline) and with each fix applied by\n"
           "the Python hook (no edit to the script), interleaved in rounds; each run goes on\n"
           "until it has run S steady seconds and only its steady steps are measured. Then\n"
           "the fixes that helped run together. Prints, per fix, what it changes, the gain\n"
           "the baseline's diagnosis predicts (point and bound), the measured throughput\n"
           "ratio with its 95% interval, and a verdict: helped, no effect, hurt, undecided.\n"
           "The program sees GPUWHY_EXPERIMENT=<fix> (baseline for the baseline).\n"
           "\n"
           "Fixes: workers[=N], persistent_workers, prefetch_factor[=N], pin_memory,\n"
           "non_blocking, cudnn_benchmark, tf32, batch_size[=N|=xK] (compared in samples/s).\n"
           "A value left out is derived from the recording (workers from the cores and the\n"
           "workers measured). Without --fix: the fixes whose cause the diagnosis found.\n"
           "\n"
           "  -x, --fix NAME[=VALUE]  a fix to try (repeat for more)\n"
           "      --from RUN.db       the recording to diagnose; its recorded command is run\n"
           "  -r, --rounds R          rounds of baseline and fixes (default 2)\n"
           "  -s, --seconds S         steady seconds to measure per run (default 20)\n"
           "  -t, --max-seconds T     stop a run after T seconds in all (default S + 600)\n"
           "  -k, --keep DIR          folder for the recordings and experiment.json (default\n"
           "                          gpuwhy-experiment-YYYYmmdd-HHMMSS; never a non-empty one)\n"
           "  -f, --format FMT        text (default) or json\n"
           "  -q, --quiet             no progress lines\n"
           "      --nvml-lib PATH     NVML library to load (tests)\n"
           "Exit status: 0 done (a fix that broke the program is in the table), 2 usage\n"
           "error, a recording without a command, a non-empty --keep folder, a baseline with\n"
           "no steady steps, 3 the baseline could not be recorded or broke the program.\n");
}

/* --fix NAME[=VALUE], repeatable */
static int take_fix(void *opts, const char *value) {
  struct gw_try_opts *o = opts;
  char err[512];
  if (gw_try_check_fix(value, err, sizeof err) != 0)
    return gw_cli_usage_error(try_usage(), "%s", err);
  if (o->nfixes >= GW_TRY_MAX_FIXES)
    return gw_cli_usage_error(try_usage(), _("at most %d fixes at a time"), GW_TRY_MAX_FIXES);
  o->fixes[o->nfixes++] = value;
  return GW_CLI_PARSE_ON;
}

/* --format text|json */
static int take_try_format(void *json, const char *value) {
  if (strcmp(value, "json") == 0)
    *(int *)json = 1;
  else if (strcmp(value, "text") != 0)
    return gw_cli_usage_error(try_usage(), _("experiment try: no format '%s' (it has text, json)"), value);
  return GW_CLI_PARSE_ON;
}

static int cmd_try(int argc, char **argv) {
  struct gw_try_opts o = {.rounds = GW_TRY_ROUNDS, .seconds = GW_TRY_SECONDS};
  const struct gw_cli_option options[] = {
      {"fix", required_argument, 'x', GW_CLI_OWN, &o, .take = take_fix},
      {"from", required_argument, 'F', GW_CLI_STRING, &o.from},
      {"rounds", required_argument, 'r', GW_CLI_INT, &o.rounds, N_("--rounds wants a count from 1 to 100, got '%s'"), 1,
       100},
      {"seconds", required_argument, 's', GW_CLI_SECONDS, &o.seconds,
       N_("--seconds wants a positive number, got '%s'")},
      {"max-seconds", required_argument, 't', GW_CLI_SECONDS, &o.max_seconds,
       N_("--max-seconds wants a positive number, got '%s'")},
      {"keep", required_argument, 'k', GW_CLI_STRING, &o.keep_dir},
      {"format", required_argument, 'f', GW_CLI_OWN, &o.json, .take = take_try_format},
      {"quiet", no_argument, 'q', GW_CLI_FLAG, &o.quiet},
      {"nvml-lib", required_argument, 'N', GW_CLI_STRING, &o.nvml_lib},
      GW_CLI_HELP_OPTION,
  };
  int rc = GW_CLI_PARSE(argc, argv, "+x:r:s:t:k:f:qh", options, try_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  if (o.from && optind < argc)
    return gw_cli_usage_error(try_usage(), _("give either --from RUN.db or a command after --, not both"));
  if (!o.from && optind >= argc)
    return gw_cli_usage_error(try_usage(), _("no command given after -- (or --from RUN.db)"));
  if (!o.from)
    o.argv = argv + optind;
  return gw_try_run(&o, stdout);
}

int gw_cmd_experiment(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(experiment_usage(), argc < 2 ? stderr : stdout);
    return argc < 2 ? GPUWHY_EXIT_USAGE : GPUWHY_EXIT_OK;
  }
  if (strcmp(argv[1], "try") == 0)
    return cmd_try(argc - 1, argv + 1);
  if (strcmp(argv[1], "fixed-batch") != 0)
    return gw_cli_usage_error(experiment_usage(), _("unknown experiment '%s' (there are fixed-batch and try)"),
                              argv[1]);
  struct gw_fixed_batch_opts o = {.batches = 8, .seconds = GW_FIXED_BATCH_SECONDS};
  const struct gw_cli_option options[] = {
      {"batches", required_argument, 'k', GW_CLI_INT, &o.batches,
       N_("--batches wants a count from 1 to 100000, got '%s'"), 1, 100000},
      {"seconds", required_argument, 's', GW_CLI_SECONDS, &o.seconds,
       N_("--seconds wants a positive number, got '%s'")},
      {"max-seconds", required_argument, 't', GW_CLI_SECONDS, &o.max_seconds,
       N_("--max-seconds wants a positive number, got '%s'")},
      {"quiet", no_argument, 'q', GW_CLI_FLAG, &o.quiet},
      {"nvml-lib", required_argument, 'N', GW_CLI_STRING, &o.nvml_lib},
      GW_CLI_HELP_OPTION,
  };
  int rc = GW_CLI_PARSE(argc - 1, argv + 1, "+k:s:t:qh", options, experiment_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  if (optind + 1 >= argc)
    return gw_cli_usage_error(experiment_usage(), _("no command given after --"));
  o.argv = argv + 1 + optind;
  return gw_fixed_batch_run(&o, stdout);
}
