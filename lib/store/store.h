/* The recording: one SQLite file per run (WAL, a commit at least every
 * second, versioned schema). Plain SQL is enough to query it; the tables are
 * documented in docs/RECORDING.md. */
#ifndef GW_STORE_H
#define GW_STORE_H

#include <sqlite3.h>

#include "../core/sample.h"
#include "../core/util.h"

#define GW_STORE_SCHEMA_VERSION 2          /* 2: py_frame, py_sample */
#define GW_STORE_APPLICATION_ID 0x47505557 /* "GPUW" */

struct gw_store;

/* Facts of the run, written once at start. Strings may be NULL. */
struct gw_run_info {
  int64_t started_ns;
  const char *command_json; /* JSON array of argv */
  const char *cwd;
  int target_pid;
  const char *hostname, *kernel, *cpu_model;
  int logical_cpus, physical_cores;
  int64_t mem_total_bytes;
  const char *driver_version, *nvml_version;
  int cuda_driver_version;
  int interval_ms;
  const char *gpu_note; /* why there is no GPU data, NULL when there is */
  const char *source;   /* "record", "import:kineto", ... */
};

/* Create a new recording at path (an existing file is replaced). */
GW_NODISCARD gw_status gw_store_create(struct gw_store **out, const char *path, struct gw_err *err);
/* Open an existing recording. readonly: no migration, no writes. Checks that
 * the file is a gpuwhy recording of a schema this build reads. */
GW_NODISCARD gw_status gw_store_open(struct gw_store **out, const char *path, int readonly, struct gw_err *err);
/* Commit what is pending and close. NULL is fine. */
void gw_store_close(struct gw_store *st);

sqlite3 *gw_store_db(struct gw_store *st);

/* Opens the recording at path read-only, runs sql (one count) and closes it:
 * the count, or -1 when the file or the query cannot be read. */
long gw_store_count_rows(const char *path, const char *sql);
/* 1 when the recording has this table (optional tables: tracer, nccl_log). */
int gw_store_table_exists(sqlite3 *db, const char *name);
/* 1 when the table has the column: recordings made before a column was added lack it. */
int gw_store_column_exists(sqlite3 *db, const char *table, const char *column);
/* 1 when path is a SQLite file carrying gpuwhy's application id (a file
 * without SQLite's header is never opened as a database; another tool's
 * SQLite export is only read); 0 otherwise. */
int gw_store_file_is_recording(const char *path);
/* Unlinks a recording and the side files SQLite may have left beside it
 * (-wal, -shm, -journal). */
void gw_store_remove_files(const char *path);
const char *gw_store_path(const struct gw_store *st);

GW_NODISCARD gw_status gw_store_put_run(struct gw_store *st, const struct gw_run_info *run);
GW_NODISCARD gw_status gw_store_finish_run(struct gw_store *st, int64_t ended_ns, int exit_status);
GW_NODISCARD gw_status gw_store_put_env(struct gw_store *st, const char *name, const char *value);
GW_NODISCARD gw_status gw_store_put_meta(struct gw_store *st, const char *key, const char *value);
GW_NODISCARD gw_status gw_store_put_gpu_info(struct gw_store *st, const struct gw_gpu_info *info);
/* what: GW_TABLE_FAST and/or GW_TABLE_SLOW bits (1 << table) choose the rows written. */
GW_NODISCARD gw_status gw_store_put_gpu_sample(struct gw_store *st, const struct gw_gpu_sample *s, unsigned what);
GW_NODISCARD gw_status gw_store_put_gpu_proc(struct gw_store *st, const struct gw_gpu_proc *p);
GW_NODISCARD gw_status gw_store_put_host_sample(struct gw_store *st, const struct gw_host_sample *h);
GW_NODISCARD gw_status gw_store_put_event(struct gw_store *st, const struct gw_event *ev);
GW_NODISCARD gw_status gw_store_put_step(struct gw_store *st, int64_t start_ns, int64_t end_ns, int64_t step,
                                         const char *source);

/* Commit the open transaction when at least max_age_ns passed since it began
 * (monotonic clock), so a crash loses at most that much. */
GW_NODISCARD gw_status gw_store_commit_if_due(struct gw_store *st, int64_t max_age_ns);
GW_NODISCARD gw_status gw_store_commit(struct gw_store *st);

/* The last SQLite error text, for messages. */
const char *gw_store_errmsg(struct gw_store *st);

#endif
