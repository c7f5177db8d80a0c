/* gpuwhy serve [--listen 127.0.0.1:9464] [--interval MS] [--replay FILE] */
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/serve.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int gw_cmd_serve(int argc, char **argv);

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

int gw_cmd_serve(int argc, char **argv) {
  static const struct option longopts[] = {{"listen", required_argument, NULL, 'l'},
                                           {"interval", required_argument, NULL, 'i'},
                                           {"sample-interval", required_argument, NULL, 's'},
                                           {"window", required_argument, NULL, 'w'},
                                           {"replay", required_argument, NULL, 'r'},
                                           {"max-connections", required_argument, NULL, 'c'},
                                           {"duration", required_argument, NULL, 'd'},
                                           {"nvml-lib", required_argument, NULL, 'N'},
                                           {"root", required_argument, NULL, 'R'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           GW_CLI_COMMON_OPTIONS,
                                           {NULL, 0, NULL, 0}};
  struct gw_serve_opts o;
  memset(&o, 0, sizeof o);
  o.listen = "127.0.0.1:9464";
  o.interval_ms = 5000;
  o.sample_interval_ms = 500;
  o.window_s = 600;
  o.max_connections = 16;
  int c, n;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":l:i:s:w:r:c:d:qhV", longopts, NULL)) != -1) {
    switch (c) {
    case 'l':
      o.listen = optarg;
      break;
    case 'i':
      if (gw_cli_parse_int(optarg, 100, 3600000, &o.interval_ms))
        return gw_cli_usage_error(serve_usage(), _("--interval wants milliseconds between 100 and 3600000, got '%s'"),
                                  optarg);
      break;
    case 's':
      if (gw_cli_parse_int(optarg, 100, 60000, &o.sample_interval_ms))
        return gw_cli_usage_error(serve_usage(),
                                  _("--sample-interval wants milliseconds between 100 and 60000, got '%s'"), optarg);
      break;
    case 'w':
      if (gw_cli_parse_int(optarg, 10, 86400, &o.window_s))
        return gw_cli_usage_error(serve_usage(), _("--window wants seconds between 10 and 86400, got '%s'"), optarg);
      break;
    case 'r':
      o.replay_path = optarg;
      break;
    case 'c':
      if (gw_cli_parse_int(optarg, 1, 1024, &n))
        return gw_cli_usage_error(serve_usage(), _("--max-connections wants a number from 1 to 1024, got '%s'"),
                                  optarg);
      o.max_connections = (unsigned)n;
      break;
    case 'd':
      if (gw_cli_parse_seconds(optarg, &o.duration_s))
        return gw_cli_usage_error(serve_usage(), _("--duration wants positive seconds, got '%s'"), optarg);
      break;
    case 'N':
      o.nvml_lib = optarg;
      break;
    case 'R':
      o.root = optarg;
      break;
    case 'q':
      o.quiet = 1;
      break;
    case 'h':
      fputs(serve_usage(), stdout);
      return GPUWHY_EXIT_OK;
    case GW_CLI_OPT_VERSION:
      return gw_cli_version();
    default:
      return gw_cli_option_error(c, argc, argv);
    }
  }
  if (optind < argc)
    return gw_cli_usage_error(serve_usage(), _("unexpected argument '%s'"), argv[optind]);
  char msg[1024];
  int rc = gw_serve_run(&o, msg, sizeof msg);
  if (msg[0])
    fprintf(stderr, "gpuwhy serve: %s\n", msg); /* msg is translated where it is made */
  return rc;
}
