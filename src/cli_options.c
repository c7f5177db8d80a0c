#include "cli_options.h"

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/report.h>
#include <gpuwhy/term.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static const struct gw_cli_option *find_option(const struct gw_cli_option *options, size_t n, int key) {
  for (size_t i = 0; i < n; i++)
    if (options[i].key == key)
      return &options[i];
  return NULL;
}

/* The usage error of a bad value. The message is one of the command's own
 * (marked with N_() in its table, c-format checked by xgettext and msgfmt
 * --check), so the format is not a literal here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int bad_value(const struct gw_cli_option *o, const char *what, const char *more) {
  return gw_cli_usage_error(NULL, _(o->error), what, more);
}
#pragma GCC diagnostic pop

/* Does what o says with value; GW_CLI_PARSE_ON or the exit status. */
static int take(const struct gw_cli_option *o, const char *value, const char *word, const char *usage) {
  switch (o->action) {
  case GW_CLI_HELP:
    fputs(usage, stdout);
    return GPUWHY_EXIT_OK;
  case GW_CLI_VERSION:
    return gw_cli_version();
  case GW_CLI_FLAG:
    *(int *)o->target = 1;
    break;
  case GW_CLI_NONEMPTY:
  case GW_CLI_APPEND:
    if (!value[0])
      return bad_value(o, word, NULL);
    if (o->action == GW_CLI_APPEND) {
      ((const char **)o->target)[*o->count] = value;
      break;
    }
    /* fall through */
  case GW_CLI_STRING:
    *(const char **)o->target = value;
    break;
  case GW_CLI_INT:
    if (gw_cli_parse_int(value, o->min, o->max, o->target) != 0)
      return bad_value(o, value, NULL);
    break;
  case GW_CLI_SECONDS:
    if (gw_cli_parse_seconds(value, o->target) != 0)
      return bad_value(o, value, NULL);
    break;
  case GW_CLI_FORMAT: {
    char have[64];
    if (gw_format_pick(o->formats, value, o->target, have, sizeof have) != 0)
      return bad_value(o, value, have);
    break;
  }
  case GW_CLI_COLOR:
    if (gw_cli_parse_color(value, o->target) != 0)
      return GPUWHY_EXIT_USAGE;
    break;
  case GW_CLI_OWN:
    return o->take(o->target, value);
  }
  return GW_CLI_PARSE_ON;
}

int gw_cli_parse(int argc, char **argv, const char *optstring, const struct gw_cli_option *options, size_t noptions,
                 const char *usage) {
  struct option *longopts = calloc(noptions + 1, sizeof *longopts);
  if (!longopts)
    return GPUWHY_EXIT_INPUT;
  for (size_t i = 0; i < noptions; i++)
    longopts[i] = (struct option){options[i].name, options[i].has_arg, NULL, options[i].key};
  /* without ':' getopt has printed what was wrong */
  int getopt_speaks = optstring[optstring[0] == '+'] != ':';
  int rc = GW_CLI_PARSE_ON, c;
  optind = 1;
  while (rc == GW_CLI_PARSE_ON && (c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
    const struct gw_cli_option *o = find_option(options, noptions, c);
    if (!o)
      rc = getopt_speaks ? gw_cli_usage_error(NULL, NULL) : gw_cli_option_error(c, argc, argv);
    else if ((rc = take(o, optarg, argv[optind - 1], usage)) == GW_CLI_PARSE_ON && o->count)
      ++*o->count;
  }
  free(longopts);
  return rc;
}

const char *gw_cli_one_operand(int argc, char **argv, const char **operand) {
  if (optind < argc)
    *operand = argv[optind];
  return argc - optind > 1 ? argv[optind + 1] : NULL;
}
