/* The gpuwhy trace wire format: what the in-process tracer appends to
 * <dir>/trace-<pid>.gwt and what lib/sources/trace_reader.c reads back.
 *
 * Layout: one file header (struct gw_wire_file_header), then records. Every
 * record starts with struct gw_wire_rec_header {type, flags, size_bytes};
 * size_bytes covers the whole record including that header and is a multiple
 * of 8, so a reader can skip any record by its size. All integers are
 * little-endian; every struct has explicit padding and a checked size.
 *
 * Versioning: a new minor version may add record types and append fields at
 * the end of existing records (a reader of an older minor version skips the
 * unknown types and ignores the extra bytes). Anything else is a new major
 * version, which an older reader refuses.
 *
 * Timestamps are CUPTI timestamps: ns of CLOCK_REALTIME on Linux, the same
 * base as the recorder's samples. This header has no dependencies beyond C11.
 *
 * The record kinds, their fields and the recording's columns for them are
 * listed once, in wire_kinds.h; the structs below are generated from it. */
#ifndef GW_TRACER_WIRE_H
#define GW_TRACER_WIRE_H

#include <stdint.h>

#include "wire_kinds.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the gpuwhy wire format is little-endian; this code reads it natively"
#endif

#define GW_WIRE_MAGIC "GWTRACE" /* 7 characters plus the NUL: 8 bytes */
#define GW_WIRE_MAGIC_BYTES 8
#define GW_WIRE_VERSION_MAJOR 1
#define GW_WIRE_VERSION_MINOR 2 /* 1: DEVICE and PM_SAMPLE records; 2: mode NVTX */

/* Limits a reader enforces; the tracer never writes more. */
#define GW_WIRE_NAME_MAX_BYTES 4096u /* kernel names are capped, not split */
#define GW_WIRE_NOTE_MAX_BYTES 1024u
#define GW_WIRE_RECORD_MAX_BYTES 65536u /* room for fields a future minor version appends */
#define GW_WIRE_NAME_ID_MAX 1048576u    /* ids are small and dense: 1, 2, 3, ... */
/* The NVTX injection's file names its ranges from here up (BASE+1, BASE+2,
 * ...), so that its ids never meet those of the same process's CUDA file
 * (which stay below 16384): the recording keys names by (pid, id). */
#define GW_WIRE_NVTX_NAME_ID_BASE 524288u

enum gw_wire_mode {
  GW_WIRE_MODE_FULL = 1,    /* every activity record while the process runs */
  GW_WIRE_MODE_SAMPLED = 2, /* activity only inside WINDOW records */
  GW_WIRE_MODE_NVTX = 3,    /* since 1.2: NVTX ranges only (NAME, MARKER, NOTE), from the NVTX injection
                               (tracer/nvtx_inject.c) in trace-<pid>-nvtx.gwt; window and period are 0 */
};

struct gw_wire_file_header {
  char magic[GW_WIRE_MAGIC_BYTES]; /* "GWTRACE\0" */
  uint16_t version_major;
  uint16_t version_minor;
  uint32_t header_bytes; /* sizeof this struct in the writer's version; records start here */
  uint32_t pid;
  uint32_t cupti_version; /* cuptiGetVersion(), 0 when libcupti could not be loaded */
  uint64_t start_ns;      /* when the tracer started (CLOCK_REALTIME ns) */
  uint32_t mode;          /* enum gw_wire_mode */
  uint32_t window_ms;     /* sampled mode: length of each tracing window */
  uint32_t period_ms;     /* sampled mode: one window starts every period */
  uint32_t reserved;
};
_Static_assert(sizeof(struct gw_wire_file_header) == 48, "wire file header layout");

/* The record types: one per row of GW_WIRE_KINDS (wire_kinds.h). */
/* clang-format off */
enum gw_wire_type {
#define GW_WIRE_TYPE_ENUM_(KIND, id, kind, bytes, table, key, check) GW_WIRE_##KIND = id,
  GW_WIRE_KINDS(GW_WIRE_TYPE_ENUM_, GW_WIRE_TYPE_ENUM_)
#undef GW_WIRE_TYPE_ENUM_
  GW_WIRE_TYPE_COUNT /* one past the last type this version knows */
};
/* clang-format on */

struct gw_wire_rec_header {
  uint16_t type;       /* enum gw_wire_type */
  uint16_t flags;      /* per-type bits below */
  uint32_t size_bytes; /* whole record, header included, multiple of 8 */
};
_Static_assert(sizeof(struct gw_wire_rec_header) == 8, "wire record header layout");

/* Rounds a byte count up to the record alignment. */
#define GW_WIRE_ALIGN8(n) (((n) + 7u) & ~(uint32_t)7u)

/* KERNEL flags */
#define GW_WIRE_KERNEL_NCCL 0x1u         /* name starts with ncclKernel_ or ncclDevKernel_ */
#define GW_WIRE_KERNEL_NO_TIMESTAMP 0x2u /* CUPTI could not time it (start = end = 0) */
#define GW_WIRE_KERNEL_NAME_CUT 0x4u     /* the name was longer than GW_WIRE_NAME_MAX_BYTES */

/* Copy kinds use CUPTI's CUpti_ActivityMemcpyKind numbers (1 HtoD, 2 DtoH,
 * 8 DtoD, 9 HtoH, 10 PtoP, ...); memory kinds use CUpti_ActivityMemoryKind
 * (1 pageable, 2 pinned, 3 device, 5 managed, ...). The tracer maps values it
 * does not know to 0 (unknown), so a reader can check the ranges. */
#define GW_WIRE_COPY_KIND_MAX 10u
#define GW_WIRE_MEM_KIND_MAX 7u
#define GW_WIRE_MEM_KIND_PAGEABLE 1u
#define GW_WIRE_MEM_KIND_PINNED 2u
#define GW_WIRE_MEM_KIND_DEVICE 3u

#define GW_WIRE_MEMCPY_ASYNC 0x1u

/* Sync types use CUPTI's numbers: 0 unknown, 1 event synchronize, 2 stream
 * wait event, 3 stream synchronize, 4 context synchronize. */
#define GW_WIRE_SYNC_TYPE_MAX 4u

enum gw_wire_api_domain {
  GW_WIRE_API_DRIVER = 1,
  GW_WIRE_API_RUNTIME = 2,
};

#define GW_WIRE_MARKER_INSTANT 0x1u /* a mark: start_ns == end_ns */

enum gw_wire_memory_op {
  GW_WIRE_MEMORY_ALLOC = 1,
  GW_WIRE_MEMORY_FREE = 2,
};

#define GW_WIRE_MEMORY_ASYNC 0x1u /* stream-ordered (cudaMallocAsync / cudaFreeAsync) */

/* Bits of gw_wire_window.kinds: what was traced inside the window. */
#define GW_WIRE_KINDS_KERNEL 0x1u
#define GW_WIRE_KINDS_MEMCPY 0x2u
#define GW_WIRE_KINDS_MEMSET 0x4u
#define GW_WIRE_KINDS_SYNC 0x8u
#define GW_WIRE_KINDS_API 0x10u
#define GW_WIRE_KINDS_MARKER 0x20u
#define GW_WIRE_KINDS_MEMORY 0x40u
#define GW_WIRE_KINDS_OVERHEAD 0x80u
#define GW_WIRE_KINDS_GRAPH 0x100u

enum gw_wire_note_level {
  GW_WIRE_NOTE_INFO = 0,
  GW_WIRE_NOTE_WARN = 1,
  GW_WIRE_NOTE_ERROR = 2, /* tracing is off from here on */
};

/* gpuwhy's own costs as OVERHEAD records, one of each per sampled window,
 * object_kind = the window-end mode (1 detach on the tracer's thread, 2 detach
 * at the program's call, 3 quiet, 4 kept attached). CUPTI's overhead kinds
 * are small flags (up to 8 << 16 in CUPTI 13), so these never meet them. */
#define GW_WIRE_OVERHEAD_GW_PROGRAM_PAUSE 0x47570001u /* a program thread's time for us at the window's end */
#define GW_WIRE_OVERHEAD_GW_TRACER_EDGE 0x47570002u   /* the tracer thread's open+close+flush+detach */

/* The record structs: the header, then the fields of GW_WIRE_FIELDS_<KIND>
 * (wire_kinds.h) in order, each struct's size checked against the table. */
#define GW_WIRE_FIELD_DECL_(type, field) type field;
#define GW_WIRE_STRUCT_(KIND, id, kind, bytes, table, key, check)                                                      \
  struct gw_wire_##kind {                                                                                              \
    struct gw_wire_rec_header h;                                                                                       \
    GW_WIRE_FIELDS_##KIND(GW_WIRE_FIELD_DECL_)                                                                         \
  };                                                                                                                   \
  _Static_assert(sizeof(struct gw_wire_##kind) == (bytes), "wire " #KIND " layout");
GW_WIRE_KINDS(GW_WIRE_STRUCT_, GW_WIRE_STRUCT_)
#undef GW_WIRE_STRUCT_
#undef GW_WIRE_FIELD_DECL_

/* The names the recording gives a mode, a note level. */
static inline const char *gw_wire_mode_name(uint32_t mode) {
  return mode == GW_WIRE_MODE_FULL ? "full" : mode == GW_WIRE_MODE_NVTX ? "nvtx" : "sampled";
}
static inline const char *gw_wire_note_level_name(uint32_t level) {
  return level == GW_WIRE_NOTE_INFO ? "info" : level == GW_WIRE_NOTE_WARN ? "warn" : "error";
}

#endif
