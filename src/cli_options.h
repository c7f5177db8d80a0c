/* One option parser for the gpuwhy subcommands: each command lists its
 * options once, with what each does to its value, and the parser runs
 * getopt_long, checks the values and answers --help, --version and the
 * usage errors the same way in every command. */
#ifndef GW_CLI_OPTIONS_H
#define GW_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

/* What the parser does with an option's value. */
enum gw_cli_action {
  GW_CLI_HELP,     /* print the parser's usage on stdout; the command ends with 0 */
  GW_CLI_VERSION,  /* print the version; the command ends with 0 */
  GW_CLI_FLAG,     /* *(int *)target = 1 */
  GW_CLI_STRING,   /* *(const char **)target = the value (NULL: an optional one left out) */
  GW_CLI_NONEMPTY, /* the same; an empty value is the usage error `error` (its %s: the option as written) */
  GW_CLI_APPEND,   /* ((const char **)target)[*count] = the value, non-empty as for GW_CLI_NONEMPTY */
  GW_CLI_INT,      /* *(int *)target = a whole number in [min, max], else `error` (its %s: the value) */
  GW_CLI_SECONDS,  /* *(double *)target = a positive number of seconds, else `error` (its %s: the value) */
  GW_CLI_FORMAT,   /* *(enum gw_report_format *)target = one of formats, else `error` (the value, the choice) */
  GW_CLI_COLOR,    /* *(enum gw_color_mode *)target = --color[=WHEN] */
  GW_CLI_OWN,      /* the command's own code: take(target, the value) */
};

struct gw_cli_option {
  const char *name; /* the long name */
  int has_arg;      /* no_argument, required_argument or optional_argument */
  int key;          /* what getopt_long returns: the short letter, or a code of a long-only option */
  enum gw_cli_action action;
  void *target;
  const char *error; /* N_() message for a bad value, translated when printed */
  int min, max;      /* GW_CLI_INT's range */
  unsigned formats;  /* GW_CLI_FORMAT's choice, GW_FORMAT_BIT()s */
  int *count;        /* when set: one more each time the option is taken (GW_CLI_APPEND: the next slot) */
  /* GW_CLI_OWN: GW_CLI_PARSE_ON to go on, else the exit status. */
  int (*take)(void *target, const char *value);
};

/* The keys of the options many commands share. */
#define GW_CLI_OPT_VERSION 'V'
#define GW_CLI_OPT_COLOR 2001

/* --help and --version, last in most commands' tables. */
#define GW_CLI_HELP_OPTION                                                                                             \
  { "help", no_argument, 'h', GW_CLI_HELP, NULL, NULL, 0, 0, 0, NULL, NULL }
#define GW_CLI_HELP_VERSION_OPTIONS                                                                                    \
  {"version", no_argument, GW_CLI_OPT_VERSION, GW_CLI_VERSION, NULL, NULL, 0, 0, 0, NULL, NULL}, GW_CLI_HELP_OPTION
/* --color[=WHEN] and its British spelling. */
#define GW_CLI_COLOR_OPTIONS(mode)                                                                                     \
  {"color", optional_argument, GW_CLI_OPT_COLOR, GW_CLI_COLOR, (mode), NULL, 0, 0, 0, NULL, NULL}, {                   \
    "colour", optional_argument, GW_CLI_OPT_COLOR, GW_CLI_COLOR, (mode), NULL, 0, 0, 0, NULL, NULL                     \
  }

/* GW_CLI_PARSE_ON: the options were taken, optind is at the first operand. */
#define GW_CLI_PARSE_ON (-1)

/* Takes the options of argv (from argv[1]) in order; the first bad one, or
 * --help (which prints usage, translated) or --version, ends the command.
 * optstring is getopt's: a leading "+" stops at the first operand; ":" after
 * it lets gw_cli_option_error name an unknown option or a missing value,
 * without it getopt says so itself and only the hint to --help follows.
 * Returns GW_CLI_PARSE_ON, or the exit status the command ends with. */
int gw_cli_parse(int argc, char **argv, const char *optstring, const struct gw_cli_option *options, size_t noptions,
                 const char *usage);
/* gw_cli_parse with a table whose length the compiler knows. */
#define GW_CLI_PARSE(argc, argv, optstring, options, usage)                                                            \
  gw_cli_parse((argc), (argv), (optstring), (options), sizeof(options) / sizeof *(options), (usage))

/* For a command that takes at most one operand after its options (from
 * getopt's optind): *operand gets it, and keeps its value when there is none.
 * Returns the second operand when there is one (the caller's usage error names
 * it), else NULL. */
const char *gw_cli_one_operand(int argc, char **argv, const char **operand);

#endif
