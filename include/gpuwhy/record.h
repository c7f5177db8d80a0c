/* Recording a run: sample GPUs, host and kernel log while a command runs (or
 * while a process lives), into one SQLite recording. Also drives `watch`. */
#ifndef GPUWHY_RECORD_H
#define GPUWHY_RECORD_H

#include <stdint.h>

struct gw_gpu_sample;
struct gw_gpu_info;
struct gw_host_sample;

/* What one tick saw, for live views. Pointers are valid during the callback. */
struct gw_tick {
  int64_t t_ns;
  int ngpus;
  const struct gw_gpu_info *gpu_info; /* ngpus entries */
  const struct gw_gpu_sample *gpu;    /* ngpus entries; a lost GPU has valid == 0 */
  const int *gpu_lost;                /* ngpus flags */
  const struct gw_host_sample *host;
  const char *gpu_note; /* why there is no GPU data, or NULL */
  int target_pid;       /* 0 when none */
};

/* A step the Python hook reported, as the recorder takes it in. */
struct gw_python_step {
  int64_t pid, rank; /* rank -1 outside a launcher */
  int64_t start_ns, end_ns;
  int optimizer; /* 1: an optimizer step; 0: a DataLoader iteration of a process without optimizer */
};

enum gw_trace_mode { GW_TRACE_OFF = 0, GW_TRACE_SAMPLED = 1, GW_TRACE_FULL = 2 };

struct gw_record_opts {
  const char *out_path;  /* NULL: no recording (watch without -o) */
  int force;             /* replace out_path even when it is not a gpuwhy recording (record --force) */
  int interval_ms;       /* sampling period */
  int gpm_interval_ms;   /* GPM activity window (at least interval_ms) */
  double duration_s;     /* 0: until the command or process ends */
  int pid;               /* follow this running process (0: start argv) */
  char *const *argv;     /* command to start, NULL-terminated, or NULL */
  const char *root;      /* "" or NULL: live system; else a fixture root for /proc, /sys, /dev/kmsg */
  const char *nvml_lib;  /* NULL: default search */
  const char *kmsg_path; /* NULL: root/dev/kmsg; else this file or device */
  enum gw_trace_mode trace;
  int no_trace;           /* never trace, not even on a GPU without GPM (record --no-trace) */
  const char *tracer_lib; /* path of libgpuwhy-tracer.so, NULL: next to the binary */
  int quiet;              /* no progress lines on stderr */
  int no_nccl_log;        /* do not capture NCCL's debug lines (NCCL_DEBUG=INFO into a file) */
  int no_gpm;             /* never read GPM, as on a GPU without it (record --no-gpm) */
  int pm_sampling;        /* the tracer also runs CUPTI PM sampling (record --pm-sampling) */
  int pm_sampling_only;   /* --pm-sampling without --trace: the tracer opens no activity window */
  int no_python_hook;     /* do not put the Python step hook on the command's PYTHONPATH */
  int py_sample_hz;       /* the hook's stack samples per second; 0: the default (25), -1: off */
  int stop_command;       /* at duration_s, end the command too (SIGTERM) instead of waiting for it */
  int thread_hz;          /* samples per second of the job's threads (record --thread-hz); 0: none */
  /* record --step-range NAME: NVTX ranges of that name are a process's steps
   * (NULL: none); step_range_replaces: also where the Python hook gave steps. */
  const char *step_range;
  int step_range_replaces;
  /* Called for each step of the Python hook while the run goes on (the
   * spool is read about once a second; in order within a process). */
  void (*on_python_step)(void *ctx, const struct gw_python_step *step);
  void *python_step_ctx;
  /* Called after each tick (watch). Return non-zero to stop. */
  int (*on_tick)(void *ctx, const struct gw_tick *tick);
  void *tick_ctx;
  int dcgm;                 /* GPUs without GPM: SM activity from a DCGM host engine (record --dcgm) */
  const char *dcgm_address; /* "HOST[:PORT]" or "unix:PATH"; NULL: 127.0.0.1:5555 */
};

/* Run a recording. Returns the exit status gpuwhy should exit with: the
 * command's own status (128+N when killed by signal N), 0 when following a pid
 * or for a watch; with msg filled, GPUWHY_EXIT_USAGE for bad options,
 * GPUWHY_EXIT_TOOL_FAILED when the recording could not be made (before the
 * run began: output, sources, a --pid that is gone), GPUWHY_EXIT_NOT_FOUND
 * or GPUWHY_EXIT_CANNOT_RUN when the command could not be started. */
int gw_record_run(const struct gw_record_opts *opts, char *msg, unsigned msg_cap);

/* report --step-range: the NVTX ranges named name (marker table) become the
 * steps of every process without steps (or of every process with such
 * ranges when replace is set), in src itself when dst is NULL, else in a copy
 * of src written to dst. *steps is how many were made, *kept how many
 * processes kept their own. Returns GPUWHY_EXIT_OK, or GPUWHY_EXIT_INPUT with
 * msg filled (no trace tables, unreadable file). */
int gw_record_steps_from_ranges(const char *src, const char *dst, const char *name, int replace,
                                unsigned long long *steps, unsigned long long *kept, char *msg, unsigned msg_cap);

/* Request a running gw_record_run to stop at the next tick (signal-safe). */
void gw_record_request_stop(void);

#endif
