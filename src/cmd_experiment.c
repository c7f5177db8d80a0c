/* gpuwhy experiment fixed-batch [--batches K] [--seconds S] [--max-seconds T] -- CMD ARGS...
 * The work is in lib/compare/fixed_batch.c. */
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
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
           "steps or a run that never became steady, 3 a run could not be recorded.\n");
}

int gw_cmd_experiment(int argc, char **argv) {
  static const struct option longopts[] = {{"batches", required_argument, NULL, 'k'},
                                           {"seconds", required_argument, NULL, 's'},
                                           {"max-seconds", required_argument, NULL, 't'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"nvml-lib", required_argument, NULL, 'N'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(experiment_usage(), argc < 2 ? stderr : stdout);
    return argc < 2 ? GPUWHY_EXIT_USAGE : GPUWHY_EXIT_OK;
  }
  if (strcmp(argv[1], "fixed-batch") != 0)
    return gw_cli_usage_error(experiment_usage(), _("unknown experiment '%s' (there is fixed-batch)"), argv[1]);
  struct gw_fixed_batch_opts o = {.batches = 8, .seconds = GW_FIXED_BATCH_SECONDS};
  int c;
  optind = 1;
  while ((c = getopt_long(argc - 1, argv + 1, "+k:s:t:qh", longopts, NULL)) != -1) {
    switch (c) {
    case 'k':
      if (gw_cli_parse_int(optarg, 1, 100000, &o.batches))
        return gw_cli_usage_error(experiment_usage(), _("--batches wants a count from 1 to 100000, got '%s'"), optarg);
      break;
    case 's':
      if (gw_cli_parse_seconds(optarg, &o.seconds))
        return gw_cli_usage_error(experiment_usage(), _("--seconds wants a positive number, got '%s'"), optarg);
      break;
    case 't':
      if (gw_cli_parse_seconds(optarg, &o.max_seconds))
        return gw_cli_usage_error(experiment_usage(), _("--max-seconds wants a positive number, got '%s'"), optarg);
      break;
    case 'q':
      o.quiet = 1;
      break;
    case 'N':
      o.nvml_lib = optarg;
      break;
    case 'h':
      fputs(experiment_usage(), stdout);
      return GPUWHY_EXIT_OK;
    default:
      return gw_cli_usage_error(experiment_usage(), NULL);
    }
  }
  if (optind + 1 >= argc)
    return gw_cli_usage_error(experiment_usage(), _("no command given after --"));
  o.argv = argv + 1 + optind;
  return gw_fixed_batch_run(&o, stdout);
}
