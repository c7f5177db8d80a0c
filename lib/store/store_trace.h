/* Tracer records (tracer/wire.h) into the recording's SQLite tables.
 *
 * The writer is a gw_trace_callbacks set: hand gw_store_trace_callbacks() to
 * gw_trace_reader_poll() and each record becomes one row, inserted with a
 * prepared statement. The caller owns transactions (the recorder commits
 * once a second). Name ids are per traced process: trace_name is keyed by
 * (pid, id), and every table that refers to a name has a pid column. A
 * kernel without timestamps has NULL start_ns / end_ns, never 0. */
#ifndef GW_STORE_TRACE_H
#define GW_STORE_TRACE_H

#include "../core/util.h"
#include "../sources/trace_reader.h"

struct gw_store_trace;

/* A writer is opened on a store (gw_store_trace_open_on, store_write.h) or, inside
 * lib/store, on a connection (store_sql.h). */
void gw_store_trace_close(struct gw_store_trace *st);

/* Callbacks that insert into st; ctx is st. */
struct gw_trace_callbacks gw_store_trace_callbacks(struct gw_store_trace *st);

/* The same, except that kernel, API and marker rows are gathered and
 * inserted many to a statement: much faster for bulk writes (import). Rows
 * of an unfilled batch wait in st until gw_store_trace_flush, which the
 * caller must call before each commit and before closing. */
struct gw_trace_callbacks gw_store_trace_batch_callbacks(struct gw_store_trace *st);
GW_NODISCARD gw_status gw_store_trace_flush(struct gw_store_trace *st);

/* Why the last callback failed (names the table and SQLite's message). */
const char *gw_store_trace_errmsg(const struct gw_store_trace *st);

#endif
