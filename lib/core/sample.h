/* The in-memory records that sources produce and the store writes.
 * Not available is never 0: every GPU metric has a validity bit. */
#ifndef GW_SAMPLE_H
#define GW_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

enum gw_gpu_metric {
#define X(id, sqltype, table, unit, help) GW_M_##id,
#include "gpu_metrics.def"
#undef X
  GW_GPU_NMETRICS
};

enum gw_metric_table { GW_TABLE_FAST, GW_TABLE_SLOW };

struct gw_metric_info {
  const char *id;
  int is_integer;
  enum gw_metric_table table;
  const char *unit;
  const char *help;
};
extern const struct gw_metric_info gw_gpu_metric_info[GW_GPU_NMETRICS];

/* One GPU, one instant. Values are doubles (integers up to 2^53 are exact). */
struct gw_gpu_sample {
  int64_t t_ns;   /* CLOCK_REALTIME */
  unsigned gpu;   /* NVML index */
  uint64_t valid; /* bit (1 << metric) set when values[metric] holds a reading */
  double values[GW_GPU_NMETRICS];
};

static inline void gw_gpu_set(struct gw_gpu_sample *s, enum gw_gpu_metric m, double v) {
  s->values[m] = v;
  s->valid |= (uint64_t)1 << m;
}
static inline int gw_gpu_valid(const struct gw_gpu_sample *s, enum gw_gpu_metric m) {
  return (s->valid >> m) & 1;
}

/* Static facts of one GPU, read once. 0 or "" means unknown. */
struct gw_gpu_info {
  unsigned index;
  char uuid[96];
  char name[96];
  char pci_bus_id[32];
  uint64_t mem_total_bytes;
  unsigned power_default_limit_mw, power_min_limit_mw, power_max_limit_mw;
  unsigned sm_clock_max_mhz, mem_clock_max_mhz;
  unsigned pcie_gen_max, pcie_width_max;
  int temp_slowdown_c, temp_shutdown_c; /* absolute Celsius, -1 unknown */
  int windowed_supported;               /* windowed SM activity (NVML: GPM): 1 yes, 0 no, -1 unknown */
  int mig_enabled, persistence_mode, compute_mode, ecc_enabled; /* -1 unknown */
  uint64_t supported_clock_reasons;
};

/* A process using a GPU, as the driver lists it. */
struct gw_gpu_proc {
  int64_t t_ns;
  unsigned gpu;
  int pid;
  int64_t used_mem_bytes; /* -1 unknown */
  double sm_pct;          /* per-process SM share from the driver, -1 unknown */
  char comm[17];          /* the process's name (/proc/PID/comm), "" unknown */
};

/* An event: kernel-log Xid or NVRM line, GPU lost, clock reason change,
 * process start/exit, tracer message. */
struct gw_event {
  int64_t t_ns;     /* CLOCK_REALTIME */
  const char *kind; /* "xid", "nvrm", "gpu_lost", "clock_reasons", "proc_start", "proc_exit", "note", ... */
  int gpu;          /* NVML index, -1 when not tied to one GPU */
  int64_t code;     /* Xid number, new bitmask, exit status; 0 when none */
  int pid;          /* 0 when none */
  char message[512];
};

/* Where sources deliver events. */
struct gw_event_sink {
  void (*emit)(void *ctx, const struct gw_event *ev);
  void *ctx;
};

static inline void gw_emit(const struct gw_event_sink *sink, const struct gw_event *ev) {
  if (sink && sink->emit)
    sink->emit(sink->ctx, ev);
}

/* ---- host side ---- */

/* CPU time split over the interval, in percent of one core (per core) or of
 * all cores (total). core = -1 for the total. */
struct gw_cpu_sample {
  int core;
  double busy_pct, user_pct, system_pct, iowait_pct, steal_pct;
};

enum gw_proc_role { GW_ROLE_TARGET = 0, GW_ROLE_CHILD = 1 };

/* One process of the target's tree. */
struct gw_proc_sample {
  int pid, ppid;
  int role; /* enum gw_proc_role */
  char comm[32];
  char state;     /* R, S, D, Z, ... */
  double cpu_pct; /* percent of one core over the interval, -1 on its first sample */
  int threads;
  int64_t rss_bytes;          /* -1 unknown */
  int threads_running;        /* target only, on process rescans (about 1 s): threads in state R; -1 unknown */
  double main_thread_cpu_pct; /* target only: CPU of its first thread (the Python main thread), -1 unknown */
  /* target only: the main thread plus PyTorch's autograd device threads
   * (named pt_autograd_N), which issue a training step's backward kernels:
   * the threads that launch work, summed; -1 unknown (no autograd thread
   * seen, so the process CPU has to stand in for them) */
  double launch_threads_cpu_pct;
};

/* One block device, with iostat -x's figures over the interval. */
struct gw_disk_sample {
  char name[32];
  double util_pct, await_ms, r_per_s, w_per_s, read_bps, write_bps, aqu_sz;
};

enum gw_host_field {
  GW_H_MEM = 0,     /* mem_total_bytes, mem_available_bytes, swap_* */
  GW_H_PSI_CPU = 1, /* psi_cpu_some_pct */
  GW_H_PSI_MEM = 2, /* psi_mem_some_pct, psi_mem_full_pct */
  GW_H_PSI_IO = 3,  /* psi_io_some_pct, psi_io_full_pct */
  GW_H_CPU = 4,     /* total and cores hold rates (not on the first sample) */
  GW_H_POWER = 5,   /* on_battery */
  GW_H_LOAD = 6,    /* loadavg_1m, procs_running */
};

struct gw_host_sample {
  int64_t t_ns;   /* CLOCK_REALTIME */
  uint32_t valid; /* bit (1 << enum gw_host_field) */
  struct gw_cpu_sample total;
  int ncores;
  struct gw_cpu_sample *cores; /* ncores entries, owned by the sampler */
  int64_t mem_total_bytes, mem_available_bytes, swap_total_bytes, swap_free_bytes; /* -1 unknown */
  double psi_cpu_some_pct, psi_mem_some_pct, psi_mem_full_pct, psi_io_some_pct,
      psi_io_full_pct; /* stall share over the interval */
  int on_battery;      /* 1 on battery, 0 on mains, valid with GW_H_POWER */
  double loadavg_1m;
  int procs_running;
  char governor[32]; /* cpufreq governor of cpu0, "" unknown */
  int nprocs;
  struct gw_proc_sample *procs; /* owned by the sampler */
  int ndisks;                   /* 0 on the first sample: no rates yet */
  struct gw_disk_sample *disks; /* owned by the sampler */
};

/* Clock event reason bits (NVML nvmlClocksEventReason*). */
#define GW_CLK_IDLE 0x1ull
#define GW_CLK_SW_POWER_CAP 0x4ull
#define GW_CLK_HW_SLOWDOWN 0x8ull
#define GW_CLK_SW_THERMAL 0x20ull
#define GW_CLK_HW_THERMAL 0x40ull
#define GW_CLK_HW_POWER_BRAKE 0x80ull
/* Reasons that mean the environment holds the GPU back (a fault or a cooling
 * or power problem). SW power cap is deliberately not here: a GPU at its
 * power limit is at its physical limit, which is not a fault. */
#define GW_CLK_BAD_MASK (GW_CLK_HW_SLOWDOWN | GW_CLK_SW_THERMAL | GW_CLK_HW_THERMAL | GW_CLK_HW_POWER_BRAKE)

#endif
