/* The one table of the tracer's wire record kinds (wire.h). Everything that
 * spells a kind out is generated from here: the record structs and their
 * size checks, enum gw_wire_type and the typed initialisers (wire.h,
 * wire_encode.h), the reader's labels, sizes, checks-then-callback dispatch
 * and its callback set (lib/sources/trace_reader.*), and the store's trace
 * tables, INSERT statements and binds (lib/store/store_trace.c).
 *
 * GW_WIRE_KINDS(FIXED, TEXT) calls FIXED(KIND, id, kind, bytes, table, key, check) per
 * kind whose callback gets the struct, and TEXT(...) the same way per kind
 * that len_bytes of text follow (NAME, NOTE), whose callback gets the text
 * too; GW_WIRE_KINDS(X, X) goes over every kind, GW_WIRE_KINDS(X, GW_WIRE_NONE)
 * over the fixed ones:
 *   KIND, kind  the enum suffix (GW_WIRE_KIND) and the lower-case name that
 *               makes struct gw_wire_kind, the callback on_kind, the member;
 *   id          the type number on the wire (never reused);
 *   bytes       sizeof the struct, checked, so a layout change fails to build;
 *   table, key  the recording's table, and its table constraint ("" for none;
 *               a keyed table is written with INSERT OR IGNORE);
 *   check       what the reader checks before the callback: SPAN (start_ns,
 *               end_ns below 2^63 and in order), INSTANT (t_ns below 2^63),
 *               OWN (check_<kind> in lib/sources/trace_reader.c).
 * GW_WIRE_FIELDS_KIND(F) calls F(type, field) per field after the record
 * header, in wire order: explicit padding included, little-endian.
 * GW_WIRE_COLUMNS_KIND(C) calls C(column, "SQL type", bind, value) per column
 * of the table, in the table's order; value is an expression of `pid` and the
 * record `r`; bind says how it is stored: INT (an integer), NONZERO (NULL when
 * 0: "no name" or "CUPTI did not say"), STAMP (NULL when the kernel record is
 * flagged GW_WIRE_KERNEL_NO_TIMESTAMP), REAL, STR (a NUL-terminated string),
 * TEXT (the text that follows a TEXT-shaped record).
 *
 * To add a kind: a row in GW_WIRE_KINDS (the next id; a new minor version,
 * see wire.h), its FIELDS and COLUMNS here, a check_<kind> in
 * trace_reader.c if SPAN or INSTANT do not say enough, and the code that
 * makes the record (tracer/convert.c for CUPTI, an importer). Appending a field to an existing kind: a line in its
 * FIELDS (and COLUMNS, with the table's new column) and its new size. */
#ifndef GW_TRACER_WIRE_KINDS_H
#define GW_TRACER_WIRE_KINDS_H

/* Expands to nothing: GW_WIRE_KINDS(X, GW_WIRE_NONE) skips the TEXT kinds. */
#define GW_WIRE_NONE(...)

/* A test may compile the reader and the store with one more kind: the header
 * GW_WIRE_EXTRA_KINDS names defines GW_WIRE_EXTRA_KINDS_(FIXED, TEXT) and its
 * FIELDS and COLUMNS (tests/wire17). No product target defines it. */
#ifdef GW_WIRE_EXTRA_KINDS
#include GW_WIRE_EXTRA_KINDS
#else
#define GW_WIRE_EXTRA_KINDS_(FIXED, TEXT)
#endif

/* clang-format off */
#define GW_WIRE_KINDS(FIXED, TEXT)                                                       \
  TEXT(NAME, 1, name, 16, trace_name, ", PRIMARY KEY (pid, id)", OWN)                    \
  FIXED(KERNEL, 2, kernel, 96, kernel, "", OWN)                                          \
  FIXED(MEMCPY, 3, memcpy, 56, memcpy, "", OWN)                                          \
  FIXED(MEMSET, 4, memset, 56, memset, "", OWN)                                          \
  FIXED(SYNC, 5, sync, 48, sync, "", OWN)                                                \
  FIXED(API, 6, api, 48, api, "", OWN)                                                   \
  FIXED(MARKER, 7, marker, 40, marker, "", OWN)                                          \
  FIXED(MEMORY, 8, memory, 56, memory, "", OWN)                                          \
  FIXED(WINDOW, 9, window, 32, trace_window, "", OWN)                                    \
  FIXED(LAUNCH_COUNT, 10, launch_count, 40, launch_count, "", SPAN)                      \
  FIXED(DROPPED, 11, dropped, 32, trace_dropped, "", INSTANT)                            \
  TEXT(NOTE, 12, note, 24, trace_note, "", OWN)                                          \
  FIXED(OVERHEAD, 13, overhead, 40, trace_overhead, "", SPAN)                            \
  FIXED(GRAPH, 14, graph, 48, graph_launch, "", SPAN)                                    \
  FIXED(DEVICE, 15, device, 56, trace_device, "", OWN)             /* since 1.1 */       \
  FIXED(PM_SAMPLE, 16, pm_sample, 48, pm_sample, "", OWN)          /* since 1.1 */       \
  GW_WIRE_EXTRA_KINDS_(FIXED, TEXT)

/* Groups that several kinds share: a time range, and where a GPU activity
 * ran (device, context, stream, the correlation to its API call). */
#define GW_WIRE_SPAN_FIELDS(F) F(uint64_t, start_ns) F(uint64_t, end_ns)
#define GW_WIRE_STREAM_FIELDS(F) F(uint32_t, device) F(uint32_t, context) F(uint32_t, stream) F(uint32_t, correlation)
#define GW_WIRE_SPAN_COLUMNS(C) C(start_ns, "INTEGER", INT, r->start_ns) C(end_ns, "INTEGER", INT, r->end_ns)
/* pid, device, context, stream, start_ns, end_ns: a GPU activity's table starts so */
#define GW_WIRE_STREAM_COLUMNS(C)                                                        \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(device, "INTEGER", INT, r->device)                                                   \
  C(context, "INTEGER", INT, r->context)                                                 \
  C(stream, "INTEGER", INT, r->stream)                                                   \
  GW_WIRE_SPAN_COLUMNS(C)

/* NAME: defines name_id (1, 2, 3, ...; 0 means "no name") for the rest of the
 * file; len_bytes of text follow, zero padded to a multiple of 8. */
#define GW_WIRE_FIELDS_NAME(F) F(uint32_t, name_id) F(uint32_t, len_bytes)
#define GW_WIRE_COLUMNS_NAME(C)                                                          \
  C(id, "INTEGER NOT NULL", INT, r->name_id)                                             \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(name, "TEXT", TEXT, r->len_bytes)

/* KERNEL: flags GW_WIRE_KERNEL_*; grid and block dimensions are >= 1. */
#define GW_WIRE_FIELDS_KERNEL(F)                                                         \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  GW_WIRE_STREAM_FIELDS(F)                                                               \
  F(uint32_t, name_id)                                                                   \
  F(uint32_t, grid_x) F(uint32_t, grid_y) F(uint32_t, grid_z)                            \
  F(uint32_t, block_x) F(uint32_t, block_y) F(uint32_t, block_z)                         \
  F(uint32_t, regs_per_thread)                                                           \
  F(uint32_t, static_shmem_bytes) F(uint32_t, dynamic_shmem_bytes)                       \
  F(uint32_t, graph_id) /* 0 when not launched from a CUDA graph */                      \
  F(uint32_t, reserved)                                                                  \
  F(uint64_t, graph_node_id)
#define GW_WIRE_COLUMNS_KERNEL(C)                                                        \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(device, "INTEGER", INT, r->device)                                                   \
  C(context, "INTEGER", INT, r->context)                                                 \
  C(stream, "INTEGER", INT, r->stream)                                                   \
  C(start_ns, "INTEGER", STAMP, r->start_ns)                                             \
  C(end_ns, "INTEGER", STAMP, r->end_ns)                                                 \
  C(name_id, "INTEGER", NONZERO, r->name_id)                                             \
  C(grid_x, "INTEGER", INT, r->grid_x)                                                   \
  C(grid_y, "INTEGER", INT, r->grid_y)                                                   \
  C(grid_z, "INTEGER", INT, r->grid_z)                                                   \
  C(block_x, "INTEGER", INT, r->block_x)                                                 \
  C(block_y, "INTEGER", INT, r->block_y)                                                 \
  C(block_z, "INTEGER", INT, r->block_z)                                                 \
  C(regs, "INTEGER", INT, r->regs_per_thread)                                            \
  C(shmem_bytes, "INTEGER", INT, (uint64_t)r->static_shmem_bytes + r->dynamic_shmem_bytes) \
  C(static_shmem_bytes, "INTEGER", INT, r->static_shmem_bytes)                           \
  C(dynamic_shmem_bytes, "INTEGER", INT, r->dynamic_shmem_bytes)                         \
  C(graph_id, "INTEGER", INT, r->graph_id)                                               \
  C(graph_node_id, "INTEGER", INT, r->graph_node_id)                                     \
  C(correlation, "INTEGER", INT, r->correlation)                                         \
  C(nccl, "INTEGER", INT, (r->h.flags & GW_WIRE_KERNEL_NCCL) ? 1 : 0)

/* MEMCPY: kinds as in wire.h (GW_WIRE_COPY_KIND_MAX, GW_WIRE_MEM_KIND_*). */
#define GW_WIRE_FIELDS_MEMCPY(F)                                                         \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint64_t, bytes)                                                                     \
  GW_WIRE_STREAM_FIELDS(F)                                                               \
  F(uint8_t, copy_kind) F(uint8_t, src_kind) F(uint8_t, dst_kind) F(uint8_t, reserved0)  \
  F(uint32_t, graph_id)
#define GW_WIRE_COLUMNS_MEMCPY(C)                                                        \
  GW_WIRE_STREAM_COLUMNS(C)                                                              \
  C(bytes, "INTEGER", INT, r->bytes)                                                     \
  C(copy_kind, "INTEGER", INT, r->copy_kind)                                             \
  C(src_kind, "INTEGER", INT, r->src_kind)                                               \
  C(dst_kind, "INTEGER", INT, r->dst_kind)                                               \
  C(async, "INTEGER", INT, (r->h.flags & GW_WIRE_MEMCPY_ASYNC) ? 1 : 0)                  \
  C(graph_id, "INTEGER", INT, r->graph_id)                                               \
  C(correlation, "INTEGER", INT, r->correlation)

#define GW_WIRE_FIELDS_MEMSET(F)                                                         \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint64_t, bytes)                                                                     \
  GW_WIRE_STREAM_FIELDS(F)                                                               \
  F(uint32_t, value)                                                                     \
  F(uint16_t, mem_kind)                                                                  \
  F(uint16_t, reserved0)
#define GW_WIRE_COLUMNS_MEMSET(C)                                                        \
  GW_WIRE_STREAM_COLUMNS(C)                                                              \
  C(bytes, "INTEGER", INT, r->bytes)                                                     \
  C(value, "INTEGER", INT, r->value)                                                     \
  C(mem_kind, "INTEGER", INT, r->mem_kind)                                               \
  C(correlation, "INTEGER", INT, r->correlation)

/* SYNC: sync_type as in wire.h (GW_WIRE_SYNC_TYPE_MAX). */
#define GW_WIRE_FIELDS_SYNC(F)                                                           \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint32_t, sync_type)                                                                 \
  F(uint32_t, context) F(uint32_t, stream) F(uint32_t, correlation)                      \
  F(uint32_t, cuda_event_id)                                                             \
  F(uint32_t, reserved0)
#define GW_WIRE_COLUMNS_SYNC(C)                                                          \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(context, "INTEGER", INT, r->context)                                                 \
  C(stream, "INTEGER", INT, r->stream)                                                   \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(sync_type, "INTEGER", INT, r->sync_type)                                             \
  C(correlation, "INTEGER", INT, r->correlation)                                         \
  C(cuda_event_id, "INTEGER", INT, r->cuda_event_id)

/* API: cbid is CUPTI's callback id of the runtime or driver function, domain
 * an enum gw_wire_api_domain, tid CUPTI's thread id (the OS one on Linux). */
#define GW_WIRE_FIELDS_API(F)                                                            \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint32_t, cbid)                                                                      \
  F(uint32_t, domain)                                                                    \
  F(uint32_t, tid)                                                                       \
  F(uint32_t, correlation)                                                               \
  F(uint32_t, return_value)                                                              \
  F(uint32_t, reserved0)
#define GW_WIRE_COLUMNS_API(C)                                                           \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(tid, "INTEGER", INT, r->tid)                                                         \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(domain, "TEXT", STR, r->domain == GW_WIRE_API_RUNTIME ? "runtime" : "driver")        \
  C(cbid, "INTEGER", INT, r->cbid)                                                       \
  C(correlation, "INTEGER", INT, r->correlation)                                         \
  C(return_value, "INTEGER", INT, r->return_value)

/* MARKER: an NVTX range or mark, from CUPTI (which pairs its start and end
 * records) or from the NVTX injection (marker_id is then the start/end range
 * id, 0 for a push/pop range or a mark); domain_name_id 0 is the default
 * domain. marker_id is not stored. */
#define GW_WIRE_FIELDS_MARKER(F)                                                         \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint32_t, name_id)                                                                   \
  F(uint32_t, domain_name_id)                                                            \
  F(uint32_t, tid)                                                                       \
  F(uint32_t, marker_id)
#define GW_WIRE_COLUMNS_MARKER(C)                                                        \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(tid, "INTEGER", INT, r->tid)                                                         \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(name_id, "INTEGER", NONZERO, r->name_id)                                             \
  C(domain_name_id, "INTEGER", NONZERO, r->domain_name_id)                               \
  C(instant, "INTEGER", INT, (r->h.flags & GW_WIRE_MARKER_INSTANT) ? 1 : 0)

/* MEMORY: op an enum gw_wire_memory_op, mem_kind as in wire.h. */
#define GW_WIRE_FIELDS_MEMORY(F)                                                         \
  F(uint64_t, t_ns)                                                                      \
  F(uint64_t, address)                                                                   \
  F(uint64_t, bytes)                                                                     \
  F(uint32_t, device)                                                                    \
  F(uint32_t, op)                                                                        \
  F(uint32_t, mem_kind)                                                                  \
  F(uint32_t, correlation)                                                               \
  F(uint32_t, stream)                                                                    \
  F(uint32_t, reserved0)
#define GW_WIRE_COLUMNS_MEMORY(C)                                                        \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(device, "INTEGER", INT, r->device)                                                   \
  C(t_ns, "INTEGER", INT, r->t_ns)                                                       \
  C(op, "TEXT", STR, r->op == GW_WIRE_MEMORY_ALLOC ? "alloc" : "free")                   \
  C(bytes, "INTEGER", INT, r->bytes)                                                     \
  C(address, "INTEGER", INT, r->address)                                                 \
  C(mem_kind, "INTEGER", INT, r->mem_kind)                                               \
  C(stream, "INTEGER", INT, r->stream)                                                   \
  C(correlation, "INTEGER", INT, r->correlation)                                         \
  C(async, "INTEGER", INT, (r->h.flags & GW_WIRE_MEMORY_ASYNC) ? 1 : 0)

/* WINDOW: a span during which activity was traced (one per run in full mode,
 * written at exit; one per period in sampled mode); mode an enum
 * gw_wire_mode, kinds the GW_WIRE_KINDS_* bits of what was traced. Statistics
 * over the records are exact inside windows and must be scaled outside them. */
#define GW_WIRE_FIELDS_WINDOW(F)                                                         \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint32_t, mode)                                                                      \
  F(uint32_t, kinds)
#define GW_WIRE_COLUMNS_WINDOW(C)                                                        \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(mode, "TEXT", STR, gw_wire_mode_name(r->mode))                                       \
  C(kinds, "INTEGER", INT, r->kinds)

/* LAUNCH_COUNT: launch calls counted by a cheap callback over one period
 * (sampled mode): runtime counts cudaLaunchKernel / cudaLaunchKernelExC /
 * cudaGraphLaunch and their per-thread-stream variants, driver counts
 * cuLaunchKernel / cuLaunchKernelEx / cuGraphLaunch. A runtime launch is not
 * also counted as a driver launch unless CUPTI reports the nested driver call. */
#define GW_WIRE_FIELDS_LAUNCH_COUNT(F)                                                   \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint64_t, runtime_launches)                                                          \
  F(uint64_t, driver_launches)
#define GW_WIRE_COLUMNS_LAUNCH_COUNT(C)                                                  \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(runtime_launches, "INTEGER", INT, r->runtime_launches)                               \
  C(driver_launches, "INTEGER", INT, r->driver_launches)

/* DROPPED: records lost so far, cumulative (the last one of a file counts):
 * cuptiActivityGetNumDroppedRecords summed, buffer requests refused. */
#define GW_WIRE_FIELDS_DROPPED(F)                                                        \
  F(uint64_t, t_ns)                                                                      \
  F(uint64_t, cupti_dropped_records)                                                     \
  F(uint64_t, buffers_refused)
#define GW_WIRE_COLUMNS_DROPPED(C)                                                       \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(t_ns, "INTEGER", INT, r->t_ns)                                                       \
  C(cupti_dropped_records, "INTEGER", INT, r->cupti_dropped_records)                     \
  C(buffers_refused, "INTEGER", INT, r->buffers_refused)

/* NOTE: free text for people (len_bytes of UTF-8 follow, zero padded); level
 * an enum gw_wire_note_level. */
#define GW_WIRE_FIELDS_NOTE(F)                                                           \
  F(uint64_t, t_ns)                                                                      \
  F(uint32_t, level)                                                                     \
  F(uint32_t, len_bytes)
#define GW_WIRE_COLUMNS_NOTE(C)                                                          \
  C(t_ns, "INTEGER", INT, r->t_ns)                                                       \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(level, "TEXT", STR, gw_wire_note_level_name(r->level))                               \
  C(text, "TEXT", TEXT, r->len_bytes)

/* OVERHEAD: CUPTI's own overhead (CUpti_ActivityOverheadKind, object kind
 * and id as CUPTI gives them) or gpuwhy's (GW_WIRE_OVERHEAD_GW_*). */
#define GW_WIRE_FIELDS_OVERHEAD(F)                                                       \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint32_t, overhead_kind)                                                             \
  F(uint32_t, object_kind)                                                               \
  F(uint32_t, object_id)                                                                 \
  F(uint32_t, reserved0)
#define GW_WIRE_COLUMNS_OVERHEAD(C)                                                      \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(overhead_kind, "INTEGER", INT, r->overhead_kind)                                     \
  C(object_kind, "INTEGER", INT, r->object_kind)                                         \
  C(object_id, "INTEGER", INT, r->object_id)

/* GRAPH: one CUDA graph launch, GPU side (CUPTI GRAPH_TRACE). */
#define GW_WIRE_FIELDS_GRAPH(F)                                                          \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  GW_WIRE_STREAM_FIELDS(F)                                                               \
  F(uint32_t, graph_id)                                                                  \
  F(uint32_t, reserved0)
#define GW_WIRE_COLUMNS_GRAPH(C)                                                         \
  GW_WIRE_STREAM_COLUMNS(C)                                                              \
  C(graph_id, "INTEGER", INT, r->graph_id)                                               \
  C(correlation, "INTEGER", INT, r->correlation)

/* DEVICE: one GPU's limits as CUPTI's device record gives them
 * (CUpti_ActivityDevice5), once per device and process: what a kernel's
 * launch configuration is weighed against for its theoretical occupancy
 * (lib/analysis/sm_fill.c). device is the CUDA
 * device id as in KERNEL records, cc_* the compute capability. 0 means CUPTI
 * did not say (stored as NULL, but for the device and cc_minor, where 0 is a
 * value). */
#define GW_WIRE_FIELDS_DEVICE(F)                                                         \
  F(uint32_t, device)                                                                    \
  F(uint32_t, sm_count)                                                                  \
  F(uint32_t, max_warps_per_sm)                                                          \
  F(uint32_t, max_blocks_per_sm)                                                         \
  F(uint32_t, max_regs_per_sm)                                                           \
  F(uint32_t, max_regs_per_block)                                                        \
  F(uint32_t, max_shmem_per_sm_bytes)                                                    \
  F(uint32_t, max_shmem_per_block_bytes)                                                 \
  F(uint32_t, max_threads_per_block)                                                     \
  F(uint32_t, threads_per_warp)                                                          \
  F(uint16_t, cc_major) F(uint16_t, cc_minor)                                            \
  F(uint32_t, core_clock_khz)
#define GW_WIRE_COLUMNS_DEVICE(C)                                                        \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(device, "INTEGER", INT, r->device)                                                   \
  C(sm_count, "INTEGER", NONZERO, r->sm_count)                                           \
  C(max_warps_per_sm, "INTEGER", NONZERO, r->max_warps_per_sm)                           \
  C(max_blocks_per_sm, "INTEGER", NONZERO, r->max_blocks_per_sm)                         \
  C(max_regs_per_sm, "INTEGER", NONZERO, r->max_regs_per_sm)                             \
  C(max_regs_per_block, "INTEGER", NONZERO, r->max_regs_per_block)                       \
  C(max_shmem_per_sm_bytes, "INTEGER", NONZERO, r->max_shmem_per_sm_bytes)               \
  C(max_shmem_per_block_bytes, "INTEGER", NONZERO, r->max_shmem_per_block_bytes)         \
  C(max_threads_per_block, "INTEGER", NONZERO, r->max_threads_per_block)                 \
  C(threads_per_warp, "INTEGER", NONZERO, r->threads_per_warp)                           \
  C(cc_major, "INTEGER", NONZERO, r->cc_major)                                           \
  C(cc_minor, "INTEGER", INT, r->cc_minor)                                               \
  C(core_clock_khz, "INTEGER", NONZERO, r->core_clock_khz)

/* PM_SAMPLE: one CUPTI PM sampling interval of one GPU (device: CUDA id):
 * SM cycles with a warp resident and all SM cycles, each averaged over the
 * SMs (sm__cycles_active.avg, sm__cycles_elapsed.avg). Their ratio is the
 * share of SM time active, GPM's SM activity. Timestamps are CUPTI's. */
#define GW_WIRE_FIELDS_PM_SAMPLE(F)                                                      \
  GW_WIRE_SPAN_FIELDS(F)                                                                 \
  F(uint32_t, device)                                                                    \
  F(uint32_t, reserved0)                                                                 \
  F(double, sm_cycles_active_avg)                                                        \
  F(double, sm_cycles_elapsed_avg)
#define GW_WIRE_COLUMNS_PM_SAMPLE(C)                                                     \
  C(pid, "INTEGER NOT NULL", INT, pid)                                                   \
  C(device, "INTEGER", INT, r->device)                                                   \
  GW_WIRE_SPAN_COLUMNS(C)                                                                \
  C(sm_cycles_active_avg, "REAL", REAL, r->sm_cycles_active_avg)                         \
  C(sm_cycles_elapsed_avg, "REAL", REAL, r->sm_cycles_elapsed_avg)
/* clang-format on */

#endif
