/* gpuwhy serve [--listen 127.0.0.1:9464] [--interval MS] [--replay FILE] */
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/serve.h>
#include <stdio.h>

#include "cli.h"
#include "cli_options.h"

/* The usage text, translated when printed. */
static const char *serve_usage(void) {
  return _("usage: gpuwhy serve [--listen HOST:PORT] [--interval MS] [--window S] [--replay FILE]\n"
           "\n"
           "Prometheus exporter. /metrics carries every GPU metric gpuwhy samples (labels gpu,\n"
           "uuid, name), the host's CPU, memory and disks, Xid errors and lost GPUs, and the\n"
           "diagnosis of the last few minutes: the verdict, each class's share of the lost GPU\n"
           "time and the time ledger per GPU. Alert rules and a Grafana dashboard are in deploy/.\n"
           "\n"
           "  -l, --listen HOST:PORT  address to serve on (default 127.0.0.1:9464, this machine only;\n"
           "                          :PORT listens on every interface)\n"
           "  -i, --interval MS       rebuild the page at most this often (default 5000); scrapes in\n"
           "                          between get the same page, so scraping costs little\n"
           "  -s, --sample-interval MS  sampling period (default 500)\n"
           "  -w, --window S          seconds of samples the diagnosis looks at (default 600)\n"
           "  -r, --replay FILE       serve a recording's samples as if live, looping (demos, tests)\n"
           "  -c, --max-connections N open HTTP connections at once (default 16)\n"
           "  -d, --duration S        stop after S seconds (default: run until SIGINT or SIGTERM)\n"
           "  -h, --help              this help\n"
           "  -V, --version           the version\n"
           "\n"
           "Exit status: 0 ok, 2 usage error, 3 cannot listen, sample or read the recording.\n");
}

/* --max-connections N, an unsigned count */
static int take_max_connections(void *max_connections, const char *value) {
  int n;
  if (gw_cli_parse_int(value, 1, 1024, &n))
    return gw_cli_usage_error(serve_usage(), _("--max-connections wants a number from 1 to 1024, got '%s'"), value);
  *(unsigned *)max_connections = (unsigned)n;
  return GW_CLI_PARSE_ON;
}

int gw_cmd_serve(int argc, char **argv) {
  struct gw_serve_opts o = {.listen = "127.0.0.1:9464",
                            .interval_ms = 5000,
                            .sample_interval_ms = 500,
                            .window_s = 600,
                            .max_connections = 16};
  const struct gw_cli_option options[] = {
      {"listen", required_argument, 'l', GW_CLI_STRING, &o.listen},
      {"interval", required_argument, 'i', GW_CLI_INT, &o.interval_ms,
       N_("--interval wants milliseconds between 100 and 3600000, got '%s'"), 100, 3600000},
      {"sample-interval", required_argument, 's', GW_CLI_INT, &o.sample_interval_ms,
       N_("--sample-interval wants milliseconds between 100 and 60000, got '%s'"), 100, 60000},
      {"window", required_argument, 'w', GW_CLI_INT, &o.window_s,
       N_("--window wants seconds between 10 and 86400, got '%s'"), 10, 86400},
      {"replay", required_argument, 'r', GW_CLI_STRING, &o.replay_path},
      {"max-connections", required_argument, 'c', GW_CLI_OWN, &o.max_connections, .take = take_max_connections},
      {"duration", required_argument, 'd', GW_CLI_SECONDS, &o.duration_s,
       N_("--duration wants positive seconds, got '%s'")},
      {"nvml-lib", required_argument, 'N', GW_CLI_STRING, &o.nvml_lib},
      {"root", required_argument, 'R', GW_CLI_STRING, &o.root},
      {"quiet", no_argument, 'q', GW_CLI_FLAG, &o.quiet},
      GW_CLI_HELP_VERSION_OPTIONS};
  int rc = GW_CLI_PARSE(argc, argv, ":l:i:s:w:r:c:d:qhV", options, serve_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  if (optind < argc)
    return gw_cli_usage_error(serve_usage(), _("unexpected argument '%s'"), argv[optind]);
  char msg[1024];
  rc = gw_serve_run(&o, msg, sizeof msg);
  if (msg[0])
    fprintf(stderr, "gpuwhy serve: %s\n", msg); /* msg is translated where it is made */
  return rc;
}
