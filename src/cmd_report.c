/* gpuwhy report FILE... [--format text|json|md|html] [-o OUT] */
#include <errno.h>
#include <getopt.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <gpuwhy/import.h>
#include <gpuwhy/record.h>
#include <gpuwhy/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"

static const char *report_usage(void) {
  return _("usage: gpuwhy report [OPTION]... FILE...\n"
           "\n"
           "Explain where each GPU's time went in a recording and which bottleneck classes cost it.\n"
           "Several files (one recording per node of a multi-node job) are reported together.\n"
           "A FILE that is not a recording (a torch.profiler trace, an Nsight Systems SQLite export,\n"
           "an nvidia-smi log, a folder of per-rank traces) is imported first, as gpuwhy import does.\n"
           "Options may come before or after the files; -- ends them (for a file named like one).\n"
           "\n"
           "  -f, --format FMT      text (default), json, md, or html (one self-contained page\n"
           "                        with charts; opens offline)\n"
           "  -o, --output OUT      write the report to OUT instead of standard output; without\n"
           "                        --format, OUT's extension (.json, .md, .html, .txt) names the\n"
           "                        format; OUT ending in .gz is written gzip-compressed\n"
           "      --color[=WHEN]    colour the text: auto (default: standard output is a terminal,\n"
           "                        NO_COLOR unset or empty, TERM not dumb), always or never\n"
           "      --step-range NAME  the NVTX ranges named NAME (recorded with --trace, or in an\n"
           "                        imported trace) are the steps of every process without steps\n"
           "      --step-range-replaces  the ranges replace the steps the Python hook recorded too\n"
           "      --same-job        report several files together even when nothing shows they are\n"
           "                        one job (without it, files recorded at times that do not overlap\n"
           "                        or whose launchers name other jobs are refused)\n"
           "  -h, --help            this help\n"
           "  -V, --version         the version\n"
           "\n"
           "Text on a terminal is wrapped at its width (COLUMNS, when set, wins, also for a pipe);\n"
           "table rows are never broken.\n"
           "\n"
           "Exit status: 0 ok, 2 usage error (also: files that are not one job, or one file\n"
           "given twice), 3 unreadable or damaged input.\n");
}

struct report_output {
  const char *path; /* -o; NULL or "-": standard output */
  enum gw_color_mode color;
};

struct step_range_opts {
  const char *name; /* NULL: the recorded steps as they are */
  int replace;
};

/* One file given twice (by one path, a link or another name of it) would
 * count each GPU twice: 1 (with a message) when that is so. */
static int same_file_twice(const char *const *paths, int npaths) {
  for (int i = 0; i < npaths; i++) {
    struct stat a;
    int a_ok = stat(paths[i], &a) == 0;
    for (int j = i + 1; j < npaths; j++) {
      struct stat b;
      if (strcmp(paths[i], paths[j]) == 0 ||
          (a_ok && stat(paths[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
        fprintf(stderr, _("gpuwhy report: %s and %s are the same file: each GPU would be counted twice\n"), paths[i],
                paths[j]);
        return 1;
      }
    }
  }
  return 0;
}

/* Parse the options into opts, output and paths (argc entries at most).
 * Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct gw_report_opts *opts, struct report_output *output,
                      const char **paths, int *npaths, struct step_range_opts *ranges) {
  enum { OPT_STEP_RANGE = 1000, OPT_STEP_RANGE_REPLACES, OPT_SAME_JOB };
  int format_given = 0;
  const struct gw_cli_option options[] = {
      {"format", required_argument, 'f', GW_CLI_FORMAT, &opts->format, N_("no format '%s' (report has %s)"),
       .formats = gw_report_formats(), .count = &format_given},
      {"output", required_argument, 'o', GW_CLI_NONEMPTY, &output->path, N_("-o needs a file name")},
      {"step-range", required_argument, OPT_STEP_RANGE, GW_CLI_NONEMPTY, &ranges->name,
       N_("--step-range needs the name of the NVTX range that marks a step")},
      {"step-range-replaces", no_argument, OPT_STEP_RANGE_REPLACES, GW_CLI_FLAG, &ranges->replace},
      {"same-job", no_argument, OPT_SAME_JOB, GW_CLI_FLAG, &opts->same_job},
      GW_CLI_COLOR_OPTIONS(&output->color),
      GW_CLI_HELP_VERSION_OPTIONS,
  };
  /* options anywhere: getopt_long permutes the file names to the end */
  int rc = GW_CLI_PARSE(argc, argv, ":f:o:hV", options, report_usage());
  if (rc != GW_CLI_PARSE_ON)
    return rc;
  for (int i = optind; i < argc; i++)
    paths[(*npaths)++] = argv[i];
  if (*npaths == 0)
    return gw_cli_usage_error(NULL, _("give a recording or a trace to report"));
  if (ranges->replace && !ranges->name)
    return gw_cli_usage_error(NULL, _("--step-range-replaces needs --step-range NAME"));
  /* -o report.html: the extension names the format when --format does not */
  if (!format_given && output->path)
    gw_cli_format_from_path(output->path, gw_report_formats(), &opts->format);
  return same_file_twice(paths, *npaths) ? GPUWHY_EXIT_USAGE : -1;
}

/* Render into memory, then wrap (text on a terminal) or compress (.gz). */
static int report_recordings(const char *const *paths, int npaths, struct gw_report_opts *opts,
                             const struct report_output *output) {
  const char *outpath = output->path;
  int to_file = outpath && strcmp(outpath, "-") != 0;
  opts->color = opts->format == GW_REPORT_TEXT &&
                (to_file ? output->color == GW_COLOR_ALWAYS : gw_color_use(output->color, STDOUT_FILENO));
  int width_cols = !to_file && opts->format == GW_REPORT_TEXT ? gw_term_width_cols(STDOUT_FILENO) : 0;
  char *text = NULL;
  size_t text_len = 0;
  FILE *mem = open_memstream(&text, &text_len);
  if (!mem) {
    fprintf(stderr, _("gpuwhy report: out of memory\n"));
    return GPUWHY_EXIT_INPUT;
  }
  char err[512] = "";
  int rc = gw_report_files(paths, npaths, opts, mem, err, sizeof err);
  int failed = fflush(mem) != 0;
  if (rc == GPUWHY_EXIT_OK && !failed) {
    if (to_file) {
      failed = gw_cli_write_output(mem, outpath) != 0;
    } else {
      gw_text_wrap(stdout, text, text_len, width_cols);
      failed = fflush(stdout) != 0;
    }
  }
  fclose(mem);
  free(text);
  if (rc != GPUWHY_EXIT_OK) {
    fprintf(stderr, "gpuwhy report: %s\n", err);
    return rc;
  }
  if (failed) {
    fprintf(stderr, _("gpuwhy report: writing %s failed: %s\n"), to_file ? outpath : _("standard output"),
            strerror(errno));
    return GPUWHY_EXIT_INPUT;
  }
  return GPUWHY_EXIT_OK;
}

/* A path that is not a gpuwhy recording (a torch.profiler trace, an Nsight
 * Systems export, an nvidia-smi log, a folder of per-rank traces) is
 * imported into a temporary recording first, so `gpuwhy report TRACE` is
 * import and report in one step. The temporary file is removed after. */
struct imported {
  char dir[4096];  /* a private temporary folder, "" when the input was a recording */
  char path[4400]; /* the recording in it, named after the input so the report's title shows that name */
};

/* A private temporary folder and, in im->path, a file in it named after input. */
static int private_path(const char *input, struct imported *im, char *err, size_t errcap) {
  const char *tmp;
  if (gw_make_temp_dir("gpuwhy-report", im->dir, sizeof im->dir, &tmp) != 0) {
    snprintf(err, errcap, _("cannot create a temporary folder in %s: %s"), tmp, strerror(errno));
    im->dir[0] = '\0';
    return GPUWHY_EXIT_INPUT;
  }
  char name[256];
  snprintf(name, sizeof name, "%s", input);
  size_t len = strlen(name);
  while (len > 1 && name[len - 1] == '/')
    name[--len] = '\0';
  const char *slash = strrchr(name, '/');
  snprintf(im->path, sizeof im->path, "%s/%s", im->dir, slash && slash[1] ? slash + 1 : name);
  return GPUWHY_EXIT_OK;
}

static int import_if_trace(const char *input, struct imported *im, char *err, size_t errcap) {
  im->dir[0] = im->path[0] = '\0';
  struct stat sb;
  if (stat(input, &sb) != 0 || (!S_ISDIR(sb.st_mode) && gw_store_file_is_recording(input)))
    return GPUWHY_EXIT_OK; /* a recording, or missing: the report says which */
  int made = private_path(input, im, err, errcap);
  if (made != GPUWHY_EXIT_OK)
    return made;
  struct gw_import_summary sum;
  char why[1024] = "";
  int rc = gw_import(input, im->path, NULL, &sum, why, sizeof why);
  if (rc != GPUWHY_EXIT_OK) {
    snprintf(err, errcap, _("%s is neither a gpuwhy recording nor a trace gpuwhy can import: %s"), input, why);
    return rc;
  }
  fprintf(stderr, _("gpuwhy report: imported %s (%s, %llu kernels); to keep the recording: gpuwhy import %s -o FILE\n"),
          input, gw_import_format_name(sum.format), (unsigned long long)sum.kernels, input);
  return GPUWHY_EXIT_OK;
}

/* report --step-range: the named NVTX ranges become steps in a private copy
 * (lib/store/step_range.c); the recording given is never changed. */
static int steps_from_ranges(const char *input, struct imported *im, const struct step_range_opts *ranges, char *err,
                             size_t errcap) {
  int copy = !im->path[0]; /* an imported trace is ours already */
  if (copy) {
    int made = private_path(input, im, err, errcap);
    if (made != GPUWHY_EXIT_OK)
      return made;
  }
  unsigned long long steps = 0, kept = 0;
  int rc = gw_record_steps_from_ranges(copy ? input : im->path, copy ? im->path : NULL, ranges->name, ranges->replace,
                                       &steps, &kept, err, (unsigned)errcap);
  if (rc != GPUWHY_EXIT_OK)
    return rc;
  if (steps + kept == 0)
    fprintf(stderr, _("gpuwhy report: %s: no NVTX range named %s (ranges are recorded by record --trace)\n"), input,
            ranges->name);
  else
    fprintf(stderr, _("gpuwhy report: %s: %llu steps from the NVTX ranges named %s; %llu process(es) kept their own\n"),
            input, steps, ranges->name, kept);
  return GPUWHY_EXIT_OK;
}

static void remove_imported(const struct imported *im) {
  if (im->path[0])
    gw_store_remove_files(im->path);
  if (im->dir[0])
    rmdir(im->dir);
}

static int report(const char *const *paths, int npaths, struct gw_report_opts *opts, const struct report_output *output,
                  const struct step_range_opts *ranges) {
  struct imported *im = calloc((size_t)npaths, sizeof *im);
  const char **inputs = calloc((size_t)npaths, sizeof *inputs);
  char err[1400] = "";
  int rc = im && inputs ? GPUWHY_EXIT_OK : GPUWHY_EXIT_INPUT;
  for (int i = 0; i < npaths && rc == GPUWHY_EXIT_OK; i++) {
    rc = import_if_trace(paths[i], &im[i], err, sizeof err);
    if (rc == GPUWHY_EXIT_OK && ranges->name)
      rc = steps_from_ranges(paths[i], &im[i], ranges, err, sizeof err);
    inputs[i] = im[i].path[0] ? im[i].path : paths[i];
  }
  if (rc == GPUWHY_EXIT_OK)
    rc = report_recordings(inputs, npaths, opts, output);
  else
    fprintf(stderr, "gpuwhy report: %s\n", err);
  for (int i = 0; im && i < npaths; i++)
    remove_imported(&im[i]);
  free(im);
  free(inputs);
  return rc;
}

int gw_cmd_report(int argc, char **argv) {
  struct gw_report_opts opts = {GW_REPORT_TEXT, 0};
  struct report_output output = {NULL, GW_COLOR_AUTO};
  gw_i18n_init();
  const char **paths = calloc((size_t)argc + 1, sizeof *paths);
  if (!paths)
    return GPUWHY_EXIT_INPUT;
  int npaths = 0;
  struct step_range_opts ranges = {NULL, 0};
  int rc = parse_args(argc, argv, &opts, &output, paths, &npaths, &ranges);
  if (rc < 0)
    rc = report(paths, npaths, &opts, &output, &ranges);
  free(paths);
  return rc;
}
