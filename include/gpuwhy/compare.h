/* libgpuwhy public API for `gpuwhy compare`, `gpuwhy baseline` and
 * `gpuwhy sweep`: did a change help, by how much, and with what certainty.
 * Method and output schemas: docs/compare.md. */
#ifndef GPUWHY_COMPARE_H
#define GPUWHY_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <gpuwhy/report.h>

struct gw_compare_opts {
  enum gw_report_format format;
  int color;                      /* text only: ANSI colour */
  const char *const *ignore_args; /* option names whose differences are not changes (besides the built-in ones) */
  int nignore;
};

/* The formats of compare, baseline check and list, and sweep (GW_FORMAT_BIT set). */
unsigned gw_compare_formats(void);
unsigned gw_baseline_formats(void);
unsigned gw_sweep_formats(void);

/* Compare runs in order: each against the one before it. paths are
 * recordings or saved baseline files. Returns 0, 2 (GPUWHY_EXIT_USAGE) for a
 * format compare does not render, or 3 (GPUWHY_EXIT_INPUT), with the reason
 * in errbuf. */
int gw_compare_files(const char *const *paths, int n, const struct gw_compare_opts *opts, FILE *out, char *errbuf,
                     size_t errcap);

/* Folder of saved baselines: $GPUWHY_HOME/baselines, else
 * $HOME/.local/share/gpuwhy/baselines. Returns 0, or -1 with errbuf set. */
int gw_baseline_dir(char *buf, size_t cap, char *errbuf, size_t errcap);
/* Save a summary of the recording at path as baseline name (letters, digits,
 * '.', '_' and '-'). A line saying where goes to out. Returns 0, 2 for a bad
 * name, 3 for bad input or a write failure. */
int gw_baseline_save(const char *name, const char *path, FILE *out, char *errbuf, size_t errcap);
/* Check the recording at path against baseline name. Returns 0 when it holds,
 * 1 (GPUWHY_EXIT_FINDINGS) on a regression beyond tolerance_pct (throughput
 * down or median step time up by more than that, the interval excluding no
 * change), 2 for a bad name, 3 for bad input. */
int gw_baseline_check(const char *name, const char *path, double tolerance_pct, const struct gw_compare_opts *opts,
                      FILE *out, char *errbuf, size_t errcap);
/* List saved baselines. Returns 0, or 3 when the folder cannot be read. */
int gw_baseline_list(const struct gw_compare_opts *opts, FILE *out, char *errbuf, size_t errcap);

struct gw_sweep_opts {
  enum gw_report_format format;
  int color;
  const char *param;  /* the swept parameter's name, or NULL: found from the recordings */
  int param_is_batch; /* the value is the batch size: samples per step = value */
};

/* The sweep table from existing recordings. values: the parameter's value
 * for each path, or NULL to read them from the recordings (meta sweep_value,
 * the option named param on the command line, or the one option whose value
 * differs between the runs). Returns 0 or 3. */
int gw_sweep_table(const char *const *paths, const char *const *values, int n, const struct gw_sweep_opts *opts,
                   FILE *out, char *errbuf, size_t errcap);

struct gw_sweep_run_opts {
  const char *param;         /* NAME: {NAME} in argv is replaced by each value */
  const char *const *values; /* nvalues values */
  int nvalues;
  const char *out_dir;  /* recordings go to out_dir/sweep_NAME_VALUE.db */
  int interval_ms;      /* sampling period of each recording */
  char *const *argv;    /* the command, NULL-terminated */
  int quiet;            /* no recorder status lines */
  const char *nvml_lib; /* NULL: default */
};

/* Run the command once per value under gpuwhy record, then print the sweep
 * table. Returns 0, 2 for a usage problem ({NAME} unused), 3 when a
 * recording could not be made, or 128+N when interrupted by signal N. */
int gw_sweep_run(const struct gw_sweep_run_opts *run, const struct gw_sweep_opts *opts, FILE *out, char *errbuf,
                 size_t errcap);

#endif
