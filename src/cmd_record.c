/* gpuwhy record: argument parsing; the work is in lib/record/recorder.c. */
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/record.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_options.h"

/* The usage text, translated when printed. */
static const char *record_usage(void) {
  return _("usage: gpuwhy record [-o FILE] [--interval MS] [--duration S] [--trace[=sampled|full]]\n"
           "                     (--pid PID | [--] CMD [ARGS...])\n"
           "\n"
           "Runs CMD (or follows process PID) and records GPU, CPU, disk and kernel-log\n"
           "activity into one SQLite file until it ends.\n"
           "\n"
           "  -o, --output FILE    recording to write (default gpuwhy-DATE-TIME.db); a file\n"
           "                       there that is not a gpuwhy recording is not replaced\n"
           "      --force          replace FILE whatever it is; a command that cannot be\n"
           "                       started leaves no FILE\n"
           "  -i, --interval MS    GPU sampling period in milliseconds (default 100); the\n"
           "                       host (CPU, processes, disks) is read once a second\n"
           "  -g, --gpm-interval MS  window of the SM, tensor and DRAM activity counters\n"
           "                       (default 1000; each window costs ~0.5 ms of CPU)\n"
           "  -d, --duration S     stop recording after S seconds (the command runs on)\n"
           "  -p, --pid PID        follow a running process and its children\n"
           "  -t, --trace[=MODE]   also trace CUDA kernels with the injected tracer:\n"
           "                       sampled (default, low overhead) or full. On a GPU\n"
           "                       without GPM a command is traced in sampled windows\n"
           "                       unless --no-trace is given: GPU-Util alone cannot\n"
           "                       tell a small batch from real work\n"
           "      --no-trace       never trace, not even on a GPU without GPM\n"
           "  -q, --quiet          no status lines on stderr\n"
           "      --no-gpm         never read GPM, as on a GPU without it (to compare SM\n"
           "                       activity from the tracer with GPM on the same program;\n"
           "                       the command is then traced in sampled windows too)\n"
           "      --dcgm[=ADDR]    GPUs without GPM (A100, V100, T4, L4): SM activity,\n"
           "                       occupancy, tensor and DRAM activity from the DCGM host\n"
           "                       engine at ADDR (HOST[:PORT] or unix:PATH; default\n"
           "                       127.0.0.1:5555); without one, recording goes on as\n"
           "                       before. Built on DCGM's documented API, untested on\n"
           "                       real DCGM (docs/RECORDING.md)\n"
           "      --pm-sampling    SM activity from CUPTI PM sampling inside the program\n"
           "                       (GPUs without GPM), every 100 ms. Alone it opens no\n"
           "                       kernel window (no cost measured on the H200); with\n"
           "                       --trace, CUPTI stays in the program between windows,\n"
           "                       so launch-bound steps run slower (tracer/README.md)\n"
           "      --no-nccl-log    leave NCCL_DEBUG alone (by default NCCL's INFO lines go\n"
           "                       to a file and into the recording, for the transports)\n"
           "      --no-python-hook  leave PYTHONPATH alone (by default a start-up hook in\n"
           "                       every Python process of CMD, torchrun ranks included,\n"
           "                       records each optimizer step, its DataLoader wait and\n"
           "                       batch size into the step table; the program's output\n"
           "                       and behaviour do not change)\n"
           "      --thread-hz N    sample where each thread of the job is (running, or the\n"
           "                       system call it waits in) N times a second (default 20;\n"
           "                       0 turns it off); other threads than the main, autograd,\n"
           "                       loader, pin-memory and NCCL ones at a fifth of that\n"
           "      --py-sample-hz N  the hook samples the training thread's Python stack N\n"
           "                       times a second (default 25, 0 off): what it waited\n"
           "                       for and the user's line it was on\n"
           "      --step-range NAME  with --trace: the NVTX ranges named NAME (recorded\n"
           "                       through the tracer's NVTX injection, e.g. from\n"
           "                       torch.cuda.nvtx.range_push) are the steps of every\n"
           "                       process the Python hook gave no steps\n"
           "      --step-range-replaces  the ranges replace the Python hook's steps too\n"
           "      --root DIR       read /proc, /sys and /dev/kmsg below DIR (tests)\n"
           "      --nvml-lib PATH  NVML library to load (default libnvidia-ml.so.1)\n"
           "      --kmsg PATH      kernel log to read, a path ending in /dev/kmsg\n"
           "  -h, --help           this help\n"
           "  -V, --version        the version\n"
           "\n"
           "The options come before CMD: the first argument that is not an option, or the\n"
           "one after --, starts it.\n"
           "\n"
           "Exit status: CMD's own (128+N when signal N ended it; 0 with --pid), else, as\n"
           "timeout(1) does, 125 when gpuwhy could not record (the output cannot be\n"
           "written, a source failed, PID is gone), 126 when CMD was found but could not\n"
           "be run, 127 when CMD was not found; 2 for a usage error (nothing was run).\n");
}

/* --py-sample-hz N: 0 is kept as -1, off (0 in the options is the default). */
static int take_py_sample_hz(void *opts, const char *value) {
  struct gw_record_opts *o = opts;
  int hz;
  /* above 1000 Hz the sampler's own time would rival a short step's */
  if (gw_cli_parse_int(value, 0, 1000, &hz))
    return gw_cli_usage_error(record_usage(), _("--py-sample-hz wants samples per second between 0 and 1000, got '%s'"),
                              value);
  o->py_sample_hz = hz > 0 ? hz : -1;
  return GW_CLI_PARSE_ON;
}

/* --dcgm[=ADDR] */
static int take_dcgm(void *opts, const char *value) {
  struct gw_record_opts *o = opts;
  o->dcgm = 1;
  o->dcgm_address = value;
  if (value && !*value)
    return gw_cli_usage_error(record_usage(), _("--dcgm= wants an address, HOST[:PORT] or unix:PATH"));
  return GW_CLI_PARSE_ON;
}

/* --trace[=sampled|full] */
static int take_trace(void *opts, const char *value) {
  struct gw_record_opts *o = opts;
  if (!value || strcmp(value, "sampled") == 0)
    o->trace = GW_TRACE_SAMPLED;
  else if (strcmp(value, "full") == 0)
    o->trace = GW_TRACE_FULL;
  else
    return gw_cli_usage_error(record_usage(), _("--trace takes sampled or full, got '%s'"), value);
  return GW_CLI_PARSE_ON;
}

int gw_cmd_record(int argc, char **argv) {
  struct gw_record_opts o = {.interval_ms = 100, .gpm_interval_ms = 1000, .thread_hz = 20};
  const struct gw_cli_option options[] = {
      {"output", required_argument, 'o', GW_CLI_STRING, &o.out_path},
      {"interval", required_argument, 'i', GW_CLI_INT, &o.interval_ms,
       N_("--interval wants milliseconds between 10 and 600000, got '%s'"), 10, 600000},
      {"duration", required_argument, 'd', GW_CLI_SECONDS, &o.duration_s,
       N_("--duration wants a positive number of seconds, got '%s'")},
      {"pid", required_argument, 'p', GW_CLI_INT, &o.pid, N_("--pid wants a process id, got '%s'"), 1, 1 << 30},
      {"trace", optional_argument, 't', GW_CLI_OWN, &o, .take = take_trace},
      {"quiet", no_argument, 'q', GW_CLI_FLAG, &o.quiet},
      {"root", required_argument, 'R', GW_CLI_STRING, &o.root},
      {"nvml-lib", required_argument, 'N', GW_CLI_STRING, &o.nvml_lib},
      {"kmsg", required_argument, 'K', GW_CLI_STRING, &o.kmsg_path},
      {"gpm-interval", required_argument, 'g', GW_CLI_INT, &o.gpm_interval_ms,
       N_("--gpm-interval wants milliseconds between 100 and 600000, got '%s'"), 100, 600000},
      {"no-nccl-log", no_argument, 'L', GW_CLI_FLAG, &o.no_nccl_log},
      {"no-gpm", no_argument, 'G', GW_CLI_FLAG, &o.no_gpm},
      {"no-trace", no_argument, 'T', GW_CLI_FLAG, &o.no_trace},
      {"pm-sampling", no_argument, 'P', GW_CLI_FLAG, &o.pm_sampling},
      {"no-python-hook", no_argument, 'Y', GW_CLI_FLAG, &o.no_python_hook},
      {"py-sample-hz", required_argument, 'H', GW_CLI_OWN, &o, .take = take_py_sample_hz},
      {"step-range", required_argument, 'S', GW_CLI_NONEMPTY, &o.step_range,
       N_("--step-range wants the name of the NVTX range that marks a step")},
      {"step-range-replaces", no_argument, 'r', GW_CLI_FLAG, &o.step_range_replaces},
      {"dcgm", optional_argument, 'D', GW_CLI_OWN, &o, .take = take_dcgm},
      {"force", no_argument, 'F', GW_CLI_FLAG, &o.force},
      /* above 1000 Hz the sampler's own time would rival a short step's */
      {"thread-hz", required_argument, 1001 /* long only */, GW_CLI_INT, &o.thread_hz,
       N_("--thread-hz wants samples per second between 0 and 1000, got '%s'"), 0, 1000},
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  int rc = GW_CLI_PARSE(argc, argv, "+:o:i:d:p:t::qg:hV", options, record_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  char default_out[64];
  if (optind < argc)
    o.argv = argv + optind;
  /* PM sampling runs inside the tracer library. Alone, the tracer opens no
   * activity window and samples every 100 ms: on the H200
   * (bench/RESULTS.md, "PM sampling's cost") that cost the transformer step nothing
   * measurable (best-of-N -6.4%, mean -2.2% +- 10.2 over 6 rounds against
   * the program alone). */
  if (o.pm_sampling && o.trace == GW_TRACE_OFF) {
    o.trace = GW_TRACE_SAMPLED;
    o.pm_sampling_only = 1;
  }
  /* With --trace, PM sampling keeps CUPTI in the program between sampled
   * windows, and CUPTI kept there slows every launch: on the H200
   * (bench/RESULTS.md "PM sampling") the transformer step ran 13-25% slower
   * than without the tracer. Said once before the run. */
  if (o.pm_sampling && !o.pm_sampling_only && !o.quiet)
    fprintf(stderr, "%s\n",
            _("gpuwhy record: --pm-sampling keeps CUPTI inside the program for the whole run: expect launch-bound "
              "steps up to about a quarter slower (H200, bench/RESULTS.md); use it for a short recording on a GPU "
              "without GPM"));
  if (o.argv && o.pid)
    return gw_cli_usage_error(record_usage(), _("give either --pid or a command, not both"));
  /* NVTX ranges reach the recording through the tracer library only. */
  if (o.step_range && o.trace == GW_TRACE_OFF)
    return gw_cli_usage_error(record_usage(), _("--step-range needs --trace (sampled or full): the NVTX ranges are "
                                                "recorded by the tracer library"));
  if (o.no_trace && o.trace != GW_TRACE_OFF) /* --pm-sampling and --step-range come with a trace */
    return gw_cli_usage_error(record_usage(), _("--no-trace cannot go with --trace, --pm-sampling or --step-range"));
  if (o.step_range_replaces && !o.step_range)
    return gw_cli_usage_error(record_usage(), _("--step-range-replaces needs --step-range NAME"));
  if (!o.argv && !o.pid)
    return gw_cli_usage_error(record_usage(), _("nothing to record: give a command or --pid PID"));
  if (!o.out_path) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(default_out, sizeof default_out, "gpuwhy-%Y%m%d-%H%M%S.db", &tm);
    o.out_path = default_out;
  }
  char msg[1024];
  int status = gw_record_run(&o, msg, sizeof msg);
  if (msg[0])
    fprintf(stderr, "gpuwhy record: %s\n", msg); /* msg is translated where it is made */
  return status;
}
