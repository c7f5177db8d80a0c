/* Where every importer writes: a new recording through the store APIs
 * (gw_store_put_*) and the tracer's tables (gw_store_trace callbacks with
 * tracer/wire.h records), so imported kernels land in the very tables the
 * tracer fills and the report's timeline reads.
 *
 * The sink also holds what the formats share: names interned per process in
 * a bounded table, the mapping of (input file, CUDA device) to recording GPU
 * indices (ranks side by side), counts, periodic commits, and a short queue
 * for GPU records that come before their process id is known. Memory stays
 * bounded whatever the input size. */
#ifndef GW_IMPORT_SINK_H
#define GW_IMPORT_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "../../tracer/wire_encode.h"
#include "core/sample.h"
#include "core/util.h"
#include "store/store.h"

/* pids above Linux's largest (2^22) stand for processes the trace does not
 * name, or whose pid another input already took. */
#define GW_SINK_SYNTHETIC_PID_BASE 4194304u
#define GW_SINK_MAX_GPU_INDEX 4096

struct gw_import_counts {
  uint64_t events, kernels, memcpys, memsets, syncs, api_calls, markers, steps, gpu_samples, skipped;
};

struct gw_import_sink;

/* Create the recording at path with run.source = source. */
GW_NODISCARD gw_status gw_sink_open(struct gw_import_sink **out, const char *path, const char *source,
                                    struct gw_err *err);
/* Write the run's time span and the counts, commit. */
GW_NODISCARD gw_status gw_sink_finish(struct gw_import_sink *s, struct gw_err *err);
void gw_sink_close(struct gw_import_sink *s);

struct gw_import_counts *gw_sink_counts(struct gw_import_sink *s);
struct gw_store *gw_sink_store(struct gw_import_sink *s);
/* The store, taken out of the sink: gw_sink_close leaves it open (the caller closes it). */
struct gw_store *gw_sink_take_store(struct gw_import_sink *s);
int gw_sink_gpu_count(const struct gw_import_sink *s);

/* A new traced process (one input file). With pid_known = 0 the GPU records
 * wait in a short queue until gw_sink_set_pid() or gw_sink_end_process(). */
GW_NODISCARD gw_status gw_sink_begin_process(struct gw_import_sink *s, int input_index, int pid_known, int64_t pid,
                                             struct gw_err *err);
GW_NODISCARD gw_status gw_sink_set_pid(struct gw_import_sink *s, int64_t pid, struct gw_err *err);
int gw_sink_pid_known(const struct gw_import_sink *s);
/* Flush the queue, write the process's trace window; returns the pid used. */
GW_NODISCARD gw_status gw_sink_end_process(struct gw_import_sink *s, uint32_t *pid_used, struct gw_err *err);

/* Static facts of a CUDA device as an input file describes it, written to
 * the gpu table when a record first uses the device. */
struct gw_sink_device {
  int input_index;
  uint32_t device;
  char name[96];
  uint64_t mem_total_bytes;
  int num_sms, cc_major, cc_minor, max_threads_per_sm; /* 0 unknown */
};
void gw_sink_add_device(struct gw_import_sink *s, const struct gw_sink_device *d);
/* Recording GPU index for a device of the current input (-1 when the index
 * space is full, which only a corrupt file can cause). */
int gw_sink_gpu_for(struct gw_import_sink *s, uint32_t device, struct gw_err *err);

/* Records of the current process. The *_named variants take the name text;
 * the record's name field is filled in. Times are CLOCK_REALTIME ns. */
GW_NODISCARD gw_status gw_sink_kernel(struct gw_import_sink *s, struct gw_wire_kernel *k, const char *name,
                                      size_t name_len, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_memcpy(struct gw_import_sink *s, struct gw_wire_memcpy *m, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_memset(struct gw_import_sink *s, struct gw_wire_memset *m, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_sync(struct gw_import_sink *s, struct gw_wire_sync *y, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_api(struct gw_import_sink *s, struct gw_wire_api *a, struct gw_err *err);
/* A range on a CPU thread or a GPU stream; domain says which kind. */
GW_NODISCARD gw_status gw_sink_marker(struct gw_import_sink *s, struct gw_wire_marker *m, const char *name,
                                      size_t name_len, const char *domain, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_step(struct gw_import_sink *s, int64_t start_ns, int64_t end_ns, int64_t step,
                                    const char *source, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_gpu_sample(struct gw_import_sink *s, const struct gw_gpu_sample *g, unsigned what,
                                          struct gw_err *err);
GW_NODISCARD gw_status gw_sink_gpu_info(struct gw_import_sink *s, const struct gw_gpu_info *info, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_meta(struct gw_import_sink *s, const char *key, const char *value, struct gw_err *err);
GW_NODISCARD gw_status gw_sink_metaf(struct gw_import_sink *s, struct gw_err *err, const char *key, const char *fmt,
                                     ...) GW_PRINTF(4, 5);
/* Widen the run's time span. */
void gw_sink_saw_time(struct gw_import_sink *s, int64_t start_ns, int64_t end_ns);

#endif
