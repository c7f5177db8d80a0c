/* Helpers that lay out wire records (tracer/wire.h) in a byte buffer. The
 * tracer writes with them and the reader's tests generate files with them,
 * so both sides share one encoder. Header-only, no allocation, no libc
 * beyond memcpy/memset. */
#ifndef GW_TRACER_WIRE_ENCODE_H
#define GW_TRACER_WIRE_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire.h"

static inline void gw_wire_file_header_init(struct gw_wire_file_header *h, uint32_t pid, uint64_t start_ns,
                                            uint32_t cupti_version, uint32_t mode, uint32_t window_ms,
                                            uint32_t period_ms) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, GW_WIRE_MAGIC, GW_WIRE_MAGIC_BYTES);
  h->version_major = GW_WIRE_VERSION_MAJOR;
  h->version_minor = GW_WIRE_VERSION_MINOR;
  h->header_bytes = sizeof *h;
  h->pid = pid;
  h->start_ns = start_ns;
  h->cupti_version = cupti_version;
  h->mode = mode;
  h->window_ms = window_ms;
  h->period_ms = period_ms;
}

/* Sets the header of a fixed-size record struct: GW_WIRE_REC_INIT(&k, GW_WIRE_KERNEL, 0). */
#define GW_WIRE_REC_INIT(rec, type_, flags_)                                                                           \
  do {                                                                                                                 \
    memset((rec), 0, sizeof *(rec));                                                                                   \
    (rec)->h.type = (uint16_t)(type_);                                                                                 \
    (rec)->h.flags = (uint16_t)(flags_);                                                                               \
    (rec)->h.size_bytes = (uint32_t)sizeof *(rec);                                                                     \
  } while (0)

/* A typed initialiser per kind (wire_kinds.h): gw_wire_kernel_init(&k, flags)
 * zeroes the record and sets its header, so the type always matches the struct. */
#define GW_WIRE_INIT_FN_(KIND, id, kind, bytes, table, key, check)                                                     \
  static inline void gw_wire_##kind##_init(struct gw_wire_##kind *rec, uint16_t flags) {                               \
    GW_WIRE_REC_INIT(rec, GW_WIRE_##KIND, flags);                                                                      \
  }
GW_WIRE_KINDS(GW_WIRE_INIT_FN_, GW_WIRE_INIT_FN_)
#undef GW_WIRE_INIT_FN_

/* Sets where a GPU activity ran (GW_WIRE_STREAM_FIELDS) in any record that
 * has those fields: kernels, copies, memsets, graph launches. */
#define GW_WIRE_SET_STREAM(rec, device_, context_, stream_, correlation_)                                              \
  do {                                                                                                                 \
    (rec)->device = (device_);                                                                                         \
    (rec)->context = (context_);                                                                                       \
    (rec)->stream = (stream_);                                                                                         \
    (rec)->correlation = (correlation_);                                                                               \
  } while (0)

/* What a MEMCPY and a MEMSET record share: when, how many bytes, and where
 * (GW_WIRE_SET_STREAM), so the importers fill both the same way. */
#define GW_WIRE_SET_TRANSFER(rec, start_ns_, end_ns_, bytes_, device_, context_, stream_, correlation_)                \
  do {                                                                                                                 \
    (rec)->start_ns = (start_ns_);                                                                                     \
    (rec)->end_ns = (end_ns_);                                                                                         \
    (rec)->bytes = (bytes_);                                                                                           \
    GW_WIRE_SET_STREAM(rec, device_, context_, stream_, correlation_);                                                 \
  } while (0)

/* Bytes a text record (NAME or NOTE) takes for len bytes of text. */
static inline uint32_t gw_wire_text_record_bytes(uint32_t fixed_bytes, uint32_t len) {
  return fixed_bytes + GW_WIRE_ALIGN8(len);
}

/* Writes the fixed part rec (whose size_bytes it sets) and len bytes of text,
 * zero padded, at dst (cap bytes free). Returns the bytes written, 0 when
 * they do not fit. */
static inline size_t gw_wire_encode_text(void *dst, size_t cap, void *rec, size_t fixed_bytes, const char *text,
                                         size_t len) {
  uint32_t total = gw_wire_text_record_bytes((uint32_t)fixed_bytes, (uint32_t)len);
  if (total > cap)
    return 0;
  ((struct gw_wire_rec_header *)rec)->size_bytes = total;
  unsigned char *p = dst;
  memcpy(p, rec, fixed_bytes);
  memcpy(p + fixed_bytes, text, len);
  memset(p + fixed_bytes + len, 0, total - fixed_bytes - len);
  return total;
}

/* Writes a NAME record at dst (cap bytes free). The name is cut to
 * GW_WIRE_NAME_MAX_BYTES. Returns the bytes written, 0 when it does not fit. */
static inline size_t gw_wire_encode_name(void *dst, size_t cap, uint32_t name_id, const char *name, size_t len) {
  if (len > GW_WIRE_NAME_MAX_BYTES)
    len = GW_WIRE_NAME_MAX_BYTES;
  struct gw_wire_name rec;
  gw_wire_name_init(&rec, 0);
  rec.name_id = name_id;
  rec.len_bytes = (uint32_t)len;
  return gw_wire_encode_text(dst, cap, &rec, sizeof rec, name, len);
}

/* Writes a NOTE record; the text is cut to GW_WIRE_NOTE_MAX_BYTES. */
static inline size_t gw_wire_encode_note(void *dst, size_t cap, uint64_t t_ns, uint32_t level, const char *text,
                                         size_t len) {
  if (len > GW_WIRE_NOTE_MAX_BYTES)
    len = GW_WIRE_NOTE_MAX_BYTES;
  struct gw_wire_note rec;
  gw_wire_note_init(&rec, 0);
  rec.t_ns = t_ns;
  rec.level = level;
  rec.len_bytes = (uint32_t)len;
  return gw_wire_encode_text(dst, cap, &rec, sizeof rec, text, len);
}

/* 1 when a kernel name belongs to NCCL (both generations of its naming).
 * CUPTI gives mangled names, and NCCL's kernels are C++ functions in the
 * global namespace ("_Z39ncclDevKernel_...Args"), so a leading "_Z<length>"
 * is skipped before the prefix test. */
static inline int gw_wire_is_nccl_kernel(const char *name) {
  if (!name)
    return 0;
  if (name[0] == '_' && name[1] == 'Z' && name[2] >= '0' && name[2] <= '9') {
    name += 2;
    while (*name >= '0' && *name <= '9')
      name++;
  }
  return strncmp(name, "ncclKernel_", 11) == 0 || strncmp(name, "ncclDevKernel_", 14) == 0;
}

#endif
