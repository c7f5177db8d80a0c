/* Incremental reader of the tracer's wire files (tracer/wire.h).
 *
 * The tracer appends to the file while the recorder reads it, so the reader
 * is poll-based: every gw_trace_reader_poll() hands each complete record
 * appended since the previous call to a set of callbacks (one per record
 * type, NULL to ignore a type) and keeps a partial record at the end for the
 * next call. When the writer is gone, gw_trace_reader_finish() says whether
 * the file ended inside a record.
 *
 * Every field is checked before a callback sees it; a bad file gives
 * GW_EINPUT with the file name and byte offset, and the reader then refuses
 * further polls with the same message. */
#ifndef GW_TRACE_READER_H
#define GW_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "../../tracer/wire.h"
#include "../core/util.h"

struct gw_trace_reader;

/* Callbacks get the pid of the traced process (from the file header) and a
 * pointer to an aligned copy of the record, valid during the call only.
 * Returning non-GW_OK stops the poll and is passed through. */
struct gw_trace_callbacks {
  void *ctx;
  gw_status (*on_header)(void *ctx, const struct gw_wire_file_header *h);
  /* name is not NUL-terminated; len_bytes <= GW_WIRE_NAME_MAX_BYTES */
  gw_status (*on_name)(void *ctx, uint32_t pid, uint32_t name_id, const char *name, uint32_t len_bytes);
  /* text is not NUL-terminated; len_bytes <= GW_WIRE_NOTE_MAX_BYTES */
  gw_status (*on_note)(void *ctx, uint32_t pid, const struct gw_wire_note *r, const char *text, uint32_t len_bytes);
  /* on_kernel, on_memcpy, ...: one per FIXED kind of wire_kinds.h */
#define GW_TRACE_CALLBACK_(KIND, id, kind, bytes, table, key, check)                                                   \
  gw_status (*on_##kind)(void *ctx, uint32_t pid, const struct gw_wire_##kind *r);
  GW_WIRE_KINDS(GW_TRACE_CALLBACK_, GW_WIRE_NONE)
#undef GW_TRACE_CALLBACK_
};

/* Counters of what the reader has seen, for messages and tests. */
struct gw_trace_reader_stats {
  uint64_t records;         /* handed to callbacks (or to a NULL callback) */
  uint64_t skipped_unknown; /* records of a type this build does not know */
  uint64_t bytes_consumed;  /* file offset just past the last complete record */
};

/* Open path for reading. An empty file (the tracer has not written its header
 * yet) is fine: the header is read by the first poll that finds it. */
GW_NODISCARD gw_status gw_trace_reader_open(struct gw_trace_reader **out, const char *path, struct gw_err *err);

/* Read everything appended since the last call. *new_records (may be NULL)
 * gets the number of records handled by this call. */
GW_NODISCARD gw_status gw_trace_reader_poll(struct gw_trace_reader *rd, const struct gw_trace_callbacks *cb,
                                            uint64_t *new_records, struct gw_err *err);

/* Call after the last poll, once the writer has exited: GW_EINPUT if the file
 * stops inside the header or inside a record (a truncated file). */
GW_NODISCARD gw_status gw_trace_reader_finish(struct gw_trace_reader *rd, struct gw_err *err);

/* NULL until the header has been read. */
const struct gw_wire_file_header *gw_trace_reader_header(const struct gw_trace_reader *rd);
void gw_trace_reader_get_stats(const struct gw_trace_reader *rd, struct gw_trace_reader_stats *out);
void gw_trace_reader_close(struct gw_trace_reader *rd);

#endif
