/* gpuwhy: why is the GPU under-used, and did the fix work. The subcommand
 * table; each command lives in its own cmd_<name>.c. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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
  fputs(_("usage: gpuwhy COMMAND [ARGS]   (gpuwhy help COMMAND, or gpuwhy COMMAND --help, for details)\n"
          "       gpuwhy --version\n"
          "\n"
          "Say why the GPUs of a training job are under-used, and whether a fix worked.\n"
          "\n"
          "commands:\n"),
        out);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(out, "  %-10s  %s\n", commands[i].name, _(commands[i].summary));
  fputs(_("\n"
          "options:\n"
          "  -h, --help     this help (gpuwhy help COMMAND: that command's)\n"
          "  -V, --version  the version\n"
          "\n"
          "Options may come before or after file names; -- ends the options (a file named\n"
          "like an option goes after it). Text output is coloured on a terminal (--color=\n"
          "auto|always|never; NO_COLOR or TERM=dumb turn auto off) and wrapped at its width\n"
          "(COLUMNS wins when set). -o FILE.json, .md, .html or .txt picks the format when\n"
          "--format is not given; a name ending in .gz is written gzip-compressed.\n"
          "\n"
          "exit status: 0 ok, 1 findings over a threshold (where asked: baseline check,\n"
          "check), 2 usage error, 3 input error. record, sweep and experiment start a\n"
          "command; record exits with that command's status (128+N when signal N ended\n"
          "it), or 125 when gpuwhy itself failed, 126 when the command could not be run,\n"
          "127 when it was not found, as timeout(1) and env(1) do.\n"),
        out);
}

static const struct command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (strcmp(name, commands[i].name) == 0)
      return &commands[i];
  return NULL;
}

static int unknown_command(const char *name) {
  fprintf(stderr, _("gpuwhy: unknown command '%s'\n"), name);
  fputs(_("Try 'gpuwhy --help' for the list of commands.\n"), stderr);
  return GPUWHY_EXIT_USAGE;
}

int main(int argc, char **argv) {
  gw_i18n_init();
  if (argc < 2) {
    usage(stderr);
    return GPUWHY_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0 || strcmp(first, "version") == 0)
    return gw_cli_version();
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0) {
    if (argc > 2 && strcmp(first, "help") == 0) { /* gpuwhy help CMD: CMD --help */
      const struct command *c = find_command(argv[2]);
      if (!c)
        return unknown_command(argv[2]);
      gw_cli_set_command(c->name);
      char *help_argv[] = {argv[2], "--help", NULL};
      return c->run(2, help_argv);
    }
    usage(stdout);
    return GPUWHY_EXIT_OK;
  }
  const struct command *c = find_command(first);
  if (!c)
    return unknown_command(first);
  gw_cli_set_command(c->name);
#ifdef __GLIBC__
  /* A long recording's series grow by doubling and their plain arrays are freed once packed (the report's
   * loader): glibc would raise its mmap threshold to each freed size and serve the next such arrays from the
   * heap, which it cannot give back (185 MB more at the peak of a day of 8 GPUs at 10 Hz). Its default
   * threshold, fixed, keeps large arrays mapped and returned when freed. Not for the samplers that run for
   * hours (record, watch, serve): there glibc's own adaptation spares them a map and unmap per large buffer. */
  if (strcmp(c->name, "record") != 0 && strcmp(c->name, "watch") != 0 && strcmp(c->name, "serve") != 0)
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  /* gpuwhy CMD --version, for the commands whose parsers do not see it */
  if (argc == 3 && (strcmp(argv[2], "--version") == 0 || strcmp(argv[2], "-V") == 0))
    return gw_cli_version();
  return c->run(argc - 1, argv + 1);
}
