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
#include "cli_options.h"

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

/* --help: the class list is known only at run time */
static int take_help(void *unused, const char *value) {
  (void)unused;
  (void)value;
  usage();
  return GPUWHY_EXIT_OK;
}

int gw_cmd_explain(int argc, char **argv) {
  const struct gw_cli_option options[] = {
      {"version", no_argument, GW_CLI_OPT_VERSION, GW_CLI_VERSION},
      {"help", no_argument, 'h', GW_CLI_OWN, NULL, .take = take_help},
  };
  gw_i18n_init();
  int rc = GW_CLI_PARSE(argc, argv, ":hV", options, NULL);
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  const char *class_id = NULL, *extra = gw_cli_one_operand(argc, argv, &class_id);
  if (extra)
    return gw_cli_usage_error(NULL, _("one class at a time ('%s' is extra)"), extra);
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
