/* Helpers shared by the gpuwhy subcommands. */
#ifndef GW_CLI_H
#define GW_CLI_H

/* Print "gpuwhy: <message>" and the usage to stderr; returns GPUWHY_EXIT_USAGE. */
int gw_cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whole-token integer in [min, max]; 0 on success. */
int gw_cli_parse_int(const char *s, int min, int max, int *out);
/* Positive seconds (fractions allowed); 0 on success. */
int gw_cli_parse_seconds(const char *s, double *out);

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
