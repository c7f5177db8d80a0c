/* Moves the tracer's records into the recording while the traced program
 * runs: one wire file per traced process in a folder, read incrementally. */
#ifndef GW_TRACE_COLLECT_H
#define GW_TRACE_COLLECT_H

#include "core/sample.h"
#include "core/util.h"
#include "store/store.h"

struct gw_trace_collect;

/* dir: the folder the tracer writes trace-<pid>.gwt files into. */
GW_NODISCARD gw_status gw_trace_collect_open(struct gw_trace_collect **out, const char *dir, struct gw_store *store,
                                             struct gw_err *err);
/* Read what every file gained since the last call (new files are picked up).
 * Problems become events, never a stop: the recording goes on. */
void gw_trace_collect_poll(struct gw_trace_collect *tc, const struct gw_event_sink *events);
/* Last poll after the traced program ended; reports truncated files. */
void gw_trace_collect_finish(struct gw_trace_collect *tc, const struct gw_event_sink *events);
/* Deletes the files read to their end (call once their records are
 * committed); a truncated or unreadable file stays to be looked at. */
void gw_trace_collect_remove_read(struct gw_trace_collect *tc);
/* Records moved so far. */
uint64_t gw_trace_collect_records(const struct gw_trace_collect *tc);
void gw_trace_collect_close(struct gw_trace_collect *tc);

/* The tracer library to inject: explicit path, $GPUWHY_TRACER_LIB, or next to
 * the gpuwhy binary (build tree or installed layout). 0 when found. */
int gw_trace_find_library(const char *explicit_path, char *out, size_t cap);

#endif
