/* Synthetic recordings for the report tests, written through the real store
 * API and shaped like the workloads this project measured on the H200.
 * Header-only so each test program can include it. */
#ifndef GW_REPORT_SYNTH_H
#define GW_REPORT_SYNTH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define SYNTH_T0_NS 1700000000000000000LL
#define SYNTH_DT_NS 100000000LL /* 100 ms ticks, like the recorder */

/* One GPU tick; NAN means "not available" (stored as NULL). */
struct synth_gpu {
  double util, sm, power_w, clock_mhz, reasons, pstate, pcie_rx_bps, mem_used_frac;
};
/* One host tick. workers: number of loader workers, each at worker_cpu. */
struct synth_host {
  double main_cpu, main_running, worker_cpu, disk_util, disk_write_bps, iowait;
  /* the launching threads (main + autograd), % of one core; 0: not measured
   * (as in recordings without an autograd thread seen) */
  double launch_cpu;
  /* the main thread alone, % of one core; 0: not measured */
  double main_thread_cpu;
  int workers;
};

typedef void (*synth_gpu_fn)(int gpu, double t_s, struct synth_gpu *out);
typedef void (*synth_host_fn)(double t_s, struct synth_host *out);

static const double SYNTH_MEM_TOTAL = 141e9, SYNTH_LIMIT_W = 700, SYNTH_CLOCK_MAX = 1980;

static inline void synth_set(struct gw_gpu_sample *s, enum gw_gpu_metric m, double v) {
  if (!isnan(v))
    gw_gpu_set(s, m, v);
}

/* One running process of the target's tree; the main thread's own CPU unmeasured. */
static inline void synth_proc(struct gw_proc_sample *p, int pid, int ppid, enum gw_proc_role role, const char *comm,
                              double cpu_pct, int threads, int threads_running, double launch_threads_cpu_pct) {
  p->pid = pid;
  p->ppid = ppid;
  p->role = role;
  gw_strlcpy(p->comm, comm, sizeof p->comm);
  p->state = 'R';
  p->cpu_pct = cpu_pct;
  p->threads = threads;
  p->threads_running = threads_running;
  p->main_thread_cpu_pct = -1;
  p->launch_threads_cpu_pct = launch_threads_cpu_pct;
}

/* Write a recording of seconds of wall time. no_gpm: the SM activity
 * columns stay NULL and gpu.gpm_supported = 0. */
static inline int synth_write(const char *path, int ngpus, double seconds, int no_gpm, synth_gpu_fn gpu_fn,
                              synth_host_fn host_fn) {
  struct gw_store *st = NULL;
  struct gw_err err;
  if (gw_store_create(&st, path, &err) != GW_OK) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  struct gw_run_info run = {0};
  run.started_ns = SYNTH_T0_NS;
  run.target_pid = 1000;
  run.physical_cores = 16;
  run.logical_cpus = 16;
  run.interval_ms = 100;
  run.source = "record";
  int rc = gw_store_put_run(st, &run);
  for (int g = 0; g < ngpus && !rc; g++) {
    struct gw_gpu_info info;
    memset(&info, 0, sizeof info);
    info.index = (unsigned)g;
    gw_strlcpy(info.name, "NVIDIA H200", sizeof info.name);
    info.mem_total_bytes = (uint64_t)SYNTH_MEM_TOTAL;
    info.power_default_limit_mw = 700000;
    info.sm_clock_max_mhz = (unsigned)SYNTH_CLOCK_MAX;
    info.pcie_gen_max = 5;
    info.pcie_width_max = 16;
    info.temp_slowdown_c = info.temp_shutdown_c = -1;
    info.windowed_supported = no_gpm ? 0 : 1;
    info.mig_enabled = info.persistence_mode = info.compute_mode = info.ecc_enabled = -1;
    rc = gw_store_put_gpu_info(st, &info);
  }
  long nticks = (long)(seconds * 1e9 / (double)SYNTH_DT_NS);
  struct gw_proc_sample procs[9];
  for (long i = 0; i < nticks && !rc; i++) {
    int64_t t = SYNTH_T0_NS + i * SYNTH_DT_NS;
    double ts = (double)i * (double)SYNTH_DT_NS / 1e9;
    for (int g = 0; g < ngpus && !rc; g++) {
      struct synth_gpu v = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
      gpu_fn(g, ts, &v);
      struct gw_gpu_sample s;
      memset(&s, 0, sizeof s);
      s.t_ns = t;
      s.gpu = (unsigned)g;
      synth_set(&s, GW_M_util_gpu_pct, v.util);
      if (!no_gpm)
        synth_set(&s, GW_M_sm_active_pct, v.sm);
      synth_set(&s, GW_M_power_mw, isnan(v.power_w) ? NAN : v.power_w * 1000);
      synth_set(&s, GW_M_sm_clock_mhz, v.clock_mhz);
      synth_set(&s, GW_M_clock_reasons, v.reasons);
      synth_set(&s, GW_M_pstate, v.pstate);
      synth_set(&s, GW_M_pcie_rx_bps, v.pcie_rx_bps);
      synth_set(&s, GW_M_mem_used_bytes, isnan(v.mem_used_frac) ? NAN : v.mem_used_frac * SYNTH_MEM_TOTAL);
      synth_set(&s, GW_M_power_limit_mw, SYNTH_LIMIT_W * 1000);
      synth_set(&s, GW_M_pcie_gen, 5);
      synth_set(&s, GW_M_pcie_width, 16);
      unsigned what = 1u << GW_TABLE_FAST;
      if (i % 10 == 0)
        what |= 1u << GW_TABLE_SLOW;
      rc = gw_store_put_gpu_sample(st, &s, what);
    }
    if (!host_fn || rc)
      continue;
    struct synth_host hv = {NAN, NAN, NAN, NAN, NAN, NAN, 0};
    host_fn(ts, &hv);
    struct gw_host_sample h;
    memset(&h, 0, sizeof h);
    h.t_ns = t;
    h.valid = 1u << GW_H_CPU;
    h.total.core = -1;
    h.total.busy_pct = 20;
    h.total.iowait_pct = isnan(hv.iowait) ? 0 : hv.iowait;
    memset(procs, 0, sizeof procs);
    int np = 0;
    synth_proc(&procs[np++], 1000, 0, GW_ROLE_TARGET, "python3", hv.main_cpu, 8,
               isnan(hv.main_running) ? -1 : (int)hv.main_running, hv.launch_cpu > 0 ? hv.launch_cpu : -1);
    if (hv.main_thread_cpu > 0)
      procs[0].main_thread_cpu_pct = hv.main_thread_cpu;
    for (int w = 0; w < hv.workers && np < 9; w++)
      synth_proc(&procs[np++], 2000 + w, 1000, GW_ROLE_CHILD, "pt_data_worker", hv.worker_cpu, 1, -1, -1);
    h.nprocs = np;
    h.procs = procs;
    struct gw_disk_sample disk;
    memset(&disk, 0, sizeof disk);
    gw_strlcpy(disk.name, "nvme0n1", sizeof disk.name);
    disk.util_pct = isnan(hv.disk_util) ? 1 : hv.disk_util;
    disk.write_bps = isnan(hv.disk_write_bps) ? 0 : hv.disk_write_bps;
    h.ndisks = 1;
    h.disks = &disk;
    rc = gw_store_put_host_sample(st, &h);
  }
  if (!rc)
    rc = gw_store_finish_run(st, SYNTH_T0_NS + nticks * SYNTH_DT_NS, 0);
  if (!rc)
    rc = gw_store_commit(st);
  gw_store_close(st);
  return rc ? -1 : 0;
}

/* ---- shapes of the workloads measured on the H200 ---- */

/* A few seconds of start-up (imports, model build) with the GPU idle. */
#define SYNTH_STARTUP_S 3.0

/* The recorder's tick number at t: the shapes alternate their readings by it. */
static inline long synth_tick(double t) {
  return (long)(t * 10);
}

/* One GPU tick; pstate NAN: not read (stored as NULL). */
static inline void synth_gpu_tick(struct synth_gpu *o, double util, double sm, double power_w, double clock_mhz,
                                  double reasons, double pstate, double pcie_rx_bps, double mem_used_frac) {
  *o = (struct synth_gpu){util, sm, power_w, clock_mhz, reasons, pstate, pcie_rx_bps, mem_used_frac};
}

/* One host tick: the target's main thread and its loader workers. */
static inline void synth_host_tick(struct synth_host *o, double main_cpu, double main_running, int workers,
                                   double worker_cpu) {
  o->main_cpu = main_cpu;
  o->main_running = main_running;
  o->workers = workers;
  if (workers > 0)
    o->worker_cpu = worker_cpu;
}

/* Idle at the base clock, reason GPU idle (0x1), P-state not read. */
static inline void synth_idle(struct synth_gpu *o) {
  synth_gpu_tick(o, 0, 0, 75, 345, 0x1, NAN, 1e6, 0.01);
}

/* Idle through start-up: 1 when t is past it and the shape's own reading is wanted. */
static inline int synth_started(double t, struct synth_gpu *o) {
  if (t >= SYNTH_STARTUP_S)
    return 1;
  synth_idle(o);
  return 0;
}

/* 64x64 element-wise storm: util 13-25%, SM 0.1%, 130 W, main thread pinned. */
static inline void gpu_storm(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (synth_started(t, o))
    synth_gpu_tick(o, 17 + 8 * (synth_tick(t) % 2), 0.1 + 0.1 * (synth_tick(t) % 3 == 0), 130, 1980, 0, 0, 2e6, 0.02);
}
static inline void host_storm(double t, struct synth_host *o) {
  synth_host_tick(o, t < SYNTH_STARTUP_S ? 60 : 99, 1, 0, NAN);
}

/* bf16 GEMM at the power cap: util 100%, SM 95%, 690 W, 0x4, 1410 MHz. */
static inline void gpu_gemm(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (synth_started(t, o))
    synth_gpu_tick(o, 100, 95 + (synth_tick(t) % 2), 688, 1410, 0x4, 0, 5e6, 0.3);
}
static inline void host_gemm(double t, struct synth_host *o) {
  (void)t;
  synth_host_tick(o, 35, 0, 0, NAN);
}

/* Starved: util 11%, SM 9.5%, 231 W, four loader workers pinned at 100%. */
static inline void gpu_starved(int gpu, double t, struct synth_gpu *o) {
  (void)gpu;
  if (synth_started(t, o))
    synth_gpu_tick(o, 11 + (synth_tick(t) % 3), 9.5 + 0.5 * (synth_tick(t) % 2), 231, 1980, 0, 0, 3e8, 0.05);
}
static inline void host_starved(double t, struct synth_host *o) {
  (void)t;
  synth_host_tick(o, 25, 0, 4, 99);
  o->disk_util = 10;
}

#endif
