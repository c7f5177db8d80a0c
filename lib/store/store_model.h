/* The recording as one in-memory model: what lib/store/store_load.c reads
 * from a recording file in one pass (run facts, GPU and host series,
 * events, steps, the traced intervals per GPU), for the analysis, the
 * renderers, compare and serve. Every per-tick value is a double (the GPU
 * metrics' in packed columns, core/value_column.h, which give each back bit
 * for bit); NAN means the recording holds NULL (not available). The big trace tables are not
 * held here beyond their intervals: the analysis streams them through the
 * iterators of lib/store/store_iter.h. */
#ifndef GW_STORE_MODEL_H
#define GW_STORE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/interval.h"
#include "core/sample.h"
#include "core/text_pool.h"
#include "core/util.h"
#include "core/value_column.h"

struct gw_kernel_stats;

struct gw_gpu_series {
  int gpu;
  char name[96];
  /* static facts, NAN when unknown */
  double mem_total_bytes, power_default_limit_mw, sm_clock_max_mhz, pcie_gen_max, pcie_width_max;
  int gpm_supported; /* 1, 0, -1 unknown */
  /* where m[sm_active_pct] comes from: enum gw_sm_activity_source
   * (analysis/sm_fill.h, which sets it); launch_config: estimated from the traced kernels */
  int sm_activity_source;
  /* gpu_sample: n ticks; m[metric] holds a column of n values for FAST metrics (read with gw_column_at: packed
   * once loaded, a long run's metrics are millions of ticks), NULL for others and for a metric not kept */
  size_t n;
  int64_t *t_ns;
  struct gw_value_column *m[GW_GPU_NMETRICS];
  /* gpu_health: nh ticks; h[metric] a packed column for SLOW metrics */
  size_t nh;
  int64_t *ht_ns;
  struct gw_value_column *h[GW_GPU_NMETRICS];
  /* tracer timeline (empty without the tracer) */
  size_t nkernels, nnccl, nh2d, ncopies, napi;
  size_t nlaunch_calls; /* launch calls among the api intervals; 0: a quiet-looking gap may have been launching */
  struct gw_interval *kernels, *nccl, *h2d, *copies;
  struct gw_interval *api; /* the host's traced CUDA calls (api table) of the process running on this GPU */
  size_t nsyncs;
  struct gw_interval *syncs; /* that process's calls that wait for the GPU (sync table, synchronizing API calls) */
  /* for the multi-GPU summary */
  struct gw_kernel_stats *kstats; /* the traced kernels' statistics, computed by the analysis from the store's
                                   * kernel iterator (lib/analysis/kernel_stats.c); NULL until then */
  int64_t trace_pid;              /* the process that ran most kernels on this GPU (a rank), 0 unknown */
  int procs_max;                  /* most processes seen on the GPU at once (gpu_proc), 0 unknown */
  /* the process outside the recorded job seen on this GPU most often (gpu_proc rows of a pid that is
   * neither the target's tree nor a traced rank), 0 none; its median memory and SM share, NAN unknown */
  int64_t other_pid;
  double other_share_of_samples, other_mem_bytes, other_sm_pct;
  /* its name (gpu_proc.comm), "" unknown */
  char other_comm[17];
  int node;      /* which recording of a multi-node report (0 for one) */
  int node_gpu;  /* the GPU's index on its own host */
  char host[64]; /* the run's host name, "" unknown */
};

/* One window of a sampled trace (trace_window), per traced process. */
struct gw_trace_window {
  int64_t pid, start_ns, end_ns;
  int node; /* which recording of a multi-node report: pids repeat across hosts */
};

struct gw_nccl_summary;

/* Host and target-process signals per host tick. */
struct gw_host_series {
  size_t n;
  int64_t *t_ns;
  double *cpu_busy_pct, *iowait_pct, *on_battery;
  double *main_cpu_pct; /* target process, % of one core */
  double *main_threads_running;
  /* the target's launching threads (main + PyTorch's autograd threads), % of
   * one core; NaN where unknown (no autograd thread seen, or a recording made
   * before the column existed) */
  double *launch_cpu_pct;
  /* the target's main thread alone (the Python loop: forward launches, the
   * optimizer, the loop's own host work), % of one core; NaN where
   * launch_cpu_pct is */
  double *main_thread_cpu_pct;
  double *workers;            /* number of descendant processes */
  double *worker_cpu_max_pct; /* busiest descendant, % of one core */
  double *workers_saturated;  /* descendants at or above the saturation threshold */
  double *disk_util_max_pct, *disk_read_bps, *disk_write_bps;
  char governor[32]; /* last governor seen, "" unknown */
};

struct gw_event_row {
  int64_t t_ns;
  char kind[24];
  int gpu; /* -1 when not tied to one */
  int64_t code;
  int64_t pid; /* -1 when not tied to a process */
  /* at most 199 bytes, "" none; never NULL. A text of the recording's texts (gw_recording.texts): a long run
   * repeats a few messages, kept once each */
  const char *message;
};

struct gw_step_row {
  int64_t start_ns, end_ns, step;
  /* From the Python hook (docs/RECORDING.md); -1 where unknown or in older recordings. */
  int64_t pid, rank, data_wait_ns, batch_size, samples;
  int64_t compile_ns; /* time in torch.compile within the step; -1 unknown (hooks before it, other sources) */
  char shape[64];     /* the first input tensor's shape, "16x128"; "" unknown */
  int from_loader;    /* a DataLoader iteration standing for a step (no optimizer seen) */
};

/* The samplers' rows (docs/RECORDING.md). One sample of one thread of the job (thread_sample): state and wait are
 * enum gw_thread_state and enum gw_wait_kind (core/activity.h). */
struct gw_thread_tick {
  int64_t t_ns;
  int32_t tid;
  uint8_t state, wait;
  int16_t syscall; /* -1 unknown (running, or unreadable) */
  int64_t cpu_ns;  /* cumulative utime+stime; -1 unknown */
};
/* A thread of the job (thread_info): role is enum gw_thread_role. */
struct gw_thread_meta {
  int32_t tid, pid;
  int role;
  char comm[17];
};
struct gw_py_tick {
  int64_t t_ns;
  int32_t pid, tid;
  uint8_t activity;
  int32_t frame; /* -1 none */
};
struct gw_py_frame_info {
  int32_t id;
  int line;
  char file[160];
  char func[64];
};

/* The FLOPs of one step counted by the Python hook (FlopCounterMode, forward
 * and backward) or carried by an imported trace. */
struct gw_step_flops {
  int64_t step, pid, rank; /* -1 unknown */
  double flops;
  /* FLOPs per input dtype of the counted ops (bf16, fp32, ...), the rest "unknown" */
  int ndtypes;
  char dtype[6][16];
  double dtype_flops[6];
  int64_t batch_size; /* -1 unknown */
  int64_t counted_ns; /* the counted step's wall time, -1 unknown */
  /* the median wall time of up to 5 steps either side of it in the same process (the step table), NAN unknown:
   * counted_ns against it is what counting cost */
  double neighbours_median_ns;
  /* the steady step time of that process (mean of all its steps but the first and the counted one: the loop's
   * pace), NAN unknown: FLOPs over it is the achieved rate */
  double steady_step_ns;
  char source[16]; /* "python_hook", "kineto" */
  int node;        /* which recording of a multi-node report (0 for one): pids repeat across hosts */
};

struct gw_recording {
  char path[1024];
  /* The read-only connection it was loaded from (gw_recording_load): kept
   * open for the run's facts and the big-table iterators, so that an output
   * reads its recording through one open; closed by gw_recording_free. NULL
   * when the caller owns the store (gw_recording_load_store). */
  struct gw_store *store;
  int64_t started_ns, ended_ns;                  /* 0 when unknown */
  int physical_cores, logical_cpus, interval_ms; /* 0 unknown */
  char gpu_note[256];
  char source[32];
  int ngpus;
  struct gw_gpu_series *gpus;
  struct gw_host_series host;
  size_t nevents;
  struct gw_event_row *events;
  struct gw_text_pool texts; /* the events' messages */
  size_t nsteps;
  struct gw_step_row *steps;
  /* gpuwhy's Python step hook was enabled in the program (meta.python_hook_steps
   * present); then no step rows means no optimizer step and no DataLoader */
  int python_hook_enabled;
  int world_size;       /* WORLD_SIZE in the recorded environment (torchrun, mpirun), 0 unknown */
  int has_timeline;     /* the kernel table exists and holds rows */
  int timeline_sampled; /* the tracer ran in sampled windows: timeline not used for the ledger */
  /* A sampled trace still fills each GPU's kernels and nccl lists (inside
   * these windows) for the multi-GPU summary; has_timeline stays 0. */
  size_t nwindows;
  struct gw_trace_window *windows;
  /* The tracer stood aside for another CUPTI client (its trace_note rows
   * "stood aside at" / "came back at"): how often, when first, and for how
   * long in all (an episode still open at the end lasts to ended_ns). */
  int tracer_aside_count;
  int64_t tracer_aside_first_ns, tracer_aside_total_ns;
  char hostname[128];
  /* run.command as one shell line, each word quoted where the shell would
   * split or expand it; "" when not recorded (a followed pid, an import) */
  char command[2048];
  /* run.command, the recorded program and its arguments (NULL-terminated);
   * NULL when unknown (an import, a --pid recording, a damaged column) */
  int command_argc;
  char **command_argv;
  int nnodes;                   /* recordings merged into this one (1 for a plain file) */
  struct gw_nccl_summary *nccl; /* the nccl_log table and NCCL_* settings; never NULL once loaded */
  /* The thread sampler (record --thread-hz): every thread seen, sorted by
   * tid, and their samples sorted by t_ns (one t_ns per sampler tick). A long
   * recording keeps every sample of the main threads and thins the others
   * to a stride (thread_ticks_stride) so the model stays small. */
  size_t nthreads;
  struct gw_thread_meta *threads;
  size_t nthread_ticks;
  struct gw_thread_tick *thread_ticks;
  double thread_sampling_hz;      /* 0: not recorded */
  int thread_ticks_stride;        /* 1: every sample loaded; k: other threads' samples, one in k per thread */
  int thread_main_ticks_stride;   /* the same for the main threads (1 unless they alone outgrow the budget) */
  char thread_sampling_note[256]; /* why the sampling is partial, "" none */
  size_t npy_ticks;
  struct gw_py_tick *py_ticks; /* sorted by t_ns */
  size_t npy_frames;
  struct gw_py_frame_info *py_frames;
  double py_sampling_hz; /* 0: not recorded */
  size_t nstep_flops;
  struct gw_step_flops *step_flops; /* table step_flops (schema 2); none in older recordings */
};

/* Frees the model and everything it holds. NULL is fine. */
void gw_recording_free(struct gw_recording *rec);

#endif
