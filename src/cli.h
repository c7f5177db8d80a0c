/* Helpers shared by the gpuwhy subcommands, so each behaves like the command
 * line tools its users know (getopt_long, --help, --version, one-line errors). */
#ifndef GW_CLI_H
#define GW_CLI_H

#include <getopt.h>
#include <gpuwhy/report.h>
#include <gpuwhy/term.h>

/* The subcommand being run ("report"), set once by main for messages. */
void gw_cli_set_command(const char *name);
const char *gw_cli_command(void);

/* A usage error: "gpuwhy CMD: <message>" and "Try 'gpuwhy CMD --help' for
 * more." on stderr, never the whole help (it would scroll the error away).
 * fmt NULL: getopt printed the message already; only the hint follows. usage
 * is kept for the callers' sake and not printed. Returns GPUWHY_EXIT_USAGE. */
int gw_cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The error for getopt_long's '?' (unknown option) or ':' (missing value),
 * with an optstring starting ":" (or "+:") so getopt prints nothing itself:
 * the option as the user wrote it. Returns GPUWHY_EXIT_USAGE. */
int gw_cli_option_error(int c, int argc, char **argv);
/* Print "gpuwhy VERSION" on stdout; returns GPUWHY_EXIT_OK. */
int gw_cli_version(void);

/* Whole-token integer in [min, max]; 0 on success. */
int gw_cli_parse_int(const char *s, int min, int max, int *out);
/* Positive seconds (fractions allowed); 0 on success. */
int gw_cli_parse_seconds(const char *s, double *out);

/* --color[=WHEN] (NULL: --color alone, always): 0 with *mode set, else the
 * usage error's status. */
int gw_cli_parse_color(const char *when, enum gw_color_mode *mode);
/* The format an output path names by its extension (.json, .md, .html,
 * .txt, and those with .gz after them): 0 with *format set when it is one of
 * have, -1 when the extension names none. */
int gw_cli_format_from_path(const char *path, unsigned have, enum gw_report_format *format);
/* 1 when path ends in ".gz": the output is written gzip-compressed. */
int gw_cli_path_is_gz(const char *path);
/* Copy what was written to tmp (rewound) to path, gzip-compressed when path
 * ends in .gz. 0 on success; -1 with errno. */
int gw_cli_write_output(FILE *tmp, const char *path);

/* The subcommands, one file each. */
int gw_cmd_record(int argc, char **argv);
int gw_cmd_watch(int argc, char **argv);
int gw_cmd_report(int argc, char **argv);
int gw_cmd_explain(int argc, char **argv);
int gw_cmd_import(int argc, char **argv);
int gw_cmd_export(int argc, char **argv);
int gw_cmd_serve(int argc, char **argv);
int gw_cmd_check(int argc, char **argv);
int gw_cmd_compare(int argc, char **argv);
int gw_cmd_baseline(int argc, char **argv);
int gw_cmd_sweep(int argc, char **argv);
int gw_cmd_experiment(int argc, char **argv);

#endif
