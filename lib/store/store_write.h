/* Writes into a recording beyond the gw_store_put_* rows of store.h, for the
 * recorder's collectors (lib/record) and the importers (lib/import), so that
 * only lib/store talks SQL. Every write joins the store's open transaction
 * (gw_store_commit_if_due / gw_store_commit close it): the recorder commits
 * once a second, the import every 100,000 rows. */
#ifndef GW_STORE_WRITE_H
#define GW_STORE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "store_trace.h"

struct gw_store;

/* The tracer-record writer of store_trace.h on this recording. */
GW_NODISCARD gw_status gw_store_trace_open_on(struct gw_store_trace **out, struct gw_store *st, struct gw_err *err);

/* A recording written by one process and seen by no reader until it is
 * complete (an import's temporary file): no journal, no syncs, every page
 * written once. gw_store_bulk_end syncs it and turns WAL back on, as every
 * recording has. */
GW_NODISCARD gw_status gw_store_bulk_begin(struct gw_store *st);
GW_NODISCARD gw_status gw_store_bulk_end(struct gw_store *st);

/* NCCL's debug lines (table nccl_log, created when absent). */
struct gw_store_nccl_log;
GW_NODISCARD gw_status gw_store_nccl_log_open(struct gw_store_nccl_log **out, struct gw_store *st, struct gw_err *err);
/* pid < 0: unknown. The line is len bytes, not NUL-terminated. */
GW_NODISCARD gw_status gw_store_nccl_log_put(struct gw_store_nccl_log *w, int64_t t_ns, long pid, const char *line,
                                             size_t len);
void gw_store_nccl_log_close(struct gw_store_nccl_log *w);

/* A training step with what the Python hook knows of it (table step). A
 * negative pid, rank, batch_size or samples is unknown (NULL). */
struct gw_store_step_row {
  int64_t start_ns, end_ns, step;
  const char *source; /* static text: "python_hook", ... */
  int64_t pid, rank;
  int64_t data_wait_ns;
  int64_t batch_size, samples;
  int64_t compile_ns; /* time in torch.compile within the step; negative unknown */
  const char *shape;  /* the first input tensor's shape, "16x128"; NULL unknown */
};
struct gw_store_steps;
GW_NODISCARD gw_status gw_store_steps_open(struct gw_store_steps **out, struct gw_store *st, struct gw_err *err);
GW_NODISCARD gw_status gw_store_steps_put(struct gw_store_steps *w, const struct gw_store_step_row *row);
/* Deletes the steps of source drop in every process that also has steps of
 * source keep: how many went, or -1 when the deletion failed. */
long gw_store_steps_drop_where_also(struct gw_store_steps *w, const char *drop, const char *keep);
void gw_store_steps_close(struct gw_store_steps *w);

/* The FLOPs of one counted step (table step_flops). Negative step, pid,
 * rank, batch_size, counted_ns: unknown (NULL). */
struct gw_store_step_flops_row {
  int64_t step, pid, rank;
  int64_t flops;
  const char *dtype_flops_json; /* {"bfloat16": n, ...}; NULL unknown */
  int64_t batch_size, counted_ns;
  const char *source; /* static text: "python_hook", "kineto" */
};
struct gw_store_step_flops;
GW_NODISCARD gw_status gw_store_step_flops_open(struct gw_store_step_flops **out, struct gw_store *st,
                                                struct gw_err *err);
GW_NODISCARD gw_status gw_store_step_flops_put(struct gw_store_step_flops *w,
                                               const struct gw_store_step_flops_row *row);
void gw_store_step_flops_close(struct gw_store_step_flops *w);
/* The Python hook's stack samples (tables py_frame and py_sample). */
struct gw_store_py_samples;
GW_NODISCARD gw_status gw_store_py_samples_open(struct gw_store_py_samples **out, struct gw_store *st,
                                                struct gw_err *err);
/* A user frame; id is the recording's (global) frame id. */
GW_NODISCARD gw_status gw_store_py_frame_put(struct gw_store_py_samples *w, int64_t id, const char *file, int64_t line,
                                             const char *func);
/* One sample; activity is an enum gw_py_activity, frame < 0 unknown (NULL). */
GW_NODISCARD gw_status gw_store_py_sample_put(struct gw_store_py_samples *w, int64_t t_ns, int64_t pid, int64_t tid,
                                              int activity, int64_t frame);
void gw_store_py_samples_close(struct gw_store_py_samples *w);

/* Rows of table in the open recording (pending rows included), -1 when the
 * table cannot be read (absent). */
long gw_store_rows_in(struct gw_store *st, const char *table);

#endif
