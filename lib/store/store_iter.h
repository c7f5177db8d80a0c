/* Streaming reads of a recording's big or optional tables: the tracer's
 * kernels, copies, host calls and markers, its device and window records,
 * PM samples, NCCL's log. A table of millions of rows is never held whole:
 * the caller takes one row at a time and keeps what it needs. The analysis,
 * the renderers and serve read the recording through these and through the
 * model of store_load.h; only lib/store knows SQL and the schema.
 *
 * Every iterator is opened on a store open for reading and returns NULL when
 * its table is absent or cannot be read (an optional table: the caller's
 * part stays empty). gw_store_next_* returns 1 with a row, 0 at the end; a
 * row's strings stay valid until the next call. Close with
 * gw_store_iter_close (NULL is fine). */
#ifndef GW_STORE_ITER_H
#define GW_STORE_ITER_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

struct gw_store;
struct gw_store_iter;

void gw_store_iter_close(struct gw_store_iter *it);

/* 1 when the recording has this table (the tracer's tables are optional). */
int gw_store_has_table(struct gw_store *st, const char *name);

/* ---- kernels (the tracer's kernel table) ---- */

/* Kernel names, keyed by (pid, id) as the tracer numbered them per
 * process, in the order of their text (equal texts adjacent). */
struct gw_store_name_row {
  int64_t pid, id;
  const char *text; /* never NULL */
};
struct gw_store_iter *gw_store_iter_names(struct gw_store *st);
int gw_store_next_name(struct gw_store_iter *it, struct gw_store_name_row *row);

/* One GPU's kernels with both timestamps, in start order. */
struct gw_store_kernel_row {
  int64_t pid, start_ns, end_ns;
  int64_t name_id; /* -1 when the row has none */
  int32_t grid[3];
  int threads_per_block; /* block x * y * z; 0 unknown */
  int regs_per_thread;   /* 0 unknown */
  int64_t shmem_bytes;   /* static + dynamic per block */
};
struct gw_store_iter *gw_store_iter_kernels(struct gw_store *st, int device);
int gw_store_next_kernel(struct gw_store_iter *it, struct gw_store_kernel_row *row);

/* One GPU's kernels that ran for a time and carry a launch configuration
 * (grid and block given), in the table's order. */
struct gw_store_launch_row {
  int64_t start_ns, end_ns;
  int64_t blocks;        /* grid x * y * z */
  int threads_per_block; /* block x * y * z */
  int regs_per_thread;   /* 0 unknown */
  int64_t shmem_bytes;   /* static + dynamic per block */
};
struct gw_store_iter *gw_store_iter_launches(struct gw_store *st, int device);
int gw_store_next_launch(struct gw_store_iter *it, struct gw_store_launch_row *row);

/* ---- the tracer's device and window records, PM sampling ---- */

/* A GPU's limits as the tracer's DEVICE record gave them (trace_device). */
struct gw_store_device_row {
  int sm_count, max_warps_per_sm, max_blocks_per_sm, max_regs_per_sm, max_shmem_per_sm_bytes, threads_per_warp;
  int cc_major, cc_minor;
};
/* 1 and *row filled when the recording has a DEVICE record with an SM count
 * for this GPU; 0 (and *row zeroed) otherwise. */
int gw_store_trace_device(struct gw_store *st, int device, struct gw_store_device_row *row);

/* Every trace window (full or sampled, every process) longer than zero, in
 * the table's order. */
struct gw_store_span_row {
  int64_t start_ns, end_ns;
};
struct gw_store_iter *gw_store_iter_trace_windows(struct gw_store *st);
int gw_store_next_span(struct gw_store_iter *it, struct gw_store_span_row *row);

/* The longest sampling period of a sampled trace's processes, ms; -1 when
 * no process was traced in sampled mode. */
int64_t gw_store_trace_sampled_period_max_ms(struct gw_store *st);

/* One GPU's CUPTI PM samples (pm_sample) with a positive length and
 * elapsed SM cycles: the share of those cycles the SMs were active (not
 * clamped; may be outside 0..1 on a damaged file). */
struct gw_store_pm_row {
  int64_t start_ns, end_ns;
  double sm_active_share;
};
struct gw_store_iter *gw_store_iter_pm_samples(struct gw_store *st, int device);
int gw_store_next_pm(struct gw_store_iter *it, struct gw_store_pm_row *row);

/* ---- NCCL ---- */

/* The run's NCCL_* environment rows (env table); name or value NULL when
 * the row holds NULL. */
struct gw_store_env_row {
  const char *name, *value;
};
struct gw_store_iter *gw_store_iter_nccl_env(struct gw_store *st);
int gw_store_next_env(struct gw_store_iter *it, struct gw_store_env_row *row);

/* NCCL_DEBUG lines (nccl_log) in time order. *err is set and NULL returned
 * when the table exists but cannot be read; NULL with err untouched when the
 * recording has no such table (gw_store_has_table tells which). */
struct gw_store_nccl_row {
  int64_t pid;      /* -1 when the row's pid is not an integer */
  const char *line; /* NULL when the row holds none */
};
struct gw_store_iter *gw_store_iter_nccl_log(struct gw_store *st, struct gw_err *err);
int gw_store_next_nccl(struct gw_store_iter *it, struct gw_store_nccl_row *row);

/* ---- every traced record, for the timeline export ---- */

enum gw_store_trace_kind {
  GW_STORE_TRACE_KERNEL,
  GW_STORE_TRACE_MEMCPY,
  GW_STORE_TRACE_MEMSET,
  GW_STORE_TRACE_SYNC,   /* the host waiting for the GPU */
  GW_STORE_TRACE_MARKER, /* an NVTX range or mark */
};

/* One traced record with a start time. Numbers the row does not hold are
 * 0, except device (-1). */
struct gw_store_trace_row {
  enum gw_store_trace_kind kind;
  int64_t pid;
  int64_t lane;             /* the stream; a marker's thread */
  int64_t start_ns, end_ns; /* end_ns = start_ns when the row has no end */
  const char *name;         /* kernel or marker name, NULL when unknown */
  int64_t device;
  /* kernel: NCCL (1) or not; memcpy: the copy kind (CUPTI's numbering);
   * sync: the sync type; marker: an instant (1) or a range */
  int64_t flag;
  int64_t grid[3], block[3], regs, shmem_bytes; /* kernels */
  int64_t bytes;                                /* copies and memsets */
  int64_t async;                                /* copies */
  int64_t correlation;
};
/* Kernels, copies, memsets, synchronizations and markers in one stream
 * ordered by start; NULL unless the recording has all the tracer's tables. */
struct gw_store_iter *gw_store_iter_trace(struct gw_store *st);
int gw_store_next_trace(struct gw_store_iter *it, struct gw_store_trace_row *row);
/* The earliest start among those records: 1 and *t_ns, or 0 when there is
 * none (no tracer tables, no rows). */
int gw_store_trace_first_start(struct gw_store *st, int64_t *t_ns);

/* ---- the newest samples, for the Prometheus exporter ---- */

/* Xid and GPU-lost events after after_ns, in time order. */
struct gw_store_fault_row {
  int64_t t_ns;
  const char *kind; /* "xid" or "gpu_lost"; NULL when the row holds none */
  int gpu;          /* -1 when not tied to a GPU */
  int64_t code;     /* the Xid */
};
struct gw_store_iter *gw_store_iter_gpu_faults(struct gw_store *st, int64_t after_ns);
int gw_store_next_fault(struct gw_store_iter *it, struct gw_store_fault_row *row);

/* Per GPU, the compute processes of the process lists (gpu_proc) taken at
 * most within_ns before the newest GPU sample: how many distinct ones, and
 * their device memory in all (NAN unknown). */
struct gw_store_gpu_procs_row {
  int gpu;
  double processes, mem_used_bytes;
};
struct gw_store_iter *gw_store_iter_gpu_procs_recent(struct gw_store *st, int64_t within_ns);
int gw_store_next_gpu_procs(struct gw_store_iter *it, struct gw_store_gpu_procs_row *row);

/* The newest known value of each named host_sample column among the rows
 * at most within_ns older than the newest (slow columns are filled about
 * once a second): v[i] for columns[i], NAN when none is known or the file
 * has no such column. */
void gw_store_host_latest(struct gw_store *st, int64_t within_ns, const char *const *columns, size_t ncolumns,
                          double *v);

/* The disks' newest sample, one row per device in name order; v[] NAN where
 * unknown, in the order of enum gw_store_disk_field. */
enum gw_store_disk_field {
  GW_STORE_DISK_UTIL_PCT,
  GW_STORE_DISK_AWAIT_MS,
  GW_STORE_DISK_READS_PER_S,
  GW_STORE_DISK_WRITES_PER_S,
  GW_STORE_DISK_READ_BPS,
  GW_STORE_DISK_WRITE_BPS,
  GW_STORE_DISK_QUEUE_LENGTH,
  GW_STORE_DISK_NFIELDS
};
struct gw_store_disk_row {
  const char *dev; /* NULL when the row holds none */
  double v[GW_STORE_DISK_NFIELDS];
};
struct gw_store_iter *gw_store_iter_disks_latest(struct gw_store *st);
int gw_store_next_disk(struct gw_store_iter *it, struct gw_store_disk_row *row);

#endif
