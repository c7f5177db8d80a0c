/* The store's SQL side, private to lib/store: the connection, the step and
 * column helpers that note damage, and the writers that take a connection.
 * Only lib/store's .c files include it (and tests, fuzz targets and benches,
 * which check what the store wrote without going through it);
 * scripts/check-layering.sh fails on any other includer, and on any other
 * lib/store header that includes sqlite3.h. */
#ifndef GW_STORE_SQL_H
#define GW_STORE_SQL_H

#include <sqlite3.h>
#include <stdint.h>

#include "../core/util.h"

/* store.h and store_trace.h name them; not included here, so that no
 * module of lib/store and this header include each other */
struct gw_store;
struct gw_store_trace;

sqlite3 *gw_store_db(struct gw_store *st);

/* Opens the recording at path read-only, runs sql (one count, ?1 bound to
 * text1 when not NULL) and closes it: the count, or -1 when the file or the
 * query cannot be read. */
long gw_store_count_rows(const char *path, const char *sql, const char *text1);

/* 1 when the recording has this table (optional tables: tracer, nccl_log). */
int gw_store_table_exists(sqlite3 *db, const char *name);
/* 1 when the table has the column: recordings made before a column was added lack it. */
int gw_store_column_exists(sqlite3 *db, const char *table, const char *column);

/* sqlite3_step for a loop: 1 with a row, 0 at the end or on an error (noted
 * as damage, gw_store_damage). */
int gw_store_step(struct gw_store *st, sqlite3_stmt *s);
/* A numeric column: NAN when NULL; NAN and damage noted when TEXT or BLOB (never 0). */
double gw_store_col_double(struct gw_store *st, sqlite3_stmt *s, int i);
void gw_store_note_damage(struct gw_store *st, sqlite3_stmt *s, const char *what);

/* Binders that store NULL for an unknown value (store_bind.c): text when
 * not NULL (copied), an integer or a double when known is non-zero. */
void gw_store_bind_text(sqlite3_stmt *s, int i, const char *v);
void gw_store_bind_opt_int(sqlite3_stmt *s, int i, int known, int64_t v);
void gw_store_bind_opt_double(sqlite3_stmt *s, int i, int known, double v);

/* CREATE TABLE IF NOT EXISTS for every tracer table; safe to call again. */
GW_NODISCARD gw_status gw_store_trace_create_tables(sqlite3 *db, struct gw_err *err);
/* A tracer writer on db; GW_EIO when a tracer table is missing. Each insert
 * statement is prepared at its first row. */
GW_NODISCARD gw_status gw_store_trace_open(struct gw_store_trace **out, sqlite3 *db, struct gw_err *err);

/* step_range.h's gw_store_step_range_apply on a connection. */
GW_NODISCARD gw_status gw_step_range_apply(sqlite3 *db, const char *name, int replace, uint64_t *steps_out,
                                           uint64_t *kept_out, struct gw_err *err);

#endif
