/* The sliding window the exporter diagnoses. Samples are written into
 * segment recordings (seg-K.db in a private folder), each covering at most
 * the window's length: the recorder (or the replay) writes the current one,
 * the previous one is kept, older ones are deleted. A build copies the rows
 * of the last window from those two segments into window.db, an ordinary
 * recording the analysis reads. Disk use and the work of one build are
 * bounded by two windows of samples, however long the exporter runs. The
 * copying is SQL between recordings, so it lives in the store; lib/serve
 * drives it. */
#ifndef GW_STORE_WINDOW_H
#define GW_STORE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

struct gw_window;

/* dir must exist and belong to the caller; span_ns is the window length. */
GW_NODISCARD gw_status gw_window_open(struct gw_window **out, const char *dir, int64_t span_ns, struct gw_err *err);
/* Deletes the segment and window files (not the folder). */
void gw_window_close(struct gw_window *w);

/* Path of segment k. */
void gw_window_segment_path(const struct gw_window *w, unsigned k, char *buf, size_t cap);
/* Segment k exists now and is the one being written: builds read it and
 * the one before; older segments are deleted. */
void gw_window_segment_started(struct gw_window *w, unsigned k);

/* Build window.db from the segments: the rows of the last span_ns before
 * the newest sample. path receives its name. */
GW_NODISCARD gw_status gw_window_build(struct gw_window *w, char *path, size_t cap, struct gw_err *err);

#endif
