/* The analysis's fillers of windowed SM activity (the table of fillers is in
 * record/gpu_backends.c): SM activity from CUPTI PM sampling, or SM activity
 * and occupancy estimated from the traced kernels' launch configurations,
 * for GPUs whose backend gave none (NVML without GPM: everything before
 * Hopper, and recordings made with record --no-gpm).
 *
 * Per kernel: the resident blocks per SM its configuration allows (threads,
 * registers, shared memory, the blocks-per-SM cap), the theoretical
 * occupancy, the waves (blocks / (SMs x resident blocks)) and the share of
 * SMs it keeps busy. Per GPU: those shares weighted by the kernels' time in
 * each sample interval, an estimate of GPM's SM activity. The arithmetic is
 * pure (unit-tested); gw_sm_fill streams a recording's kernels, device
 * records and PM samples through the store's iterators (store_iter.h). */
#ifndef GW_SM_FILL_H
#define GW_SM_FILL_H

#include <stdint.h>

struct gw_store;

/* One GPU's limits (the tracer's DEVICE record, CUPTI's device activity). */
struct gw_sm_limits {
  int sm_count;
  int max_warps_per_sm;
  int max_blocks_per_sm;
  int max_regs_per_sm;
  int max_shmem_per_sm_bytes;
  int threads_per_warp;
  int cc_major, cc_minor;
};

/* One kernel's launch configuration (the kernel table's columns). */
struct gw_launch_config {
  int64_t blocks;        /* grid x * y * z */
  int threads_per_block; /* block x * y * z */
  int regs_per_thread;   /* 0: unknown, no register limit applied */
  int64_t shmem_bytes;   /* static + dynamic shared memory per block */
};

enum gw_occupancy_limiter {
  GW_OCC_LIMIT_BLOCKS,  /* the hardware's blocks-per-SM cap */
  GW_OCC_LIMIT_WARPS,   /* threads per block against warps per SM */
  GW_OCC_LIMIT_REGS,    /* registers */
  GW_OCC_LIMIT_SHMEM,   /* shared memory */
  GW_OCC_LIMIT_INVALID, /* limits or configuration unusable */
};

struct gw_occupancy {
  int blocks_per_sm; /* resident blocks per SM; 0 when the configuration or limits are unusable */
  enum gw_occupancy_limiter limiter;
  double occupancy_pct;        /* resident warps per SM against the maximum, full waves */
  double waves;                /* blocks / (SMs x resident blocks per SM) */
  double sm_active_share;      /* time-averaged share of SMs holding at least one block, 0..1 */
  double warp_occupancy_share; /* time-averaged resident warps against SMs x max warps, 0..1 */
};

/* GPU device's limits from the tracer's DEVICE record (trace_device); 0 when
 * the recording has none usable. */
int gw_sm_limits_read(struct gw_store *st, int device, struct gw_sm_limits *lim);

/* The occupancy of one launch on one GPU. */
struct gw_occupancy gw_occupancy_of(const struct gw_sm_limits *lim, const struct gw_launch_config *cfg);

/* Where a GPU's SM activity comes from (gw_gpu_series.sm_activity_source). */
enum gw_sm_activity_source {
  GW_SM_SOURCE_NONE,
  GW_SM_SOURCE_GPM,
  GW_SM_SOURCE_PM_SAMPLING,
  GW_SM_SOURCE_DCGM,
  GW_SM_SOURCE_LAUNCH_CONFIG,
};
/* "gpm", "pm_sampling", "dcgm", "launch_config", "none" (JSON and docs). */
const char *gw_sm_activity_source_name(enum gw_sm_activity_source s);

struct gw_recording;

/* For each GPU of rec whose recording has no GPM SM activity, takes it from
 * CUPTI PM sampling (pm_sample) where the tracer ran it, else estimates it
 * (and SM occupancy) per sample tick from the traced kernels and the
 * trace_device table, and sets sm_activity_source. Ticks the trace did not
 * cover (outside a sampled trace's windows) stay unknown. */
void gw_sm_fill(struct gw_store *st, struct gw_recording *rec);

#endif
