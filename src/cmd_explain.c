/* gpuwhy explain [CLASS]: the quick reference of the bottleneck classes. */
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void usage(void) {
  fputs(_("usage: gpuwhy explain [CLASS]\n\nPrint the signals, the way to confirm and the fixes of the "
          "bottleneck classes,\nor of one:"),
        stdout);
  for (int i = 0; gw_class_id_at(i); i++)
    printf("%s %s", i ? "," : "", gw_class_id_at(i));
  fputs(_(".\nText on a terminal is wrapped at its width (COLUMNS, when set, wins).\n"
          "\n"
          "  -h, --help     this help\n"
          "  -V, --version  the version\n"),
        stdout);
}

int gw_cmd_explain(int argc, char **argv) {
  static const struct option longopts[] = {GW_CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
  gw_i18n_init();
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
    switch (c) {
    case 'h':
      usage();
      return GPUWHY_EXIT_OK;
    case 'V':
      return gw_cli_version();
    default:
      return gw_cli_option_error(c, argc, argv);
    }
  }
  if (argc - optind > 1)
    return gw_cli_usage_error(NULL, _("one class at a time ('%s' is extra)"), argv[optind + 1]);
  const char *class_id = optind < argc ? argv[optind] : NULL;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return GPUWHY_EXIT_INPUT;
  int found = gw_explain(mem, class_id) == 0;
  fclose(mem);
  if (found)
    gw_text_wrap(stdout, text, len, gw_term_width_cols(STDOUT_FILENO));
  free(text);
  if (!found)
    return gw_cli_usage_error(NULL, _("unknown class '%s' (gpuwhy explain lists them)"), class_id);
  return GPUWHY_EXIT_OK;
}
