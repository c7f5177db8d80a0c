/* CUPTI activity records -> wire records (wire.h), for the tracer's
 * buffer-completed callback: kernels, copies, memsets, synchronisation, API
 * calls (filtered to the ones gpuwhy reads), NVTX ranges (start and end
 * records paired), allocations, CUPTI's overhead, graph launches and the
 * GPUs' limits (device records). Values
 * outside the known enumerations become 0, an end before its start becomes
 * the start, so the reader never rejects a file for CUPTI's oddities. */
#include "convert.h"

#include "tracer_out.h"
#include "wire.h"
#include "wire_encode.h"

#include <stdatomic.h>

/* API calls kept, by CUPTI callback id: one bit each. */
#define CBID_BITMAP_BITS 2048u
static atomic_int saw_graph;

int gwt_convert_saw_graph(void) {
  return atomic_load_explicit(&saw_graph, memory_order_relaxed);
}

static uint8_t runtime_keep_bits[CBID_BITMAP_BITS / 8], driver_keep_bits[CBID_BITMAP_BITS / 8];

static int cbid_kept(const uint8_t *bits, uint32_t cbid) {
  return cbid < CBID_BITMAP_BITS && (bits[cbid / 8] >> (cbid % 8)) & 1u;
}

void gwt_convert_keep_api(int runtime_domain, uint32_t cbid) {
  uint8_t *bits = runtime_domain ? runtime_keep_bits : driver_keep_bits;
  if (cbid < CBID_BITMAP_BITS)
    bits[cbid / 8] |= (uint8_t)(1u << (cbid % 8));
}

/* Open NVTX ranges waiting for their end record. */
#define OPEN_MARKERS 1024u
struct open_marker {
  uint32_t id; /* 0: slot free */
  uint32_t name_id, domain_name_id, tid;
  uint64_t start_ns;
};
static struct open_marker open_markers[OPEN_MARKERS];

uint64_t gwt_sane_end(uint64_t start_ns, uint64_t end_ns) {
  return end_ns < start_ns ? start_ns : end_ns;
}

/* ---- activity records -> wire records --------------------------------------- */

static uint8_t mem_kind(uint32_t k) {
  return k <= GW_WIRE_MEM_KIND_MAX ? (uint8_t)k : 0;
}
/* The time range of a CUPTI record with start and end fields, its end
 * made sane. */
#define SET_SANE_SPAN(w, rec)                                                                                          \
  do {                                                                                                                 \
    (w)->start_ns = (rec)->start;                                                                                      \
    (w)->end_ns = gwt_sane_end((rec)->start, (rec)->end);                                                              \
  } while (0)
/* Where a CUPTI GPU activity record ran (GW_WIRE_STREAM_FIELDS). */
#define SET_STREAM_OF(w, rec)                                                                                          \
  GW_WIRE_SET_STREAM(w, (rec)->deviceId, (rec)->contextId, (rec)->streamId, (rec)->correlationId)

static uint32_t at_least_1(uint32_t v) {
  return v ? v : 1;
}

static void convert_kernel(const CUpti_ActivityKernel10 *k) {
  struct gw_wire_kernel w;
  int cut = 0;
  uint16_t flags = 0;
  uint32_t name_id = gwt_name_id_locked(k->name, &cut);
  if (cut)
    flags |= GW_WIRE_KERNEL_NAME_CUT;
  if (gw_wire_is_nccl_kernel(k->name))
    flags |= GW_WIRE_KERNEL_NCCL;
  if (k->start == 0 && k->end == 0)
    flags |= GW_WIRE_KERNEL_NO_TIMESTAMP;
  gw_wire_kernel_init(&w, flags);
  w.start_ns = k->start;
  w.end_ns = (flags & GW_WIRE_KERNEL_NO_TIMESTAMP) ? 0 : gwt_sane_end(k->start, k->end);
  SET_STREAM_OF(&w, k);
  w.name_id = name_id;
  w.grid_x = at_least_1((uint32_t)k->gridX);
  w.grid_y = at_least_1((uint32_t)k->gridY);
  w.grid_z = at_least_1((uint32_t)k->gridZ);
  w.block_x = at_least_1((uint32_t)k->blockX);
  w.block_y = at_least_1((uint32_t)k->blockY);
  w.block_z = at_least_1((uint32_t)k->blockZ);
  w.regs_per_thread = k->registersPerThread;
  w.static_shmem_bytes = (uint32_t)k->staticSharedMemory;
  w.dynamic_shmem_bytes = (uint32_t)k->dynamicSharedMemory;
  w.graph_id = k->graphId;
  w.graph_node_id = k->graphNodeId;
  if (k->graphId)
    atomic_store_explicit(&saw_graph, 1, memory_order_relaxed);
  gwt_out_put_locked(&w, sizeof w);
}

static void convert_memcpy(const CUpti_ActivityMemcpy6 *m) {
  struct gw_wire_memcpy w;
  gw_wire_memcpy_init(&w, (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? GW_WIRE_MEMCPY_ASYNC : 0);
  SET_SANE_SPAN(&w, m);
  w.bytes = m->bytes;
  SET_STREAM_OF(&w, m);
  w.copy_kind = m->copyKind <= GW_WIRE_COPY_KIND_MAX ? m->copyKind : 0;
  w.src_kind = mem_kind(m->srcKind);
  w.dst_kind = mem_kind(m->dstKind);
  w.graph_id = m->graphId;
  gwt_out_put_locked(&w, sizeof w);
}

static void convert_memset(const CUpti_ActivityMemset4 *m) {
  struct gw_wire_memset w;
  gw_wire_memset_init(&w, 0);
  SET_SANE_SPAN(&w, m);
  w.bytes = m->bytes;
  SET_STREAM_OF(&w, m);
  w.value = m->value;
  w.mem_kind = mem_kind(m->memoryKind);
  gwt_out_put_locked(&w, sizeof w);
}

static void convert_sync(const CUpti_ActivitySynchronization2 *s) {
  struct gw_wire_sync w;
  gw_wire_sync_init(&w, 0);
  SET_SANE_SPAN(&w, s);
  w.sync_type = (uint32_t)s->type <= GW_WIRE_SYNC_TYPE_MAX ? (uint32_t)s->type : 0;
  w.context = s->contextId;
  w.stream = s->streamId;
  w.correlation = s->correlationId;
  w.cuda_event_id = s->cudaEventId;
  gwt_out_put_locked(&w, sizeof w);
}

static void convert_api(const CUpti_ActivityAPI *a, uint32_t domain) {
  if (!cbid_kept(domain == GW_WIRE_API_RUNTIME ? runtime_keep_bits : driver_keep_bits, a->cbid))
    return;
  struct gw_wire_api w;
  gw_wire_api_init(&w, 0);
  SET_SANE_SPAN(&w, a);
  w.cbid = a->cbid;
  w.domain = domain;
  w.tid = a->threadId;
  w.correlation = a->correlationId;
  w.return_value = a->returnValue;
  gwt_out_put_locked(&w, sizeof w);
}

static void emit_marker(uint64_t start_ns, uint64_t end_ns, uint32_t name_id, uint32_t domain_id, uint32_t tid,
                        uint32_t marker_id, uint16_t flags) {
  struct gw_wire_marker w;
  gw_wire_marker_init(&w, flags);
  w.start_ns = start_ns;
  w.end_ns = gwt_sane_end(start_ns, end_ns);
  w.name_id = name_id;
  w.domain_name_id = domain_id;
  w.tid = tid;
  w.marker_id = marker_id;
  gwt_out_put_locked(&w, sizeof w);
}

/* CUPTI gives a start record and an end record per range; pair them. */
static void convert_marker(const CUpti_ActivityMarker2 *m) {
  int cut = 0;
  uint32_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    uint32_t name_id = gwt_name_id_locked(m->name, &cut);
    uint32_t domain_id = gwt_name_id_locked(m->domain, &cut);
    emit_marker(m->timestamp, m->timestamp, name_id, domain_id, tid, m->id, GW_WIRE_MARKER_INSTANT);
    return;
  }
  uint32_t id = m->id ? m->id : 1;
  uint32_t slot = id % OPEN_MARKERS;
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    for (uint32_t probe = 0; probe < OPEN_MARKERS; probe++) {
      struct open_marker *o = &open_markers[(slot + probe) % OPEN_MARKERS];
      if (o->id == 0) {
        o->id = id;
        o->name_id = gwt_name_id_locked(m->name, &cut);
        o->domain_name_id = gwt_name_id_locked(m->domain, &cut);
        o->tid = tid;
        o->start_ns = m->timestamp;
        return;
      }
    }
    return; /* more than OPEN_MARKERS ranges open: this one is not recorded */
  }
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    for (uint32_t probe = 0; probe < OPEN_MARKERS; probe++) {
      struct open_marker *o = &open_markers[(slot + probe) % OPEN_MARKERS];
      if (o->id == id) {
        emit_marker(o->start_ns, m->timestamp, o->name_id, o->domain_name_id, o->tid, id, 0);
        o->id = 0;
        /* Re-seat later entries of this probe chain would be needed for a
         * strict open-addressing delete; a linear scan on lookup (above)
         * tolerates the hole instead, at the cost of scanning on misses. */
        return;
      }
    }
  }
}

static void convert_memory(const CUpti_ActivityMemory4 *m) {
  uint32_t op;
  if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
    op = GW_WIRE_MEMORY_ALLOC;
  else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
    op = GW_WIRE_MEMORY_FREE;
  else
    return;
  struct gw_wire_memory w;
  gw_wire_memory_init(&w, m->isAsync ? GW_WIRE_MEMORY_ASYNC : 0);
  w.t_ns = m->timestamp;
  w.address = m->address;
  w.bytes = m->bytes;
  w.device = m->deviceId;
  w.op = op;
  w.mem_kind = mem_kind((uint32_t)m->memoryKind);
  w.correlation = m->correlationId;
  w.stream = m->streamId;
  gwt_out_put_locked(&w, sizeof w);
}

static void convert_overhead(const CUpti_ActivityOverhead3 *o) {
  struct gw_wire_overhead w;
  gw_wire_overhead_init(&w, 0);
  SET_SANE_SPAN(&w, o);
  w.overhead_kind = (uint32_t)o->overheadKind;
  w.object_kind = (uint32_t)o->objectKind;
  if (o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS)
    w.object_id = o->objectId.pt.threadId;
  else
    w.object_id = o->objectId.dcs.deviceId;
  gwt_out_put_locked(&w, sizeof w);
}

static void convert_graph(const CUpti_ActivityGraphTrace2 *g) {
  atomic_store_explicit(&saw_graph, 1, memory_order_relaxed);
  struct gw_wire_graph w;
  gw_wire_graph_init(&w, 0);
  SET_SANE_SPAN(&w, g);
  SET_STREAM_OF(&w, g);
  w.graph_id = g->graphId;
  gwt_out_put_locked(&w, sizeof w);
}

static uint32_t clamp_u32(uint64_t v) {
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void convert_device(const CUpti_ActivityDevice5 *d) {
  struct gw_wire_device w;
  gw_wire_device_init(&w, 0);
  w.device = d->id;
  w.sm_count = d->numMultiprocessors;
  w.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
  w.max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
  w.max_regs_per_sm = d->maxRegistersPerMultiprocessor;
  w.max_regs_per_block = d->maxRegistersPerBlock;
  w.max_shmem_per_sm_bytes = d->maxSharedMemoryPerMultiprocessor;
  w.max_shmem_per_block_bytes = d->maxSharedMemoryPerBlock;
  w.max_threads_per_block = d->maxThreadsPerBlock;
  w.threads_per_warp = d->numThreadsPerWarp;
  w.cc_major = (uint16_t)(d->computeCapabilityMajor > UINT16_MAX ? 0 : d->computeCapabilityMajor);
  w.cc_minor = (uint16_t)(d->computeCapabilityMinor > UINT16_MAX ? 0 : d->computeCapabilityMinor);
  w.core_clock_khz = clamp_u32(d->coreClockRate);
  /* Keep within the reader's bounds (trace_reader.c): a value past them is
   * CUPTI not knowing, sent as 0. */
  if (w.sm_count > 65536 || w.max_warps_per_sm > 4096 || w.max_blocks_per_sm > 4096 || w.max_regs_per_sm > (1u << 24) ||
      w.max_shmem_per_sm_bytes > (1u << 30) || w.threads_per_warp > 1024)
    w.sm_count = w.max_warps_per_sm = w.max_blocks_per_sm = w.max_regs_per_sm = w.max_shmem_per_sm_bytes =
        w.threads_per_warp = 0;
  gwt_out_put_locked(&w, sizeof w);
}

void gwt_convert_locked(const CUpti_Activity *rec) {
  switch (rec->kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    convert_kernel((const CUpti_ActivityKernel10 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    convert_memcpy((const CUpti_ActivityMemcpy6 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_MEMSET:
    convert_memset((const CUpti_ActivityMemset4 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    convert_sync((const CUpti_ActivitySynchronization2 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    convert_api((const CUpti_ActivityAPI *)rec, GW_WIRE_API_RUNTIME);
    break;
  case CUPTI_ACTIVITY_KIND_DRIVER:
    convert_api((const CUpti_ActivityAPI *)rec, GW_WIRE_API_DRIVER);
    break;
  case CUPTI_ACTIVITY_KIND_MARKER:
    convert_marker((const CUpti_ActivityMarker2 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_MEMORY2:
    convert_memory((const CUpti_ActivityMemory4 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_OVERHEAD:
    convert_overhead((const CUpti_ActivityOverhead3 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
    convert_graph((const CUpti_ActivityGraphTrace2 *)rec);
    break;
  case CUPTI_ACTIVITY_KIND_DEVICE:
    convert_device((const CUpti_ActivityDevice5 *)rec);
    break;
  default:
    break; /* kinds we did not ask for (or a future one): ignore */
  }
}
