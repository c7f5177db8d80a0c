#include "trace_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The buffer holds at least one largest record plus the header, so a
 * complete record always fits once the bytes before it are consumed. */
#define READ_BUF_BYTES (1u << 20)
_Static_assert(READ_BUF_BYTES >= 2 * GW_WIRE_RECORD_MAX_BYTES, "read buffer too small");

/* Bytes of the header every version shares: magic, version, header size. */
#define HEADER_PREFIX_BYTES 16u
#define HEADER_MAX_BYTES 4096u
#define TIME_MAX_NS ((uint64_t)INT64_MAX)

struct gw_trace_reader {
  int fd;
  char *path;
  unsigned char *buf;    /* bytes of the file starting at buf_file_off */
  size_t have_bytes;     /* valid bytes in buf */
  uint64_t buf_file_off; /* file offset of buf[0] */
  int have_header;
  struct gw_wire_file_header header;
  uint8_t *name_defined; /* bitmap over name ids */
  size_t name_defined_bytes;
  gw_status sticky; /* a file found broken stays broken */
  struct gw_err sticky_err;
  struct gw_trace_reader_stats stats;
};

static const char *type_label(uint16_t type) {
  static const char *const labels[GW_WIRE_TYPE_COUNT] = {
#define LABEL_(KIND, id, kind, bytes, table, key, check) [GW_WIRE_##KIND] = #KIND,
      GW_WIRE_KINDS(LABEL_, LABEL_)
#undef LABEL_
  };
  if (type < GW_WIRE_TYPE_COUNT && labels[type])
    return labels[type];
  return "unknown";
}

/* Fixed part of each known record; NAME and NOTE carry text after it. */
static uint32_t fixed_bytes(uint16_t type) {
  static const uint32_t bytes[GW_WIRE_TYPE_COUNT] = {
#define BYTES_(KIND, id, kind, bytes_, table, key, check) [GW_WIRE_##KIND] = sizeof(struct gw_wire_##kind),
      GW_WIRE_KINDS(BYTES_, BYTES_)
#undef BYTES_
  };
  return type < GW_WIRE_TYPE_COUNT ? bytes[type] : 0;
}

/* Records an error for this and every later call. */
static gw_status fail(struct gw_trace_reader *rd, struct gw_err *err, uint64_t offset, const char *fmt, ...)
    GW_PRINTF(4, 5);
static gw_status fail(struct gw_trace_reader *rd, struct gw_err *err, uint64_t offset, const char *fmt, ...) {
  char what[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  rd->sticky = GW_EINPUT;
  gw_err_set(&rd->sticky_err, "%s: byte offset %llu: %s", rd->path, (unsigned long long)offset, what);
  if (err)
    *err = rd->sticky_err;
  return GW_EINPUT;
}

static int name_is_defined(const struct gw_trace_reader *rd, uint32_t id) {
  size_t byte = id / 8;
  return byte < rd->name_defined_bytes && (rd->name_defined[byte] >> (id % 8)) & 1u;
}

static void name_mark_defined(struct gw_trace_reader *rd, uint32_t id) {
  size_t byte = id / 8;
  if (byte >= rd->name_defined_bytes) {
    size_t grown = rd->name_defined_bytes ? rd->name_defined_bytes : 64;
    while (grown <= byte)
      grown *= 2;
    rd->name_defined = gw_xrealloc(rd->name_defined, grown);
    memset(rd->name_defined + rd->name_defined_bytes, 0, grown - rd->name_defined_bytes);
    rd->name_defined_bytes = grown;
  }
  rd->name_defined[byte] |= (uint8_t)(1u << (id % 8));
}

gw_status gw_trace_reader_open(struct gw_trace_reader **out, const char *path, struct gw_err *err) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    gw_err_set(err, "%s: cannot open trace file: %s", path, strerror(errno));
    return GW_EIO;
  }
  struct gw_trace_reader *rd = gw_xcalloc(1, sizeof *rd);
  rd->fd = fd;
  rd->path = gw_xstrdup(path);
  /* not cleared: only the have_bytes read into it are ever looked at, and
   * clearing 1 MiB per file cost more than reading a small one */
  rd->buf = gw_xrealloc(NULL, READ_BUF_BYTES);
  *out = rd;
  return GW_OK;
}

void gw_trace_reader_close(struct gw_trace_reader *rd) {
  if (!rd)
    return;
  close(rd->fd);
  free(rd->path);
  free(rd->buf);
  free(rd->name_defined);
  free(rd);
}

const struct gw_wire_file_header *gw_trace_reader_header(const struct gw_trace_reader *rd) {
  return rd->have_header ? &rd->header : NULL;
}

void gw_trace_reader_get_stats(const struct gw_trace_reader *rd, struct gw_trace_reader_stats *out) {
  *out = rd->stats;
}

/* Parses the file header once enough bytes are there. Returns GW_OK with
 * *used = 0 when more bytes are needed. */
static gw_status parse_header(struct gw_trace_reader *rd, const struct gw_trace_callbacks *cb, size_t *used,
                              struct gw_err *err) {
  *used = 0;
  size_t have = rd->have_bytes;
  size_t magic_have = have < GW_WIRE_MAGIC_BYTES ? have : GW_WIRE_MAGIC_BYTES;
  if (memcmp(rd->buf, GW_WIRE_MAGIC, magic_have) != 0)
    return fail(rd, err, 0, "not a gpuwhy trace file (expected the magic \"GWTRACE\\0\")");
  if (have < HEADER_PREFIX_BYTES)
    return GW_OK;
  uint16_t major, minor;
  uint32_t header_bytes;
  memcpy(&major, rd->buf + 8, sizeof major);
  memcpy(&minor, rd->buf + 10, sizeof minor);
  memcpy(&header_bytes, rd->buf + 12, sizeof header_bytes);
  if (major != GW_WIRE_VERSION_MAJOR)
    return fail(rd, err, 8, "wire format version %u.%u, this build reads major version %u only%s", major, minor,
                GW_WIRE_VERSION_MAJOR, major > GW_WIRE_VERSION_MAJOR ? " (the tracer is newer: update gpuwhy)" : "");
  if (header_bytes < sizeof(struct gw_wire_file_header) || header_bytes > HEADER_MAX_BYTES || header_bytes % 8)
    return fail(rd, err, 12, "header size %u (expected a multiple of 8 between %zu and %u)", header_bytes,
                sizeof(struct gw_wire_file_header), HEADER_MAX_BYTES);
  if (have < header_bytes)
    return GW_OK;
  struct gw_wire_file_header h;
  memcpy(&h, rd->buf, sizeof h);
  if (h.mode != GW_WIRE_MODE_FULL && h.mode != GW_WIRE_MODE_SAMPLED && h.mode != GW_WIRE_MODE_NVTX)
    return fail(rd, err, offsetof(struct gw_wire_file_header, mode),
                "trace mode %u (expected 1 full, 2 sampled or 3 nvtx)", h.mode);
  if (h.pid == 0)
    return fail(rd, err, offsetof(struct gw_wire_file_header, pid), "pid 0 (expected the traced process id)");
  if (h.start_ns > TIME_MAX_NS)
    return fail(rd, err, offsetof(struct gw_wire_file_header, start_ns), "start time out of range");
  rd->header = h;
  rd->have_header = 1;
  *used = header_bytes;
  if (cb && cb->on_header)
    return cb->on_header(cb->ctx, &rd->header);
  return GW_OK;
}

/* Where a record stands, for the checks' messages. */
struct at {
  struct gw_trace_reader *rd;
  struct gw_err *err;
  uint64_t off;
  const char *label;
};

/* Shared checks of a time range; names the field that is wrong. */
static gw_status check_span(const struct at *at, uint64_t start_ns, uint64_t end_ns) {
  if (start_ns > TIME_MAX_NS || end_ns > TIME_MAX_NS)
    return fail(at->rd, at->err, at->off, "%s record: timestamp above 2^63 ns", at->label);
  if (end_ns < start_ns)
    return fail(at->rd, at->err, at->off, "%s record: end %llu ns before start %llu ns", at->label,
                (unsigned long long)end_ns, (unsigned long long)start_ns);
  return GW_OK;
}

static gw_status check_instant(const struct at *at, uint64_t t_ns) {
  if (t_ns > TIME_MAX_NS)
    return fail(at->rd, at->err, at->off, "%s record: timestamp above 2^63 ns", at->label);
  return GW_OK;
}

static gw_status check_name_ref(const struct at *at, const char *field, uint32_t id) {
  if (id != 0 && !name_is_defined(at->rd, id))
    return fail(at->rd, at->err, at->off, "%s record: %s %u was not defined by an earlier NAME record", at->label,
                field, id);
  return GW_OK;
}

#define CHECK(expr)                                                                                                    \
  do {                                                                                                                 \
    gw_status check_rc_ = (expr);                                                                                      \
    if (check_rc_ != GW_OK)                                                                                            \
      return check_rc_;                                                                                                \
  } while (0)

/* A kind's number field (a memory kind, a sync type): what it names ends at max. */
static gw_status check_at_most(const struct at *at, const char *what, uint32_t v, uint32_t max) {
  if (v > max)
    return fail(at->rd, at->err, at->off, "%s %u (expected <= %u)", what, v, max);
  return GW_OK;
}

/* A field with two meanings on the wire, a (named a_name) and b. */
static gw_status check_either(const struct at *at, const char *what, uint32_t v, uint32_t a, const char *a_name,
                              uint32_t b, const char *b_name) {
  if (v != a && v != b)
    return fail(at->rd, at->err, at->off, "%s %u (expected %u %s or %u %s)", what, v, a, a_name, b, b_name);
  return GW_OK;
}

/* ---- the checks of each kind (wire_kinds.h), before its callback ---- */

static gw_status check_name(const struct at *at, const struct gw_wire_name *n, uint32_t size_bytes) {
  uint32_t id = n->name_id, len = n->len_bytes;
  if (id == 0 || id > GW_WIRE_NAME_ID_MAX)
    return fail(at->rd, at->err, at->off, "NAME record: id %u (expected 1 to %u)", id, GW_WIRE_NAME_ID_MAX);
  if (len > GW_WIRE_NAME_MAX_BYTES)
    return fail(at->rd, at->err, at->off, "NAME record: length %u (expected at most %u)", len, GW_WIRE_NAME_MAX_BYTES);
  if (size_bytes < sizeof *n + GW_WIRE_ALIGN8(len))
    return fail(at->rd, at->err, at->off, "NAME record: %u bytes cannot hold a %u-byte name", size_bytes, len);
  if (name_is_defined(at->rd, id))
    return fail(at->rd, at->err, at->off, "NAME record: id %u defined twice", id);
  return GW_OK;
}

static gw_status check_kernel(const struct at *at, const struct gw_wire_kernel *k) {
  if (k->h.flags & GW_WIRE_KERNEL_NO_TIMESTAMP) {
    if (k->start_ns != 0 || k->end_ns != 0)
      return fail(at->rd, at->err, at->off, "KERNEL record: flagged without timestamp but has start/end");
  } else {
    CHECK(check_span(at, k->start_ns, k->end_ns));
  }
  CHECK(check_name_ref(at, "name_id", k->name_id));
  if (k->grid_x == 0 || k->grid_y == 0 || k->grid_z == 0 || k->block_x == 0 || k->block_y == 0 || k->block_z == 0)
    return fail(at->rd, at->err, at->off, "KERNEL record: a grid or block dimension is 0 (expected >= 1)");
  return GW_OK;
}

static gw_status check_memcpy(const struct at *at, const struct gw_wire_memcpy *m) {
  CHECK(check_span(at, m->start_ns, m->end_ns));
  if (m->copy_kind > GW_WIRE_COPY_KIND_MAX || m->src_kind > GW_WIRE_MEM_KIND_MAX || m->dst_kind > GW_WIRE_MEM_KIND_MAX)
    return fail(at->rd, at->err, at->off, "MEMCPY record: copy kind %u / src %u / dst %u (expected <= %u / %u / %u)",
                m->copy_kind, m->src_kind, m->dst_kind, GW_WIRE_COPY_KIND_MAX, GW_WIRE_MEM_KIND_MAX,
                GW_WIRE_MEM_KIND_MAX);
  return GW_OK;
}

static gw_status check_memset(const struct at *at, const struct gw_wire_memset *m) {
  CHECK(check_span(at, m->start_ns, m->end_ns));
  return check_at_most(at, "MEMSET record: memory kind", m->mem_kind, GW_WIRE_MEM_KIND_MAX);
}

static gw_status check_sync(const struct at *at, const struct gw_wire_sync *s) {
  CHECK(check_span(at, s->start_ns, s->end_ns));
  return check_at_most(at, "SYNC record: type", s->sync_type, GW_WIRE_SYNC_TYPE_MAX);
}

static gw_status check_api(const struct at *at, const struct gw_wire_api *a) {
  CHECK(check_span(at, a->start_ns, a->end_ns));
  return check_either(at, "API record: domain", a->domain, GW_WIRE_API_DRIVER, "driver", GW_WIRE_API_RUNTIME,
                      "runtime");
}

static gw_status check_marker(const struct at *at, const struct gw_wire_marker *m) {
  CHECK(check_span(at, m->start_ns, m->end_ns));
  CHECK(check_name_ref(at, "name_id", m->name_id));
  return check_name_ref(at, "domain_name_id", m->domain_name_id);
}

static gw_status check_memory(const struct at *at, const struct gw_wire_memory *m) {
  CHECK(check_instant(at, m->t_ns));
  CHECK(
      check_either(at, "MEMORY record: operation", m->op, GW_WIRE_MEMORY_ALLOC, "alloc", GW_WIRE_MEMORY_FREE, "free"));
  return check_at_most(at, "MEMORY record: memory kind", m->mem_kind, GW_WIRE_MEM_KIND_MAX);
}

static gw_status check_window(const struct at *at, const struct gw_wire_window *w) {
  CHECK(check_span(at, w->start_ns, w->end_ns));
  return check_either(at, "WINDOW record: mode", w->mode, GW_WIRE_MODE_FULL, "full", GW_WIRE_MODE_SAMPLED, "sampled");
}

static gw_status check_note(const struct at *at, const struct gw_wire_note *n, uint32_t size_bytes) {
  CHECK(check_instant(at, n->t_ns));
  if (n->level > GW_WIRE_NOTE_ERROR)
    return fail(at->rd, at->err, at->off, "NOTE record: level %u (expected 0 to 2)", n->level);
  if (n->len_bytes > GW_WIRE_NOTE_MAX_BYTES)
    return fail(at->rd, at->err, at->off, "NOTE record: length %u (expected at most %u)", n->len_bytes,
                GW_WIRE_NOTE_MAX_BYTES);
  if (size_bytes < sizeof *n + GW_WIRE_ALIGN8(n->len_bytes))
    return fail(at->rd, at->err, at->off, "NOTE record: %u bytes cannot hold a %u-byte text", size_bytes, n->len_bytes);
  return GW_OK;
}

static gw_status check_device(const struct at *at, const struct gw_wire_device *d) {
  /* Bounds well above any GPU made (H200: 132 SMs, 64 warps, 32 blocks,
   * 64 Ki registers, 228 KiB shared memory per SM), below what would
   * overflow the occupancy arithmetic. */
  if (d->sm_count > 65536 || d->max_warps_per_sm > 4096 || d->max_blocks_per_sm > 4096 ||
      d->max_regs_per_sm > (1u << 24) || d->max_shmem_per_sm_bytes > (1u << 30) || d->threads_per_warp > 1024)
    return fail(at->rd, at->err, at->off,
                "DEVICE record: limits out of range (SMs %u, warps/SM %u, blocks/SM %u, registers/SM %u, shared "
                "bytes/SM %u, threads/warp %u)",
                d->sm_count, d->max_warps_per_sm, d->max_blocks_per_sm, d->max_regs_per_sm, d->max_shmem_per_sm_bytes,
                d->threads_per_warp);
  return GW_OK;
}

static gw_status check_pm_sample(const struct at *at, const struct gw_wire_pm_sample *m) {
  CHECK(check_span(at, m->start_ns, m->end_ns));
  /* cycle averages: finite and not negative (a NaN would compare false) */
  if (!(m->sm_cycles_active_avg >= 0 && m->sm_cycles_active_avg < 1e18) ||
      !(m->sm_cycles_elapsed_avg >= 0 && m->sm_cycles_elapsed_avg < 1e18))
    return fail(at->rd, at->err, at->off, "PM_SAMPLE record: cycle counts out of range (active %g, elapsed %g)",
                m->sm_cycles_active_avg, m->sm_cycles_elapsed_avg);
  return GW_OK;
}

/* The check column of wire_kinds.h: a kind's own checks, or the shared ones. */
#define CHECK_OWN(at, rec, kind) check_##kind(at, rec)
#define CHECK_SPAN(at, rec, kind) check_span(at, (rec)->start_ns, (rec)->end_ns)
#define CHECK_INSTANT(at, rec, kind) check_instant(at, (rec)->t_ns)

/* Validates one complete record at p (size_bytes long, at file offset off)
 * and hands it to its callback. */
static gw_status dispatch(struct gw_trace_reader *rd, const struct gw_trace_callbacks *cb, const unsigned char *p,
                          uint16_t type, uint32_t size_bytes, uint64_t off, struct gw_err *err) {
  const struct at at = {rd, err, off, type_label(type)};
  uint32_t pid = rd->header.pid;
  uint32_t need = fixed_bytes(type);
  if (size_bytes < need)
    return fail(rd, err, off, "%s record of %u bytes (expected at least %u)", at.label, size_bytes, need);
  /* An aligned copy of the fixed part. */
  union {
#define MEMBER_(KIND, id, kind, bytes, table, key, check) struct gw_wire_##kind kind;
    GW_WIRE_KINDS(MEMBER_, MEMBER_)
#undef MEMBER_
  } r;
  memcpy(&r, p, need);

  switch (type) {
  case GW_WIRE_NAME:
    CHECK(check_name(&at, &r.name, size_bytes));
    name_mark_defined(rd, r.name.name_id);
    return cb && cb->on_name ? cb->on_name(cb->ctx, pid, r.name.name_id, (const char *)p + need, r.name.len_bytes)
                             : GW_OK;
  case GW_WIRE_NOTE:
    CHECK(check_note(&at, &r.note, size_bytes));
    return cb && cb->on_note ? cb->on_note(cb->ctx, pid, &r.note, (const char *)p + need, r.note.len_bytes) : GW_OK;
    /* every FIXED kind: its checks (the table's check column), then its callback */
#define DISPATCH_(KIND, id, kind, bytes, table, key, check)                                                            \
  case GW_WIRE_##KIND:                                                                                                 \
    CHECK(CHECK_##check(&at, &r.kind, kind));                                                                          \
    return cb && cb->on_##kind ? cb->on_##kind(cb->ctx, pid, &r.kind) : GW_OK;
    GW_WIRE_KINDS(DISPATCH_, GW_WIRE_NONE)
#undef DISPATCH_
  default:
    return fail(rd, err, off, "record type %u is not handled", type);
  }
}

/* Handles every complete record in buf; returns the bytes consumed. */
static gw_status parse_records(struct gw_trace_reader *rd, const struct gw_trace_callbacks *cb, size_t start,
                               size_t *consumed, uint64_t *new_records, struct gw_err *err) {
  size_t pos = start;
  gw_status rc = GW_OK;
  while (rd->have_bytes - pos >= sizeof(struct gw_wire_rec_header)) {
    struct gw_wire_rec_header h;
    memcpy(&h, rd->buf + pos, sizeof h);
    uint64_t off = rd->buf_file_off + pos;
    if (h.size_bytes < sizeof h || h.size_bytes % 8 || h.size_bytes > GW_WIRE_RECORD_MAX_BYTES) {
      rc = fail(rd, err, off, "record size %u (expected a multiple of 8 from 8 to %u)", h.size_bytes,
                GW_WIRE_RECORD_MAX_BYTES);
      break;
    }
    int known = h.type > 0 && h.type < GW_WIRE_TYPE_COUNT;
    if (!known && (h.type == 0 || rd->header.version_minor <= GW_WIRE_VERSION_MINOR)) {
      rc = fail(rd, err, off, "unknown record type %u in a version %u.%u file", h.type, rd->header.version_major,
                rd->header.version_minor);
      break;
    }
    if (rd->have_bytes - pos < h.size_bytes)
      break; /* the rest of this record has not been written yet */
    if (known) {
      rc = dispatch(rd, cb, rd->buf + pos, h.type, h.size_bytes, off, err);
      if (rc != GW_OK)
        break;
      rd->stats.records++;
      if (new_records)
        (*new_records)++;
    } else {
      rd->stats.skipped_unknown++; /* a newer minor version's type: skip by size */
    }
    pos += h.size_bytes;
  }
  *consumed = pos;
  return rc;
}

gw_status gw_trace_reader_poll(struct gw_trace_reader *rd, const struct gw_trace_callbacks *cb, uint64_t *new_records,
                               struct gw_err *err) {
  if (new_records)
    *new_records = 0;
  if (rd->sticky != GW_OK) {
    if (err)
      *err = rd->sticky_err;
    return rd->sticky;
  }
  for (;;) {
    ssize_t n = pread(rd->fd, rd->buf + rd->have_bytes, READ_BUF_BYTES - rd->have_bytes,
                      (off_t)(rd->buf_file_off + rd->have_bytes));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      gw_err_set(err, "%s: read failed at byte offset %llu: %s", rd->path,
                 (unsigned long long)(rd->buf_file_off + rd->have_bytes), strerror(errno));
      return GW_EIO;
    }
    if (n == 0)
      return GW_OK;
    rd->have_bytes += (size_t)n;

    size_t pos = 0;
    if (!rd->have_header) {
      gw_status rc = parse_header(rd, cb, &pos, err);
      if (rc != GW_OK)
        return rc;
      if (!rd->have_header)
        continue; /* the header is not complete yet; read again */
    }
    size_t consumed = pos;
    gw_status rc = parse_records(rd, cb, pos, &consumed, new_records, err);
    /* Keep the partial record (if any) at the front of the buffer. */
    memmove(rd->buf, rd->buf + consumed, rd->have_bytes - consumed);
    rd->have_bytes -= consumed;
    rd->buf_file_off += consumed;
    rd->stats.bytes_consumed = rd->buf_file_off;
    if (rc != GW_OK)
      return rc;
  }
}

gw_status gw_trace_reader_finish(struct gw_trace_reader *rd, struct gw_err *err) {
  if (rd->sticky != GW_OK) {
    if (err)
      *err = rd->sticky_err;
    return rd->sticky;
  }
  if (!rd->have_header)
    return fail(rd, err, rd->have_bytes, "the file ends inside its header (truncated: %zu bytes, at least %zu needed)",
                rd->have_bytes, sizeof(struct gw_wire_file_header));
  if (rd->have_bytes > 0) {
    struct gw_wire_rec_header h = {0};
    memcpy(&h, rd->buf, rd->have_bytes < sizeof h ? rd->have_bytes : sizeof h);
    if (rd->have_bytes < sizeof h)
      return fail(rd, err, rd->buf_file_off, "the file ends inside a record header (truncated: %zu of 8 bytes)",
                  rd->have_bytes);
    return fail(rd, err, rd->buf_file_off, "the file ends inside a %s record (truncated: %zu of %u bytes)",
                type_label(h.type), rd->have_bytes, h.size_bytes);
  }
  return GW_OK;
}
