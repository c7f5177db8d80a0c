/* Inside `gpuwhy check`: what the runner gathers once (driver, GPU samples,
 * load, kernel log, host) and the table rows that judge it. Each group of
 * checks lives in its own file and exports its rows; check.c runs them. */
#ifndef GW_CHECK_INTERNAL_H
#define GW_CHECK_INTERNAL_H

#include <gpuwhy/check.h>
#include <stdint.h>

#include "core/i18n.h"
#include "core/sample.h"
#include "core/util.h"
#include "sources/host.h"
#include "sources/kmsg.h"
#include "record/gpu_backends.h"

/* 2: named "gpuwhy.check/2" like the other documents (1 was "gpuwhy-check/1") */
#define GW_CHECK_JSON_SCHEMA_VERSION 2
#define CHECK_MAX_PROCS 64
#define CHECK_MAX_XID_CODES 64
#define CHECK_MAX_NVRM_LINES 3

#define CHECK_LOAD_CLOCK_SAMPLES 512

/* One GPU as the runner saw it. */
struct check_gpu {
  unsigned index;
  struct gw_gpu_info info;
  int lost; /* the driver lost it, or it could not be opened */
  char lost_why[512];
  struct gw_gpu_sample idle; /* one snapshot before any load (all tiers) */
  int idle_ok;
  /* Peaks over the load: the highest clock, power, temperature, link and
   * activity seen, the lowest P-state, and every clock reason that showed. */
  struct gw_gpu_sample load;
  int load_samples;
  /* The SM clock of each sample under the load: a GPU at its power limit
   * moves its clock all the time, so the check reports the median and the
   * range, not the peak alone. */
  double load_sm_clock_mhz[CHECK_LOAD_CLOCK_SAMPLES];
  int load_sm_clock_n;
  double load_avg_power_w; /* from the energy counter over the load, -1 unknown */
  double load_tflops;      /* what the matmul loop achieved, -1 unknown */
  char load_note[300];     /* why the load did not run on this GPU, "" when it did */
  int nprocs;              /* -1 when the driver could not list them */
  struct gw_gpu_proc procs[CHECK_MAX_PROCS];
};

/* Xid lines of one code, grouped. */
struct check_xid_group {
  int code;
  int count;
  int64_t first_boot_ms, last_boot_ms; /* milliseconds after boot */
  char pcis[160];                      /* distinct PCI addresses, comma separated */
  char first_detail[200];              /* the first line's text after the address */
};

struct check_ctx {
  const struct gw_check_opts *opts;
  const char *root; /* "" for the live system */
  int live;
  struct gw_check_report *report;

  /* driver */
  struct gw_gpu *nv;
  int have_driver;
  char driver_err[512];
  struct gw_driver_info driver;

  unsigned ngpus;
  struct check_gpu *gpus;

  /* load */
  int load_ran;          /* at least one GPU got samples under load */
  char load_why[400];    /* why it did not run at all, "" otherwise */
  char load_python[256]; /* the interpreter that ran it */

  /* kernel log */
  int kmsg_ok;
  char kmsg_err[512];
  int xid_ngroups;
  struct check_xid_group xid[CHECK_MAX_XID_CODES];
  int xid_dropped; /* lines of codes beyond CHECK_MAX_XID_CODES */
  int nvrm_count;  /* NVRM lines that are not Xid lines */
  int nvrm_shown;  /* of them kept in nvrm_last (those with text) */
  char nvrm_last[CHECK_MAX_NVRM_LINES][200];
  char kmsg_notes[400];

  /* host */
  struct gw_host *host;
  int host_ok;
  char host_err[600];
  struct gw_host_sample hs;
  struct gw_host_info hi;
};

/* ---- the table ---- */

enum check_scope { CHECK_SYSTEM, CHECK_PER_GPU };

struct check_def {
  const char *group; /* "driver", "gpu", "kmsg", "host" */
  const char *id;    /* item id after the group (or after "gpuN.") */
  const char *title;
  enum check_scope scope;
  /* Judge and add zero or more items; gpu is NULL for CHECK_SYSTEM. */
  void (*run)(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu);
};

extern const struct check_def gw_check_driver_rows[];
extern const size_t gw_check_driver_nrows;
extern const struct check_def gw_check_gpu_rows[];
extern const size_t gw_check_gpu_nrows;
extern const struct check_def gw_check_kmsg_rows[];
extern const size_t gw_check_kmsg_nrows;
extern const struct check_def gw_check_host_rows[];
extern const size_t gw_check_host_nrows;
/* Instead of the host rows when the host could not be sampled: one note. */
void gw_check_host_unread(struct check_ctx *ctx);

/* ---- building items ---- */

/* Add an item for a row; id and title come from def (id gets "gpuN." for a
 * GPU). The item's text starts empty. */
struct gw_check_item *gw_check_add(struct check_ctx *ctx, const struct check_def *def, const struct check_gpu *gpu,
                                   enum gw_check_status status);
/* Same with an explicit id suffix and title (one item per Xid code). */
struct gw_check_item *gw_check_add_named(struct check_ctx *ctx, const char *group, const char *id, const char *title,
                                         int gpu, enum gw_check_status status);
/* Append to the reason or the fix (a space joins sentences). */
void gw_check_reason(struct gw_check_item *it, const char *fmt, ...) GW_PRINTF(2, 3);
void gw_check_fix(struct gw_check_item *it, const char *fmt, ...) GW_PRINTF(2, 3);
void gw_check_value(struct gw_check_item *it, const char *name, double value);
/* Raise the status, never lower it. */
void gw_check_raise(struct gw_check_item *it, enum gw_check_status status);

/* ---- gathering (check_load.c, check_cuda.c, check_spawn.c) ---- */

/* The program to run for python or nvcc: the option, the environment, the
 * default on the live system, or NULL (not to be run). */
const char *gw_check_program(const struct check_ctx *ctx, const char *opt, const char *env_name,
                             const char *live_default);

/* Run argv with extra environment entries ("NAME=value", may be NULL),
 * stdout and stderr captured into out (NUL-terminated, truncated to cap).
 * Returns the exit status, 128+N for signal N, -1 when it could not start,
 * -2 when it ran past timeout_ms and was killed. */
int gw_check_run_program(char *const argv[], const char *extra_env, int timeout_ms, char *out, size_t cap);

/* A started child whose output is read line by line. */
struct check_child {
  int pid;
  int fd;     /* read end of its stdout+stderr, -1 once closed */
  char *buf;  /* pending output */
  size_t len; /* bytes in buf */
  int exited; /* 1 once reaped */
  int status; /* exit status as gw_check_run_program gives it */
  char last_line[300];
};
int gw_check_child_start(struct check_child *c, char *const argv[], const char *extra_env, struct gw_err *err);
/* Wait up to timeout_ms for output from any of the children; complete lines
 * go to on_line. Returns when a line arrived, the time ran out, or all pipes
 * closed. */
void gw_check_children_poll(struct check_child *kids, int n, int timeout_ms,
                            void (*on_line)(void *ctx, int child, const char *line), void *ctx);
void gw_check_child_stop(struct check_child *c); /* kill if still running, reap, free */

/* Run the load (when asked) while sampling every GPU. */
void gw_check_gather_load(struct check_ctx *ctx);

/* ---- the CUDA runtime (check_cuda.c); parsers exposed for tests ---- */

struct check_cuda_version {
  int major, minor; /* -1 unknown */
};
/* "Cuda compilation tools, release 13.0, V13.0.88" -> 13.0. 0 or -1. */
int gw_check_parse_nvcc(const char *text, struct check_cuda_version *out);
/* /usr/local/cuda/version.json: the "cuda" object's "version". 0 or -1. */
int gw_check_parse_version_json(const char *text, struct check_cuda_version *out);
/* "13.0" -> 13.0; "None" or junk -> -1. */
int gw_check_parse_major_minor(const char *text, struct check_cuda_version *out);

/* The driver group's CUDA runtime row. */
void gw_check_cuda_runtime(struct check_ctx *ctx, const struct check_def *def, struct check_gpu *gpu);

/* ---- small shared helpers (check.c) ---- */

/* 1 when a metric was read in s; *v gets it. */
int gw_check_metric(const struct gw_gpu_sample *s, enum gw_gpu_metric m, double *v);
/* The sample a GPU check should judge: the load peaks when the load ran,
 * else the idle snapshot. *under_load says which. */
const struct gw_gpu_sample *gw_check_gpu_sample(const struct check_gpu *gpu, int *under_load);
/* A metric of a GPU: from the load peaks when the load read it, else from
 * the idle snapshot. Cumulative counters are read again at the end of the
 * load, so their peak is their latest value. *from_load may be NULL. */
int gw_check_gpu_metric(const struct check_gpu *gpu, enum gw_gpu_metric m, double *v, int *from_load);
/* Parse "00000000:18:00.0" or "0000:18:00" into numbers. 0 or -1. */
int gw_check_parse_pci(const char *text, unsigned *domain, unsigned *bus, unsigned *device, unsigned *function);

#endif
