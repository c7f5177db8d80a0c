/* gpuwhy: why is the GPU under-used, and did the fix work. The subcommand
 * table; each command lives in its own cmd_<name>.c. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct command commands[] = {
    {"record", gw_cmd_record, N_("run a command and record GPU, CPU, disk and kernel-log activity")},
    {"watch", gw_cmd_watch, N_("live view: SM activity beside GPU-Util, power, clocks, CPU, disks")},
    {"report", gw_cmd_report, N_("where each GPU's time went and why, with evidence and fixes")},
    {"import", gw_cmd_import, N_("turn a torch.profiler trace, nsys SQLite export or nvidia-smi log into a recording")},
    {"explain", gw_cmd_explain, N_("the six bottleneck classes: signals, how to confirm, fixes")},
    {"export", gw_cmd_export, N_("a recording as a Perfetto / Chrome trace (JSON)")},
    {"serve", gw_cmd_serve, N_("Prometheus exporter: GPU metrics and a live diagnosis on /metrics")},
    {"check", gw_cmd_check, N_("pre-flight checkup of driver, GPUs, kernel log and host")},
    {"compare", gw_cmd_compare, N_("did a change help: runs side by side with intervals and what changed")},
    {"baseline", gw_cmd_baseline, N_("save a run's summary; check later runs against it (exit 1 on regression)")},
    {"sweep", gw_cmd_sweep, N_("run a command over parameter values; where throughput stops rising")},
    {"experiment", gw_cmd_experiment,
     N_("fixed-batch: is the job input-bound? try: each suggested fix applied and measured")},
};

static void usage(FILE *out) {
  fputs(_("usage: gpuwhy COMMAND [ARGS]   (gpuwhy COMMAND --help for details)\n\ncommands:\n"), out);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(out, "  %-9s %s\n", commands[i].name, _(commands[i].summary));
  fputs(_("\nexit status: 0 ok, 1 findings over a threshold (where asked), 2 usage, 3 input error;\n"
          "record passes the recorded command's own status through.\n"),
        out);
}

int main(int argc, char **argv) {
  gw_i18n_init();
  if (argc < 2) {
    usage(stderr);
    return GPUWHY_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("gpuwhy %s\n", gw_version());
    return GPUWHY_EXIT_OK;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return GPUWHY_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, _("gpuwhy: unknown command '%s'\n\n"), argv[1]);
  usage(stderr);
  return GPUWHY_EXIT_USAGE;
}
