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
 * base as the recorder's samples. This header has no dependencies beyond C11. */
#ifndef GW_TRACER_WIRE_H
#define GW_TRACER_WIRE_H

#include <stdint.h>

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

enum gw_wire_type {
  GW_WIRE_NAME = 1,
  GW_WIRE_KERNEL = 2,
  GW_WIRE_MEMCPY = 3,
  GW_WIRE_MEMSET = 4,
  GW_WIRE_SYNC = 5,
  GW_WIRE_API = 6,
  GW_WIRE_MARKER = 7,
  GW_WIRE_MEMORY = 8,
  GW_WIRE_WINDOW = 9,
  GW_WIRE_LAUNCH_COUNT = 10,
  GW_WIRE_DROPPED = 11,
  GW_WIRE_NOTE = 12,
  GW_WIRE_OVERHEAD = 13,
  GW_WIRE_GRAPH = 14,
  GW_WIRE_DEVICE = 15,    /* since 1.1 */
  GW_WIRE_PM_SAMPLE = 16, /* since 1.1 */
  GW_WIRE_TYPE_COUNT      /* one past the last type this version knows */
};

struct gw_wire_rec_header {
  uint16_t type;       /* enum gw_wire_type */
  uint16_t flags;      /* per-type bits below */
  uint32_t size_bytes; /* whole record, header included, multiple of 8 */
};
_Static_assert(sizeof(struct gw_wire_rec_header) == 8, "wire record header layout");

/* Rounds a byte count up to the record alignment. */
#define GW_WIRE_ALIGN8(n) (((n) + 7u) & ~(uint32_t)7u)

/* NAME: defines name_id for the rest of the file. Followed by len_bytes of
 * text (no NUL needed), zero padded to a multiple of 8. Id 0 means "no name"
 * and is never defined. */
struct gw_wire_name {
  struct gw_wire_rec_header h;
  uint32_t name_id;
  uint32_t len_bytes;
};
_Static_assert(sizeof(struct gw_wire_name) == 16, "wire NAME layout");

/* KERNEL flags */
#define GW_WIRE_KERNEL_NCCL 0x1u         /* name starts with ncclKernel_ or ncclDevKernel_ */
#define GW_WIRE_KERNEL_NO_TIMESTAMP 0x2u /* CUPTI could not time it (start = end = 0) */
#define GW_WIRE_KERNEL_NAME_CUT 0x4u     /* the name was longer than GW_WIRE_NAME_MAX_BYTES */

struct gw_wire_kernel {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t device, context, stream, correlation;
  uint32_t name_id;
  uint32_t grid_x, grid_y, grid_z;
  uint32_t block_x, block_y, block_z;
  uint32_t regs_per_thread;
  uint32_t static_shmem_bytes, dynamic_shmem_bytes;
  uint32_t graph_id; /* 0 when not launched from a CUDA graph */
  uint32_t reserved;
  uint64_t graph_node_id;
};
_Static_assert(sizeof(struct gw_wire_kernel) == 96, "wire KERNEL layout");

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

struct gw_wire_memcpy {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint64_t bytes;
  uint32_t device, context, stream, correlation;
  uint8_t copy_kind, src_kind, dst_kind, reserved0;
  uint32_t graph_id;
};
_Static_assert(sizeof(struct gw_wire_memcpy) == 56, "wire MEMCPY layout");

struct gw_wire_memset {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint64_t bytes;
  uint32_t device, context, stream, correlation;
  uint32_t value;
  uint16_t mem_kind;
  uint16_t reserved0;
};
_Static_assert(sizeof(struct gw_wire_memset) == 56, "wire MEMSET layout");

/* Sync types use CUPTI's numbers: 0 unknown, 1 event synchronize, 2 stream
 * wait event, 3 stream synchronize, 4 context synchronize. */
#define GW_WIRE_SYNC_TYPE_MAX 4u

struct gw_wire_sync {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t sync_type;
  uint32_t context, stream, correlation;
  uint32_t cuda_event_id;
  uint32_t reserved0;
};
_Static_assert(sizeof(struct gw_wire_sync) == 48, "wire SYNC layout");

enum gw_wire_api_domain {
  GW_WIRE_API_DRIVER = 1,
  GW_WIRE_API_RUNTIME = 2,
};

struct gw_wire_api {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t cbid;   /* CUPTI callback id of the runtime or driver function */
  uint32_t domain; /* enum gw_wire_api_domain */
  uint32_t tid;    /* CUPTI's thread id (the OS thread id on Linux) */
  uint32_t correlation;
  uint32_t return_value;
  uint32_t reserved0;
};
_Static_assert(sizeof(struct gw_wire_api) == 48, "wire API layout");

#define GW_WIRE_MARKER_INSTANT 0x1u /* a mark: start_ns == end_ns */

/* An NVTX range or mark: from CUPTI (which pairs its start and end records)
 * or from the NVTX injection (marker_id is then the start/end range id, 0 for
 * a push/pop range or a mark). */
struct gw_wire_marker {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t name_id;
  uint32_t domain_name_id; /* 0: the default domain */
  uint32_t tid;
  uint32_t marker_id;
};
_Static_assert(sizeof(struct gw_wire_marker) == 40, "wire MARKER layout");

enum gw_wire_memory_op {
  GW_WIRE_MEMORY_ALLOC = 1,
  GW_WIRE_MEMORY_FREE = 2,
};

#define GW_WIRE_MEMORY_ASYNC 0x1u /* stream-ordered (cudaMallocAsync / cudaFreeAsync) */

struct gw_wire_memory {
  struct gw_wire_rec_header h;
  uint64_t t_ns;
  uint64_t address;
  uint64_t bytes;
  uint32_t device;
  uint32_t op; /* enum gw_wire_memory_op */
  uint32_t mem_kind;
  uint32_t correlation;
  uint32_t stream;
  uint32_t reserved0;
};
_Static_assert(sizeof(struct gw_wire_memory) == 56, "wire MEMORY layout");

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

/* A span during which activity was traced. In full mode there is one window
 * per run written at exit; in sampled mode one per period. Statistics over
 * the records are exact inside windows and must be scaled outside them. */
struct gw_wire_window {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t mode;  /* enum gw_wire_mode */
  uint32_t kinds; /* GW_WIRE_KINDS_* */
};
_Static_assert(sizeof(struct gw_wire_window) == 32, "wire WINDOW layout");

/* Launch calls counted by a cheap callback over one period (sampled mode):
 * runtime counts cudaLaunchKernel / cudaLaunchKernelExC / cudaGraphLaunch and
 * their per-thread-stream variants, driver counts cuLaunchKernel /
 * cuLaunchKernelEx / cuGraphLaunch. A runtime launch is not also counted as a
 * driver launch unless CUPTI reports the nested driver call. */
struct gw_wire_launch_count {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint64_t runtime_launches;
  uint64_t driver_launches;
};
_Static_assert(sizeof(struct gw_wire_launch_count) == 40, "wire LAUNCH_COUNT layout");

/* Records lost so far (cumulative totals, so the last one of a file counts). */
struct gw_wire_dropped {
  struct gw_wire_rec_header h;
  uint64_t t_ns;
  uint64_t cupti_dropped_records; /* cuptiActivityGetNumDroppedRecords, summed */
  uint64_t buffers_refused;       /* buffer requests the pool could not serve */
};
_Static_assert(sizeof(struct gw_wire_dropped) == 32, "wire DROPPED layout");

enum gw_wire_note_level {
  GW_WIRE_NOTE_INFO = 0,
  GW_WIRE_NOTE_WARN = 1,
  GW_WIRE_NOTE_ERROR = 2, /* tracing is off from here on */
};

/* Free text for people, followed by len_bytes of UTF-8, zero padded. */
struct gw_wire_note {
  struct gw_wire_rec_header h;
  uint64_t t_ns;
  uint32_t level; /* enum gw_wire_note_level */
  uint32_t len_bytes;
};
_Static_assert(sizeof(struct gw_wire_note) == 24, "wire NOTE layout");

/* CUPTI's own overhead (CUpti_ActivityOverheadKind numbers, object kind and
 * id as CUPTI gives them: a thread id or a device id). */
struct gw_wire_overhead {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t overhead_kind;
  uint32_t object_kind;
  uint32_t object_id;
  uint32_t reserved0;
};
_Static_assert(sizeof(struct gw_wire_overhead) == 40, "wire OVERHEAD layout");
/* gpuwhy's own costs as OVERHEAD records, one of each per sampled window,
 * object_kind = the window-end mode (1 detach on the tracer's thread, 2 detach
 * at the program's call, 3 quiet, 4 kept attached). CUPTI's overhead kinds
 * are small flags (up to 8 << 16 in CUPTI 13), so these never meet them. */
#define GW_WIRE_OVERHEAD_GW_PROGRAM_PAUSE 0x47570001u /* a program thread's time for us at the window's end */
#define GW_WIRE_OVERHEAD_GW_TRACER_EDGE 0x47570002u   /* the tracer thread's open+close+flush+detach */

/* One CUDA graph launch, GPU side (CUPTI GRAPH_TRACE). */
struct gw_wire_graph {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t device, context, stream, correlation;
  uint32_t graph_id;
  uint32_t reserved0;
};
_Static_assert(sizeof(struct gw_wire_graph) == 48, "wire GRAPH layout");

/* One GPU's limits as CUPTI's device record gives them (CUpti_ActivityDevice5),
 * once per device and process: what a kernel's launch configuration is
 * weighed against for its theoretical occupancy (lib/analysis/sm_fill.c).
 * 0 in a field means CUPTI did not say. */
struct gw_wire_device {
  struct gw_wire_rec_header h;
  uint32_t device; /* CUDA device id, as in KERNEL records */
  uint32_t sm_count;
  uint32_t max_warps_per_sm;
  uint32_t max_blocks_per_sm;
  uint32_t max_regs_per_sm;
  uint32_t max_regs_per_block;
  uint32_t max_shmem_per_sm_bytes;
  uint32_t max_shmem_per_block_bytes;
  uint32_t max_threads_per_block;
  uint32_t threads_per_warp;
  uint16_t cc_major, cc_minor; /* compute capability */
  uint32_t core_clock_khz;
};
_Static_assert(sizeof(struct gw_wire_device) == 56, "wire DEVICE layout");

/* One CUPTI PM sampling interval of one GPU (tracer/pm_sampling.c, opt-in):
 * SM cycles with a warp resident and all SM cycles, each averaged over the
 * SMs (sm__cycles_active.avg, sm__cycles_elapsed.avg). Their ratio is the
 * share of SM time active, GPM's SM activity. Timestamps are CUPTI's. */
struct gw_wire_pm_sample {
  struct gw_wire_rec_header h;
  uint64_t start_ns, end_ns;
  uint32_t device; /* CUDA device id */
  uint32_t reserved0;
  double sm_cycles_active_avg;
  double sm_cycles_elapsed_avg;
};
_Static_assert(sizeof(struct gw_wire_pm_sample) == 48, "wire PM_SAMPLE layout");

#endif
