/* gpuwhy import TRACE -o FILE: a torch.profiler (Kineto) trace, an Nsight
 * Systems SQLite export or an nvidia-smi log becomes a gpuwhy recording. */
#include <errno.h>
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/import.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"

/* Inputs smaller than this finish before a bar would be worth drawing. */
#define PROGRESS_MIN_BYTES (16u << 20)

static const char *import_usage(void) {
  return _("usage: gpuwhy import [OPTION]... TRACE -o FILE\n"
           "\n"
           "Turn a trace made by another tool into a gpuwhy recording for report "
           "and compare.\n"
           "TRACE is told apart by its content:\n"
           "  torch.profiler / Kineto trace JSON (.json or .json.gz), or a "
           "directory of them, one per rank\n"
           "  Nsight Systems SQLite export (nsys export --type sqlite)\n"
           "  nvidia-smi dmon output, or an nvidia-smi --query-gpu=... --format=csv "
           "log (counters only)\n"
           "\n"
           "  -o, --output FILE  the recording to write (replaced only when the import succeeds)\n"
           "      --interval S   nvidia-smi logs without date/time columns: seconds between\n"
           "                     samples (default 1)\n"
           "      --start T      ... and the first sample's time in seconds since the epoch\n"
           "                     (default: the file's modification time minus the logged span)\n"
           "  -q, --quiet        no progress bar and no summary\n"
           "      --force        replace FILE even when it is not a gpuwhy recording\n"
           "  -h, --help         this help\n"
           "  -V, --version      the version\n"
           "\n"
           "Exit status: 0 ok, 2 usage error, 3 unreadable or malformed input.\n");
}

struct progress {
  int enabled;
  int drawn;
  double last_mono_s;
};

static double now_mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* At most ten redraws a second, on stderr, only for a terminal. */
static void draw_progress(void *ctx, uint64_t done, uint64_t total) {
  struct progress *p = ctx;
  if (!p->enabled || total < PROGRESS_MIN_BYTES)
    return;
  double now = now_mono_s();
  if (p->drawn && now - p->last_mono_s < 0.1)
    return;
  p->last_mono_s = now;
  p->drawn = 1;
  double frac = total ? (double)done / (double)total : 0;
  if (frac > 1)
    frac = 1;
  char bar[31];
  int filled = (int)(frac * 30);
  for (int i = 0; i < 30; i++)
    bar[i] = i < filled ? '#' : '.';
  bar[30] = '\0';
  fputc('\r', stderr);
  fprintf(stderr, _("importing [%s] %3.0f%%  %.0f / %.0f MB"), bar, frac * 100, done / 1e6, total / 1e6);
  fflush(stderr);
}

/* --interval S: seconds between the samples of an nvidia-smi log */
static int take_interval(void *interval_s, const char *value) {
  if (gw_cli_parse_seconds(value, interval_s) != 0)
    return gw_cli_usage_error(NULL, _("%s needs a positive number of seconds, got '%s'"), "--interval", value);
  return GW_CLI_PARSE_ON;
}

/* --start T: the first sample's time, seconds since the epoch */
static int take_start(void *start_ns, const char *value) {
  double v;
  if (gw_cli_parse_seconds(value, &v) != 0)
    return gw_cli_usage_error(NULL, _("%s needs a positive number of seconds, got '%s'"), "--start", value);
  *(int64_t *)start_ns = (int64_t)llround(v * 1e9);
  return GW_CLI_PARSE_ON;
}

static void print_summary(const char *input, const char *output, const struct gw_import_summary *s) {
  /* the format's name is an identifier (kineto, nsys, ...), the same in every language */
  printf(_("imported %s (%s"), input, gw_import_format_name(s->format));
  if (s->files > 1)
    printf(gw_ngettext(", %d file", ", %d files", (unsigned long)s->files), s->files);
  if (s->ranks > 1)
    printf(gw_ngettext(", %d rank", ", %d ranks", (unsigned long)s->ranks), s->ranks);
  printf(_(") into %s:\n"), output);
  if (s->format == GW_IMPORT_SMI_DMON || s->format == GW_IMPORT_SMI_QUERY) {
    printf(gw_ngettext("  %" PRIu64 " GPU samples from %" PRIu64 " log lines, %d GPU; counters only (no kernel "
                       "timeline)\n",
                       "  %" PRIu64 " GPU samples from %" PRIu64 " log lines, %d GPUs; counters only (no kernel "
                       "timeline)\n",
                       (unsigned long)s->gpus),
           s->gpu_samples, s->events, s->gpus);
  } else {
    printf(gw_ngettext("  %" PRIu64 " kernels, %" PRIu64 " copies, %" PRIu64 " memsets, %" PRIu64 " syncs, %" PRIu64
                       " API calls, %" PRIu64 " markers, %" PRIu64 " steps on %d GPU\n",
                       "  %" PRIu64 " kernels, %" PRIu64 " copies, %" PRIu64 " memsets, %" PRIu64 " syncs, %" PRIu64
                       " API calls, %" PRIu64 " markers, %" PRIu64 " steps on %d GPUs\n",
                       (unsigned long)s->gpus),
           s->kernels, s->memcpys, s->memsets, s->syncs, s->api_calls, s->markers, s->steps, s->gpus);
    if (s->events)
      printf(_("  %" PRIu64 " events read, %" PRIu64 " not imported (categories gpuwhy does not use or no times)\n"),
             s->events, s->skipped);
  }
  const char *n = s->notes;
  while (*n) {
    const char *eol = strchr(n, '\n');
    int len = eol ? (int)(eol - n) : (int)strlen(n);
    printf(_("  note: %.*s\n"), len, n);
    n += len + (eol ? 1 : 0);
  }
}

int gw_cmd_import(int argc, char **argv) {
  const char *input = NULL, *output = NULL;
  int quiet = 0;
  struct gw_import_opts opts = {0};
  enum { OPT_INTERVAL = 1000, OPT_START, OPT_FORCE };
  const struct gw_cli_option options[] = {
      {"output", required_argument, 'o', GW_CLI_STRING, &output},
      {"interval", required_argument, OPT_INTERVAL, GW_CLI_OWN, &opts.smi_interval_s, .take = take_interval},
      {"start", required_argument, OPT_START, GW_CLI_OWN, &opts.smi_start_ns, .take = take_start},
      {"quiet", no_argument, 'q', GW_CLI_FLAG, &quiet},
      {"force", no_argument, OPT_FORCE, GW_CLI_FLAG, &opts.force},
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  int rc = GW_CLI_PARSE(argc, argv, ":o:qhV", options, import_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  const char *extra = gw_cli_one_operand(argc, argv, &input);
  if (extra)
    return gw_cli_usage_error(NULL, _("one trace (file or directory of ranks) at a time ('%s' is extra)"), extra);
  if (!input || !output)
    return gw_cli_usage_error(NULL, "%s", !input ? _("which trace?") : _("-o FILE is required"));
  struct progress prog = {.enabled = !quiet && isatty(STDERR_FILENO)};
  opts.progress = draw_progress;
  opts.progress_ctx = &prog;
  struct gw_import_summary sum;
  char err[1024] = "";
  rc = gw_import(input, output, &opts, &sum, err, sizeof err);
  if (prog.drawn)
    fputs("\n", stderr);
  if (rc != GPUWHY_EXIT_OK) {
    fprintf(stderr, "gpuwhy import: %s\n", err); /* err is translated where it is made */
    return rc;
  }
  if (!quiet)
    print_summary(input, output, &sum);
  return GPUWHY_EXIT_OK;
}
