/* The recording: one SQLite file per run (WAL, a commit at least every
 * second, versioned schema). Plain SQL is enough to query it; the tables are
 * documented in docs/RECORDING.md. */
#ifndef GW_STORE_H
#define GW_STORE_H

#include "../core/sample.h"
#include "../core/util.h"

/* 2: tables step_flops (FLOPs of a counted step), thread_info and thread_sample (the thread
 * sampler), py_frame and py_sample (the Python stack sampler). Every version from 1 up is read: a reader
 * checks for the tables a version added. */
#define GW_STORE_SCHEMA_VERSION 2
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
/* How many times gw_store_open was called in this process (a test's
 * count of how often an output opens its recording). */
unsigned long gw_store_file_opens(void);
/* Open a recording held in memory (a whole file's bytes, copied), read-only,
 * with the same checks as gw_store_open: for readers of recordings that are
 * not files (the fuzzer's inputs). name stands for the path in messages.
 * A header in WAL mode is read as a file without its -wal is. */
GW_NODISCARD gw_status gw_store_open_buffer(struct gw_store **out, const void *data, size_t size, const char *name,
                                            struct gw_err *err);
/* Commit what is pending and close. NULL is fine. */
void gw_store_close(struct gw_store *st);

/* Open the recording at path read-only, count and close it: the count, or
 * -1 when the file cannot be read. Runs: 1 for a finished recording (a
 * recorder that failed before it began leaves none). Events of one kind
 * ("fixed_batch": the batches the hook replayed). */
long gw_store_count_runs(const char *path);
long gw_store_count_events(const char *path, const char *kind);
/* 1 when path is a SQLite file carrying gpuwhy's application id (a file
 * without SQLite's header is never opened as a database; another tool's
 * SQLite export is only read); 0 otherwise. */
int gw_store_file_is_recording(const char *path);
/* Whether a new recording may be written at path: GW_OK when nothing is
 * there, or a gpuwhy recording is (it is replaced), or force is set and a
 * regular file is there; else GW_EINPUT with the reason (a file of the user's,
 * a folder, a device) so that `-o train.py` never destroys train.py. */
GW_NODISCARD gw_status gw_store_check_replace(const char *path, int force, struct gw_err *err);
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

/* The thread sampler's rows (docs/RECORDING.md): a thread's role and name,
 * replaced when it changes; one sample of one thread. syscall_nr < 0 and
 * cpu_ns < 0 are unknown (NULL). */
GW_NODISCARD gw_status gw_store_put_thread_info(struct gw_store *st, int tid, int pid, int role, const char *comm,
                                                int64_t first_t_ns);
GW_NODISCARD gw_status gw_store_put_thread_sample(struct gw_store *st, int64_t t_ns, int tid, int state, int wait,
                                                  int syscall_nr, int64_t cpu_ns);
/* Many samples at once: the recorder's drain writes hundreds a second, in
 * statements of many rows rather than one statement step per row. */
struct gw_store_thread_sample {
  int64_t t_ns, cpu_ns;
  int tid, state, wait, syscall_nr;
};
GW_NODISCARD gw_status gw_store_put_thread_samples(struct gw_store *st, const struct gw_store_thread_sample *rows,
                                                   size_t n);

/* Commit the open transaction when at least max_age_ns passed since it began
 * (monotonic clock), so a crash loses at most that much. */
GW_NODISCARD gw_status gw_store_commit_if_due(struct gw_store *st, int64_t max_age_ns);
GW_NODISCARD gw_status gw_store_commit(struct gw_store *st);

/* Damage found while reading (store_sql.h notes it): a step that ended in an
 * error (a corrupt page, an I/O error) rather than at the end of its table,
 * or a TEXT/BLOB value in a numeric column. The first one is kept, naming its
 * table; readers check gw_store_damage before they trust what they read
 * (exit 3, never a verdict from half a table). The first damage noted ("table gpu_sample: database disk image is
 * malformed"), NULL when none. */
const char *gw_store_damage(const struct gw_store *st);

/* The last SQLite error text, for messages. */
const char *gw_store_errmsg(struct gw_store *st);

#endif
