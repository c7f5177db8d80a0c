/* Writes for the collectors and importers (see store_write.h). */
#include "store_write.h"
#include "store_sql.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "store.h"

gw_status gw_store_trace_open_on(struct gw_store_trace **out, struct gw_store *st, struct gw_err *err) {
  return gw_store_trace_open(out, gw_store_db(st), err);
}

gw_status gw_store_bulk_begin(struct gw_store *st) {
  return sqlite3_exec(gw_store_db(st), "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", NULL, NULL, NULL) ==
                 SQLITE_OK
             ? GW_OK
             : GW_EIO;
}

gw_status gw_store_bulk_end(struct gw_store *st) {
  /* the switch to WAL itself writes and syncs the file */
  return sqlite3_exec(gw_store_db(st), "PRAGMA synchronous=NORMAL; PRAGMA journal_mode=WAL;", NULL, NULL, NULL) ==
                 SQLITE_OK
             ? GW_OK
             : GW_EIO;
}

/* One prepared INSERT kept for the life of a collector. */
static gw_status step_insert(sqlite3_stmt *s) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc == SQLITE_DONE ? GW_OK : GW_EIO;
}

/* The INSERT a writer keeps for its life, prepared after create_sql (NULL:
 * none) made its table where an older recording lacks it. On failure the
 * error says what could not be done (fail_what) and *insert is NULL. */
static gw_status prepare_insert(sqlite3 *db, const char *create_sql, const char *insert_sql, const char *fail_what,
                                sqlite3_stmt **insert, struct gw_err *err) {
  *insert = NULL;
  if ((create_sql && sqlite3_exec(db, create_sql, NULL, NULL, NULL) != SQLITE_OK) ||
      sqlite3_prepare_v2(db, insert_sql, -1, insert, NULL) != SQLITE_OK) {
    gw_err_set(err, "recording: %s: %s", fail_what, sqlite3_errmsg(db));
    sqlite3_finalize(*insert);
    *insert = NULL;
    return GW_ERR;
  }
  return GW_OK;
}

/* What the writers of one table (NCCL lines, steps, step FLOPs) hold: their
 * INSERT, and the database it was prepared on (the steps also DELETE). Each
 * writer's struct has it as its only member, so one open and one close serve
 * all three. */
struct one_table_writer {
  sqlite3 *db;
  sqlite3_stmt *insert;
};

/* Allocates a writer of writer_bytes whose first member is a one_table_writer
 * (prepare_insert says what create_sql and fail_what are); NULL on failure. */
static void *one_table_writer_open(size_t writer_bytes, struct gw_store *st, const char *create_sql,
                                   const char *insert_sql, const char *fail_what, struct gw_err *err) {
  sqlite3 *db = gw_store_db(st);
  sqlite3_stmt *insert;
  if (prepare_insert(db, create_sql, insert_sql, fail_what, &insert, err) != GW_OK)
    return NULL;
  struct one_table_writer *w = gw_xcalloc(1, writer_bytes);
  w->db = db;
  w->insert = insert;
  return w;
}

static void one_table_writer_close(struct one_table_writer *w) {
  if (!w)
    return;
  sqlite3_finalize(w->insert);
  free(w);
}

/* ---- NCCL debug lines ---- */

struct gw_store_nccl_log {
  struct one_table_writer table;
};

gw_status gw_store_nccl_log_open(struct gw_store_nccl_log **out, struct gw_store *st, struct gw_err *err) {
  *out = one_table_writer_open(
      sizeof **out, st, "CREATE TABLE IF NOT EXISTS nccl_log (t_ns INTEGER, pid INTEGER, line TEXT);",
      "INSERT INTO nccl_log (t_ns, pid, line) VALUES (?, ?, ?)", "cannot create the nccl_log table", err);
  return *out ? GW_OK : GW_ERR;
}

gw_status gw_store_nccl_log_put(struct gw_store_nccl_log *w, int64_t t_ns, long pid, const char *line, size_t len) {
  sqlite3_stmt *s = w->table.insert;
  sqlite3_bind_int64(s, 1, t_ns);
  gw_store_bind_opt_int(s, 2, pid >= 0, pid);
  sqlite3_bind_text(s, 3, line, (int)len, SQLITE_TRANSIENT);
  return step_insert(s);
}

void gw_store_nccl_log_close(struct gw_store_nccl_log *w) {
  one_table_writer_close(w ? &w->table : NULL);
}

/* ---- steps with their process, rank, data wait and batch ---- */

struct gw_store_steps {
  struct one_table_writer table;
};

gw_status gw_store_steps_open(struct gw_store_steps **out, struct gw_store *st, struct gw_err *err) {
  *out =
      one_table_writer_open(sizeof **out, st, NULL,
                            "INSERT INTO step (t_start_ns, t_end_ns, step, source, pid, rank, data_wait_ns, batch_size,"
                            " samples, compile_ns, shape) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                            "cannot write the step table", err);
  return *out ? GW_OK : GW_ERR;
}

gw_status gw_store_steps_put(struct gw_store_steps *w, const struct gw_store_step_row *row) {
  sqlite3_stmt *s = w->table.insert;
  sqlite3_bind_int64(s, 1, row->start_ns);
  sqlite3_bind_int64(s, 2, row->end_ns);
  sqlite3_bind_int64(s, 3, row->step);
  sqlite3_bind_text(s, 4, row->source, -1, SQLITE_TRANSIENT);
  gw_store_bind_opt_int(s, 5, row->pid >= 0, row->pid);
  gw_store_bind_opt_int(s, 6, row->rank >= 0, row->rank);
  gw_store_bind_opt_int(s, 7, row->data_wait_ns >= 0, row->data_wait_ns);
  gw_store_bind_opt_int(s, 8, row->batch_size >= 0, row->batch_size);
  gw_store_bind_opt_int(s, 9, row->samples >= 0, row->samples);
  gw_store_bind_opt_int(s, 10, row->compile_ns >= 0, row->compile_ns);
  gw_store_bind_text(s, 11, row->shape);
  return step_insert(s);
}

long gw_store_steps_drop_where_also(struct gw_store_steps *w, const char *drop, const char *keep) {
  sqlite3_stmt *s = NULL;
  long n = -1;
  if (sqlite3_prepare_v2(w->table.db,
                         "DELETE FROM step WHERE source = ?1 AND pid IN"
                         " (SELECT DISTINCT pid FROM step WHERE source = ?2)",
                         -1, &s, NULL) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, drop, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, keep, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_DONE)
      n = (long)sqlite3_changes(w->table.db);
  }
  sqlite3_finalize(s);
  return n;
}

void gw_store_steps_close(struct gw_store_steps *w) {
  one_table_writer_close(w ? &w->table : NULL);
}

/* ---- the FLOPs of one counted step ---- */

struct gw_store_step_flops {
  struct one_table_writer table;
};

gw_status gw_store_step_flops_open(struct gw_store_step_flops **out, struct gw_store *st, struct gw_err *err) {
  /* IF NOT EXISTS: a recording of schema version 1 opened for writing (an import into it) gains the table */
  *out = one_table_writer_open(
      sizeof **out, st,
      "CREATE TABLE IF NOT EXISTS step_flops (step INTEGER, pid INTEGER, rank INTEGER, flops INTEGER NOT"
      " NULL, dtype_flops TEXT, batch_size INTEGER, counted_ns INTEGER, source TEXT);",
      "INSERT INTO step_flops (step, pid, rank, flops, dtype_flops, batch_size, counted_ns, source)"
      " VALUES (?,?,?,?,?,?,?,?)",
      "cannot write the step_flops table", err);
  return *out ? GW_OK : GW_ERR;
}

gw_status gw_store_step_flops_put(struct gw_store_step_flops *w, const struct gw_store_step_flops_row *row) {
  sqlite3_stmt *s = w->table.insert;
  gw_store_bind_opt_int(s, 1, row->step >= 0, row->step);
  gw_store_bind_opt_int(s, 2, row->pid >= 0, row->pid);
  gw_store_bind_opt_int(s, 3, row->rank >= 0, row->rank);
  sqlite3_bind_int64(s, 4, row->flops);
  gw_store_bind_text(s, 5, row->dtype_flops_json);
  gw_store_bind_opt_int(s, 6, row->batch_size > 0, row->batch_size);
  gw_store_bind_opt_int(s, 7, row->counted_ns >= 0, row->counted_ns);
  sqlite3_bind_text(s, 8, row->source, -1, SQLITE_TRANSIENT);
  return step_insert(s);
}

void gw_store_step_flops_close(struct gw_store_step_flops *w) {
  one_table_writer_close(w ? &w->table : NULL);
}

long gw_store_rows_in(struct gw_store *st, const char *table) {
  char sql[160];
  if (snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", table) >= (int)sizeof sql)
    return -1;
  sqlite3_stmt *s;
  long n = -1;
  if (sqlite3_prepare_v2(gw_store_db(st), sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_step(s) == SQLITE_ROW)
    n = (long)sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return n;
}

/* ---- the Python hook's stack samples ---- */

struct gw_store_py_samples {
  sqlite3_stmt *frame, *sample;
};

gw_status gw_store_py_samples_open(struct gw_store_py_samples **out, struct gw_store *st, struct gw_err *err) {
  *out = NULL;
  sqlite3 *db = gw_store_db(st);
  static const char fail_what[] = "cannot write the py_frame and py_sample tables";
  sqlite3_stmt *frame, *sample;
  if (prepare_insert(db, NULL, "INSERT INTO py_frame (id, file, line, func) VALUES (?,?,?,?)", fail_what, &frame,
                     err) != GW_OK)
    return GW_ERR;
  if (prepare_insert(db, NULL, "INSERT INTO py_sample (t_ns, pid, tid, activity, frame) VALUES (?,?,?,?,?)", fail_what,
                     &sample, err) != GW_OK) {
    sqlite3_finalize(frame);
    return GW_ERR;
  }
  struct gw_store_py_samples *w = gw_xcalloc(1, sizeof *w);
  w->frame = frame;
  w->sample = sample;
  *out = w;
  return GW_OK;
}

gw_status gw_store_py_frame_put(struct gw_store_py_samples *w, int64_t id, const char *file, int64_t line,
                                const char *func) {
  sqlite3_stmt *s = w->frame;
  sqlite3_bind_int64(s, 1, id);
  sqlite3_bind_text(s, 2, file, -1, SQLITE_TRANSIENT);
  gw_store_bind_opt_int(s, 3, line >= 0, line);
  sqlite3_bind_text(s, 4, func, -1, SQLITE_TRANSIENT);
  return step_insert(s);
}

gw_status gw_store_py_sample_put(struct gw_store_py_samples *w, int64_t t_ns, int64_t pid, int64_t tid, int activity,
                                 int64_t frame) {
  sqlite3_stmt *s = w->sample;
  sqlite3_bind_int64(s, 1, t_ns);
  sqlite3_bind_int64(s, 2, pid);
  sqlite3_bind_int64(s, 3, tid);
  sqlite3_bind_int(s, 4, activity);
  gw_store_bind_opt_int(s, 5, frame >= 0, frame);
  return step_insert(s);
}

void gw_store_py_samples_close(struct gw_store_py_samples *w) {
  if (!w)
    return;
  sqlite3_finalize(w->frame);
  sqlite3_finalize(w->sample);
  free(w);
}
