/* The tracer's output: one append-only wire file per process, a staging
 * buffer written with write(2) in large chunks, and the kernel-name table.
 * All functions are safe from any thread; none allocates after open. */
#ifndef GW_TRACER_OUT_H
#define GW_TRACER_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* Creates <dir>/trace-<pid>.gwt (O_CREAT|O_EXCL|O_APPEND) and writes the
 * header. Returns 0, or -1 with a reason in why. */
int gwt_out_open(const char *dir, const struct gw_wire_file_header *h, char *why, size_t why_cap);
int gwt_out_is_open(void);

/* Lock around a batch of records (one activity buffer); put_locked appends
 * one record, writing the staging buffer out when it fills. */
int gwt_out_lock(void); /* 0: output is off, nothing locked */
void gwt_out_unlock(void);
void gwt_out_put_locked(const void *rec, size_t size_bytes);
/* Writes the staging buffer to the file now. */
void gwt_out_flush_locked(void);

/* One record, locked and written out at once (rare records: WINDOW, NOTE...). */
void gwt_out_put(const void *rec, size_t size_bytes);

/* A NOTE record with printf-style text (cut to GW_WIRE_NOTE_MAX_BYTES). */
void gwt_out_note(uint64_t t_ns, uint32_t level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The id of a kernel or marker name, writing its NAME record the first time
 * (call with the lock held). *cut is set when the name was longer than
 * GW_WIRE_NAME_MAX_BYTES. Returns 0 (no name) for NULL or a full table. */
uint32_t gwt_name_id_locked(const char *name, int *cut);

/* FNV-1a over len bytes of name, with the length mixed in; never 0. Names
 * are told apart by this 64-bit hash alone (kernel names here, NVTX range
 * names in nvtx_inject.c). */
uint64_t gwt_name_hash(const char *name, size_t len);

/* After fork() in the child: never write to the parent's file. */
void gwt_out_forget_in_child(void);

#endif
