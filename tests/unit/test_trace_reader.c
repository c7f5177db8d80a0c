/* The trace reader and the tracer tables: wire files made by a small
 * generator (the tracer's own encoder), read back whole, in growing pieces,
 * truncated and corrupted, then written into an in-memory SQLite DB. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tracer/wire_encode.h"
#include "store/store_sql.h"
#include "sources/trace_reader.h"
#include "store/store_trace.h"
#include "support_test_main.h"

#define TEST_PID 4242u
#define T0_NS 1700000000000000000ull
static const char KERNEL_NAME[] = "_Z10vector_addPfS_S_i";
static const char NCCL_NAME[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

/* A growing byte image of a wire file. */
struct image {
  unsigned char bytes[16384];
  size_t len;
  int records; /* appended after the file header */
};

static void put_bytes(struct image *im, const void *bytes, size_t n) {
  assert_true(im->len + n <= sizeof im->bytes);
  memcpy(im->bytes + im->len, bytes, n);
  im->len += n;
}

/* One record of n bytes, its header included. */
static void put(struct image *im, const void *rec, size_t n) {
  put_bytes(im, rec, n);
  im->records++;
}

/* A record of one wire kind from the fields given (the others zero), its
 * header from the kind's initialiser: PUT_RECORD(im, sync, .stream = 7). */
#define PUT_RECORD(im, kind, ...)                                                                                      \
  do {                                                                                                                 \
    struct gw_wire_##kind rec_ = {__VA_ARGS__};                                                                        \
    struct gw_wire_##kind header_;                                                                                     \
    gw_wire_##kind##_init(&header_, rec_.h.flags);                                                                     \
    rec_.h = header_.h;                                                                                                \
    put((im), &rec_, sizeof rec_);                                                                                     \
  } while (0)

static void put_header(struct image *im, uint16_t major, uint16_t minor) {
  struct gw_wire_file_header h;
  gw_wire_file_header_init(&h, TEST_PID, T0_NS, 130001, GW_WIRE_MODE_SAMPLED, 200, 2000);
  h.version_major = major;
  h.version_minor = minor;
  put_bytes(im, &h, sizeof h);
}

/* The header of this build's wire version. */
static void put_current_header(struct image *im) {
  put_header(im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
}

static void put_name(struct image *im, uint32_t id, const char *name) {
  size_t n = gw_wire_encode_name(im->bytes + im->len, sizeof im->bytes - im->len, id, name, strlen(name));
  assert_true(n > 0);
  im->len += n;
  im->records++;
}

static void put_note(struct image *im, uint64_t t_ns, uint32_t level, const char *text) {
  size_t n = gw_wire_encode_note(im->bytes + im->len, sizeof im->bytes - im->len, t_ns, level, text, strlen(text));
  assert_true(n > 0);
  im->len += n;
  im->records++;
}

static void put_kernel(struct image *im, uint32_t name_id, uint64_t start_ns, uint16_t flags) {
  PUT_RECORD(im, kernel, .h.flags = flags, .start_ns = start_ns, .end_ns = start_ns + 1500, .device = 0, .context = 1,
             .stream = 7, .correlation = 99, .name_id = name_id, .grid_x = 128, .grid_y = 2, .grid_z = 1,
             .block_x = 256, .block_y = 1, .block_z = 1, .regs_per_thread = 32, .static_shmem_bytes = 1024,
             .dynamic_shmem_bytes = 2048, .graph_id = 5, .graph_node_id = 77);
}

/* A file of this version whose first record names kernel 1. */
static void put_header_and_name(struct image *im) {
  put_current_header(im);
  put_name(im, 1, KERNEL_NAME);
}

/* A file of this version with one kernel of kernel 1; returns that kernel
 * record's byte offset, where a test damages it. */
static size_t put_one_kernel_file(struct image *im) {
  put_header_and_name(im);
  size_t kernel_off = im->len;
  put_kernel(im, 1, T0_NS, 0);
  return kernel_off;
}

/* One record of every type, names first. Returns the number of records. */
static int put_every_type(struct image *im) {
  int before = im->records;
  put_name(im, 1, KERNEL_NAME);
  put_name(im, 2, NCCL_NAME);
  put_name(im, 3, "train_step");
  put_kernel(im, 1, T0_NS + 1000, 0);
  put_kernel(im, 2, T0_NS + 5000, GW_WIRE_KERNEL_NCCL);
  PUT_RECORD(im, memcpy, .h.flags = GW_WIRE_MEMCPY_ASYNC, .start_ns = T0_NS + 10000, .end_ns = T0_NS + 20000,
             .bytes = 1u << 20, .stream = 7, .correlation = 100, .copy_kind = 1, .src_kind = GW_WIRE_MEM_KIND_PAGEABLE,
             .dst_kind = GW_WIRE_MEM_KIND_DEVICE);
  PUT_RECORD(im, memset, .start_ns = T0_NS + 21000, .end_ns = T0_NS + 22000, .bytes = 4096,
             .mem_kind = GW_WIRE_MEM_KIND_DEVICE);
  PUT_RECORD(im, sync, .start_ns = T0_NS + 23000, .end_ns = T0_NS + 90000, .sync_type = 3, .stream = 7);
  PUT_RECORD(im, api, .start_ns = T0_NS + 900, .end_ns = T0_NS + 1400, .cbid = 211, .domain = GW_WIRE_API_RUNTIME,
             .tid = 4243, .correlation = 99);
  PUT_RECORD(im, marker, .start_ns = T0_NS, .end_ns = T0_NS + 100000, .name_id = 3, .tid = 4243);
  PUT_RECORD(im, memory, .t_ns = T0_NS + 500, .address = 0x7f0000000000ull, .bytes = 1u << 21,
             .op = GW_WIRE_MEMORY_ALLOC, .mem_kind = GW_WIRE_MEM_KIND_DEVICE);
  PUT_RECORD(im, window, .start_ns = T0_NS, .end_ns = T0_NS + 200000000ull, .mode = GW_WIRE_MODE_SAMPLED,
             .kinds = GW_WIRE_KINDS_KERNEL | GW_WIRE_KINDS_API);
  PUT_RECORD(im, launch_count, .start_ns = T0_NS, .end_ns = T0_NS + 2000000000ull, .runtime_launches = 123456,
             .driver_launches = 789);
  PUT_RECORD(im, dropped, .t_ns = T0_NS + 5, .cupti_dropped_records = 17, .buffers_refused = 2);
  put_note(im, T0_NS + 1, GW_WIRE_NOTE_INFO, "tracing sampled: 200 ms every 2000 ms");
  PUT_RECORD(im, overhead, .start_ns = T0_NS + 100, .end_ns = T0_NS + 300, .overhead_kind = 1u << 16);
  PUT_RECORD(im, device, .device = 0, .sm_count = 132, .max_warps_per_sm = 64, .max_blocks_per_sm = 32,
             .max_regs_per_sm = 65536, .max_shmem_per_sm_bytes = 233472, .threads_per_warp = 32, .cc_major = 9);
  PUT_RECORD(im, pm_sample, .start_ns = T0_NS + 1000, .end_ns = T0_NS + 10001000, .sm_cycles_active_avg = 9900000.0,
             .sm_cycles_elapsed_avg = 19800000.0);
  PUT_RECORD(im, graph, .start_ns = T0_NS + 40000, .end_ns = T0_NS + 80000, .graph_id = 5);
  return im->records - before;
}

/* Counting callbacks that also keep a few values to check. */
#define KIND_SLOTS 64
struct seen {
  int header, names, notes;
  int of_kind[KIND_SLOTS]; /* fixed-size records, by wire type */
  uint32_t pid;
  char first_name[64];
  uint32_t nccl_kernels;
  uint64_t runtime_launches;
  char note[128];
};
#define SEEN(s, KIND) ((s).of_kind[GW_WIRE_##KIND])
#define FITS_SLOTS_(KIND, id, kind, bytes, table, key, check)                                                          \
  _Static_assert(id < KIND_SLOTS, "struct seen has no slot for wire type " #KIND);
GW_WIRE_KINDS(FITS_SLOTS_, FITS_SLOTS_)
#undef FITS_SLOTS_

/* Records of every kind a callback gets: header, names, notes, fixed kinds. */
static int records_seen(const struct seen *s) {
  int n = s->header + s->names + s->notes;
  for (int k = 0; k < KIND_SLOTS; k++)
    n += s->of_kind[k];
  return n;
}

/* count_kind for every fixed-size kind of wire_kinds.h */
#define COUNT_KIND_(KIND, id, kind, bytes, table, key, check)                                                          \
  static gw_status count_##kind(void *ctx, uint32_t pid, const struct gw_wire_##kind *r) {                             \
    (void)pid, (void)r;                                                                                                \
    SEEN(*(struct seen *)ctx, KIND)++;                                                                                 \
    return GW_OK;                                                                                                      \
  }
GW_WIRE_KINDS(COUNT_KIND_, GW_WIRE_NONE)
#undef COUNT_KIND_

static gw_status on_header(void *ctx, const struct gw_wire_file_header *h) {
  struct seen *s = ctx;
  s->header++;
  s->pid = h->pid;
  return GW_OK;
}
static gw_status on_name(void *ctx, uint32_t pid, uint32_t id, const char *name, uint32_t len) {
  struct seen *s = ctx;
  (void)pid;
  if (id == 1 && len < sizeof s->first_name) {
    memcpy(s->first_name, name, len);
    s->first_name[len] = 0;
  }
  s->names++;
  return GW_OK;
}
static gw_status on_kernel(void *ctx, uint32_t pid, const struct gw_wire_kernel *k) {
  struct seen *s = ctx;
  assert_int_equal(pid, TEST_PID);
  if (k->h.flags & GW_WIRE_KERNEL_NCCL)
    s->nccl_kernels++;
  return count_kernel(ctx, pid, k);
}
static gw_status on_launch_count(void *ctx, uint32_t pid, const struct gw_wire_launch_count *r) {
  struct seen *s = ctx;
  s->runtime_launches += r->runtime_launches;
  return count_launch_count(ctx, pid, r);
}
static gw_status on_note(void *ctx, uint32_t pid, const struct gw_wire_note *r, const char *text, uint32_t len) {
  (void)pid, (void)r;
  struct seen *s = ctx;
  s->notes++;
  if (len < sizeof s->note) {
    memcpy(s->note, text, len);
    s->note[len] = 0;
  }
  return GW_OK;
}

static struct gw_trace_callbacks counting_callbacks(struct seen *s) {
  struct gw_trace_callbacks cb = {.ctx = s, .on_header = on_header, .on_name = on_name, .on_note = on_note};
#define SET_COUNTER_(KIND, id, kind, bytes, table, key, check) cb.on_##kind = count_##kind;
  GW_WIRE_KINDS(SET_COUNTER_, GW_WIRE_NONE)
#undef SET_COUNTER_
  cb.on_kernel = on_kernel;
  cb.on_launch_count = on_launch_count;
  return cb;
}

/* A fresh file in a private temporary folder for each test. */
struct tmpfile {
  char dir[256];
  char path[320];
};

static void tmp_make(struct tmpfile *t) {
  const char *base = getenv("TMPDIR");
  snprintf(t->dir, sizeof t->dir, "%s/gw_trace_XXXXXX", base && *base ? base : "/tmp");
  assert_non_null(mkdtemp(t->dir));
  snprintf(t->path, sizeof t->path, "%s/trace-%u.gwt", t->dir, TEST_PID);
}

static void tmp_append(const struct tmpfile *t, const void *bytes, size_t n) {
  int fd = open(t->path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, n), (ssize_t)n);
  close(fd);
}

static void tmp_remove(const struct tmpfile *t) {
  unlink(t->path);
  rmdir(t->dir);
}

/* A reader open on an image written to a fresh file; cb counts into a seen. */
struct reading {
  struct tmpfile t;
  struct gw_trace_reader *rd;
  struct gw_trace_callbacks cb;
};

static void reading_open(struct reading *r, const struct image *im, struct seen *s) {
  struct gw_err err = {{0}};
  tmp_make(&r->t);
  tmp_append(&r->t, im->bytes, im->len);
  r->rd = NULL;
  assert_int_equal(gw_trace_reader_open(&r->rd, r->t.path, &err), GW_OK);
  r->cb = counting_callbacks(s);
}

static void reading_close(struct reading *r) {
  gw_trace_reader_close(r->rd);
  tmp_remove(&r->t);
}

/* Reads a whole image in one poll; returns the poll status, the error in err. */
static gw_status read_image(const struct image *im, struct seen *s, struct gw_err *err, gw_status *finish_rc) {
  struct reading r;
  reading_open(&r, im, s);
  gw_status rc = gw_trace_reader_poll(r.rd, &r.cb, NULL, err);
  struct gw_err finish_err;
  gw_status frc = gw_trace_reader_finish(r.rd, &finish_err);
  if (finish_rc)
    *finish_rc = frc;
  if (rc == GW_OK && frc != GW_OK)
    *err = finish_err;
  reading_close(&r);
  return rc;
}

/* Reads the whole file at path into s; returns what finish says, the
 * header's minor version in *minor (-1 without a header). */
static gw_status read_path(const char *path, struct seen *s, int *minor) {
  struct gw_trace_reader *rd = NULL;
  struct gw_err err = {{0}};
  struct gw_trace_callbacks cb = counting_callbacks(s);
  assert_int_equal(gw_trace_reader_open(&rd, path, &err), GW_OK);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, NULL, &err), GW_OK);
  gw_status rc = gw_trace_reader_finish(rd, &err);
  const struct gw_wire_file_header *h = gw_trace_reader_header(rd);
  *minor = h ? h->version_minor : -1;
  gw_trace_reader_close(rd);
  return rc;
}

static void test_every_record_type(void **state) {
  (void)state;
  struct image im = {0};
  put_current_header(&im);
  int n = put_every_type(&im);
  struct seen s = {0};
  struct gw_err err = {{0}};
  gw_status frc;
  assert_int_equal(read_image(&im, &s, &err, &frc), GW_OK);
  assert_int_equal(frc, GW_OK);
  assert_int_equal(s.header, 1);
  assert_int_equal(s.pid, TEST_PID);
  assert_int_equal(s.names, 3);
  assert_string_equal(s.first_name, KERNEL_NAME);
  assert_int_equal(s.nccl_kernels, 1);
  /* two kernels, one record of every other kind */
#define ONE_EACH_(KIND, id, kind, bytes, table, key, check)                                                            \
  if (SEEN(s, KIND) != (GW_WIRE_##KIND == GW_WIRE_KERNEL ? 2 : 1))                                                     \
    fail_msg("%d %s records", SEEN(s, KIND), #KIND);
  GW_WIRE_KINDS(ONE_EACH_, GW_WIRE_NONE)
#undef ONE_EACH_
  assert_int_equal(s.notes, 1);
  assert_int_equal(records_seen(&s), 1 + n);
  assert_int_equal(s.runtime_launches, 123456);
  assert_string_equal(s.note, "tracing sampled: 200 ms every 2000 ms");
}

/* The tracer appends while the recorder reads: a record cut in the middle
 * waits for the next poll. */
static void test_growing_file(void **state) {
  (void)state;
  struct image im = {0};
  put_header_and_name(&im);
  put_kernel(&im, 1, T0_NS + 10, 0);
  put_kernel(&im, 1, T0_NS + 20, 0);
  size_t cut = im.len - sizeof(struct gw_wire_kernel) / 2; /* inside the second kernel */

  /* The file exists but the tracer has written nothing yet. */
  struct image empty = {0};
  struct seen s = {0};
  struct reading r;
  reading_open(&r, &empty, &s);
  struct gw_err err = {{0}};
  uint64_t got = 99;
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, &got, &err), GW_OK);
  assert_int_equal(got, 0);
  assert_null(gw_trace_reader_header(r.rd));

  /* Half of the header only. */
  tmp_append(&r.t, im.bytes, 20);
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, &got, &err), GW_OK);
  assert_int_equal(got, 0);
  assert_int_equal(s.header, 0);

  tmp_append(&r.t, im.bytes + 20, cut - 20);
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, &got, &err), GW_OK);
  assert_int_equal(got, 2); /* NAME and the first KERNEL */
  assert_int_equal(s.header, 1);
  assert_non_null(gw_trace_reader_header(r.rd));

  tmp_append(&r.t, im.bytes + cut, im.len - cut);
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, &got, &err), GW_OK);
  assert_int_equal(got, 1);
  assert_int_equal(SEEN(s, KERNEL), 2);
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, &got, &err), GW_OK);
  assert_int_equal(got, 0);
  assert_int_equal(gw_trace_reader_finish(r.rd, &err), GW_OK);

  struct gw_trace_reader_stats st;
  gw_trace_reader_get_stats(r.rd, &st);
  assert_int_equal(st.records, 3);
  assert_int_equal(st.bytes_consumed, im.len);
  reading_close(&r);
}

static void test_truncated_final_record(void **state) {
  (void)state;
  struct image im = {0};
  size_t kernel_off = put_one_kernel_file(&im);
  im.len -= 8; /* the writer died in the middle of the kernel record */
  struct seen s = {0};
  struct gw_err err = {{0}};
  gw_status frc;
  assert_int_equal(read_image(&im, &s, &err, &frc), GW_OK);
  assert_int_equal(s.names, 1);
  assert_int_equal(SEEN(s, KERNEL), 0);
  assert_int_equal(frc, GW_EINPUT);
  char want[64];
  snprintf(want, sizeof want, "byte offset %zu", kernel_off);
  assert_non_null(strstr(err.msg, want));
  assert_non_null(strstr(err.msg, "truncated"));
  assert_non_null(strstr(err.msg, "KERNEL"));
}

static void test_corrupt_size(void **state) {
  (void)state;
  struct image im = {0};
  size_t bad_off = put_one_kernel_file(&im);
  uint32_t bad_size = 12; /* not a multiple of 8 */
  memcpy(im.bytes + bad_off + 4, &bad_size, sizeof bad_size);
  put_kernel(&im, 1, T0_NS + 10, 0);

  struct seen s = {0};
  struct reading r;
  reading_open(&r, &im, &s);
  struct gw_err err = {{0}};
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, NULL, &err), GW_EINPUT);
  char want[64];
  snprintf(want, sizeof want, "byte offset %zu", bad_off);
  assert_non_null(strstr(err.msg, want));
  assert_non_null(strstr(err.msg, "size 12"));
  assert_non_null(strstr(err.msg, r.t.path));
  assert_int_equal(SEEN(s, KERNEL), 0);
  /* The error sticks: a later poll does not resume past the damage. */
  struct gw_err again = {{0}};
  assert_int_equal(gw_trace_reader_poll(r.rd, &r.cb, NULL, &again), GW_EINPUT);
  assert_string_equal(again.msg, err.msg);
  reading_close(&r);

  /* A size larger than any record is refused too (it would stall the reader). */
  uint32_t huge = 1u << 30;
  memcpy(im.bytes + bad_off + 4, &huge, sizeof huge);
  struct seen s2 = {0};
  assert_int_equal(read_image(&im, &s2, &err, NULL), GW_EINPUT);
  assert_non_null(strstr(err.msg, want));
}

/* Same version: an unknown type is an error. Newer minor: skipped by size. */
static void test_unknown_type(void **state) {
  (void)state;
  for (int newer = 0; newer <= 1; newer++) {
    struct image im = {0};
    put_header(&im, GW_WIRE_VERSION_MAJOR, (uint16_t)(GW_WIRE_VERSION_MINOR + newer));
    put_name(&im, 1, KERNEL_NAME);
    struct {
      struct gw_wire_rec_header h;
      uint64_t payload[3];
    } future = {{.type = 200, .flags = 0, .size_bytes = 32}, {1, 2, 3}};
    put(&im, &future, sizeof future);
    /* A known record with extra trailing fields, as a newer minor may write. */
    struct {
      struct gw_wire_window w;
      uint64_t extra;
    } longer;
    GW_WIRE_REC_INIT(&longer.w, GW_WIRE_WINDOW, 0);
    longer.w.h.size_bytes = sizeof longer;
    longer.w.start_ns = T0_NS;
    longer.w.end_ns = T0_NS + 1;
    longer.w.mode = GW_WIRE_MODE_FULL;
    longer.extra = 42;
    put(&im, &longer, sizeof longer);
    put_kernel(&im, 1, T0_NS, 0);

    struct seen s = {0};
    struct reading r;
    reading_open(&r, &im, &s);
    struct gw_err err = {{0}};
    gw_status rc = gw_trace_reader_poll(r.rd, &r.cb, NULL, &err);
    struct gw_trace_reader_stats st;
    gw_trace_reader_get_stats(r.rd, &st);
    if (newer) {
      assert_int_equal(rc, GW_OK);
      assert_int_equal(st.skipped_unknown, 1);
      assert_int_equal(SEEN(s, WINDOW), 1);
      assert_int_equal(SEEN(s, KERNEL), 1);
    } else {
      assert_int_equal(rc, GW_EINPUT);
      assert_non_null(strstr(err.msg, "unknown record type 200"));
      assert_int_equal(SEEN(s, KERNEL), 0);
    }
    reading_close(&r);
  }
}

/* The files test_refused_files reads, each damaged in one way. */
static void header_cut(struct image *im) {
  put_current_header(im);
  im->len = 30;
}
static void record_shorter_than_its_type(struct image *im) {
  put_current_header(im);
  struct gw_wire_window w;
  GW_WIRE_REC_INIT(&w, GW_WIRE_WINDOW, 0);
  w.h.size_bytes = 16;
  put(im, &w, 16);
}
static void bad_magic(struct image *im) {
  put_current_header(im);
  im->bytes[0] = 'X';
}
/* a few bytes of something else: refused before the header is whole */
static void zip_start(struct image *im) {
  put_bytes(im, "PK\3\4", 4);
}
static void newer_major_version(struct image *im) {
  put_header(im, GW_WIRE_VERSION_MAJOR + 1, 0);
  put_name(im, 1, KERNEL_NAME);
}
static void undefined_name_id(struct image *im) {
  put_header_and_name(im);
  put_kernel(im, 9, T0_NS, 0);
}
static void sync_ends_before_start(struct image *im) {
  put_header_and_name(im);
  PUT_RECORD(im, sync, .start_ns = T0_NS + 10, .end_ns = T0_NS);
}
static void api_of_unknown_domain(struct image *im) {
  put_header_and_name(im);
  PUT_RECORD(im, api, .domain = 3);
}
static void name_defined_twice(struct image *im) {
  put_header_and_name(im);
  put_name(im, 1, "again");
}
static void name_longer_than_the_limit(struct image *im) {
  put_header_and_name(im);
  PUT_RECORD(im, name, .name_id = 2, .len_bytes = 5000);
}

static void test_refused_files(void **state) {
  (void)state;
  static const struct {
    void (*build)(struct image *im);
    gw_status poll_rc, finish_rc; /* finish_rc: checked after a poll that passed */
    int nothing_seen;             /* no callback ran before the damage */
    const char *want[2];          /* in the error message */
  } cases[] = {
      {header_cut, GW_OK, GW_EINPUT, 1, {"header"}},
      {record_shorter_than_its_type, GW_EINPUT, 0, 0, {"WINDOW record of 16 bytes"}},
      {bad_magic, GW_EINPUT, 0, 1, {"byte offset 0", "magic"}},
      {zip_start, GW_EINPUT, 0, 0, {"magic"}},
      {newer_major_version, GW_EINPUT, 0, 1, {"version 2.0", "newer"}},
      {undefined_name_id, GW_EINPUT, 0, 0, {"name_id 9 was not defined"}},
      {sync_ends_before_start, GW_EINPUT, 0, 0, {"end"}},
      {api_of_unknown_domain, GW_EINPUT, 0, 0, {"domain 3"}},
      {name_defined_twice, GW_EINPUT, 0, 0, {"defined twice"}},
      {name_longer_than_the_limit, GW_EINPUT, 0, 0, {"length 5000"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct image im = {0};
    cases[i].build(&im);
    struct seen s = {0};
    struct gw_err err = {{0}};
    gw_status frc;
    assert_int_equal(read_image(&im, &s, &err, &frc), cases[i].poll_rc);
    if (cases[i].poll_rc == GW_OK)
      assert_int_equal(frc, cases[i].finish_rc);
    if (cases[i].nothing_seen && records_seen(&s) != 0)
      fail_msg("case %zu: %d records read before the damage", i, records_seen(&s));
    for (int w = 0; w < 2 && cases[i].want[w]; w++)
      if (!strstr(err.msg, cases[i].want[w]))
        fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].want[w]);
  }
}

static void test_long_name_is_cut(void **state) {
  (void)state;
  static char longname[6000];
  memset(longname, 'a', sizeof longname - 1);
  struct image *im = calloc(1, sizeof *im);
  assert_non_null(im);
  put_current_header(im);
  put_name(im, 1, longname);
  assert_int_equal(im->len, sizeof(struct gw_wire_file_header) + 16 + GW_WIRE_NAME_MAX_BYTES);
  struct seen s = {0};
  struct gw_err err = {{0}};
  assert_int_equal(read_image(im, &s, &err, NULL), GW_OK);
  assert_int_equal(s.names, 1);
  free(im);
}

static long long query_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  long long v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

static void query_text(sqlite3 *db, const char *sql, char *out, size_t cap) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  const unsigned char *t = sqlite3_column_text(st, 0);
  snprintf(out, cap, "%s", t ? (const char *)t : "(null)");
  sqlite3_finalize(st);
}

/* The writer prepares its statements at their first row, but still
 * refuses a database without the tracer's tables when it is opened. */
static void test_store_needs_its_tables(void **state) {
  (void)state;
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  struct gw_err err = {{0}};
  struct gw_store_trace *st = NULL;
  assert_int_equal(gw_store_trace_open(&st, db, &err), GW_EIO);
  assert_null(st);
  assert_non_null(strstr(err.msg, "trace_process"));
  assert_int_equal(gw_store_trace_create_tables(db, &err), GW_OK);
  assert_int_equal(sqlite3_exec(db, "DROP TABLE pm_sample", NULL, NULL, NULL), SQLITE_OK);
  err.msg[0] = '\0';
  assert_int_equal(gw_store_trace_open(&st, db, &err), GW_EIO);
  assert_non_null(strstr(err.msg, "pm_sample"));
  assert_int_equal(gw_store_trace_create_tables(db, &err), GW_OK);
  assert_int_equal(gw_store_trace_open(&st, db, &err), GW_OK);
  gw_store_trace_close(st);
  sqlite3_close(db);
}

static void test_store(void **state) {
  (void)state;
  struct image im = {0};
  put_current_header(&im);
  put_every_type(&im);
  put_kernel(&im, 1, 0, GW_WIRE_KERNEL_NO_TIMESTAMP);
  /* put_kernel sets end = start + 1500; a kernel without timestamps has 0/0. */
  struct gw_wire_kernel last;
  memcpy(&last, im.bytes + im.len - sizeof last, sizeof last);
  last.start_ns = last.end_ns = 0;
  memcpy(im.bytes + im.len - sizeof last, &last, sizeof last);

  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  struct gw_err err = {{0}};
  assert_int_equal(gw_store_trace_create_tables(db, &err), GW_OK);
  assert_int_equal(gw_store_trace_create_tables(db, &err), GW_OK); /* idempotent */
  struct gw_store_trace *st = NULL;
  assert_int_equal(gw_store_trace_open(&st, db, &err), GW_OK);
  struct gw_trace_callbacks cb = gw_store_trace_callbacks(st);

  struct seen unused;
  struct reading r;
  reading_open(&r, &im, &unused);
  assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  if (gw_trace_reader_poll(r.rd, &cb, NULL, &err) != GW_OK)
    fail_msg("%s / %s", err.msg, gw_store_trace_errmsg(st));
  assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  reading_close(&r);

  assert_int_equal(query_int(db, "SELECT count(*) FROM trace_process WHERE pid = 4242 AND mode = 'sampled'"), 1);
  assert_int_equal(query_int(db, "SELECT window_ms FROM trace_process"), 200);
  assert_int_equal(query_int(db, "SELECT count(*) FROM trace_name"), 3);
  assert_int_equal(query_int(db, "SELECT count(*) FROM kernel"), 3);
  assert_int_equal(query_int(db, "SELECT count(*) FROM kernel WHERE nccl = 1"), 1);
  assert_int_equal(query_int(db, "SELECT count(*) FROM kernel WHERE start_ns IS NULL AND end_ns IS NULL"), 1);
  assert_int_equal(query_int(db, "SELECT shmem_bytes FROM kernel LIMIT 1"), 3072);
  assert_int_equal(query_int(db, "SELECT end_ns - start_ns FROM kernel WHERE nccl = 0 LIMIT 1"), 1500);
  assert_int_equal(query_int(db, "SELECT grid_x * grid_y * block_x FROM kernel LIMIT 1"), 128 * 2 * 256);
  char text[256];
  query_text(db, "SELECT n.name FROM kernel k JOIN trace_name n ON n.pid = k.pid AND n.id = k.name_id WHERE k.nccl = 1",
             text, sizeof text);
  assert_string_equal(text, NCCL_NAME);
  assert_int_equal(query_int(db, "SELECT count(*) FROM memcpy WHERE async = 1 AND src_kind = 1 AND dst_kind = 3"), 1);
  assert_int_equal(query_int(db, "SELECT bytes FROM memcpy"), 1 << 20);
  assert_int_equal(query_int(db, "SELECT bytes FROM memset"), 4096);
  assert_int_equal(query_int(db, "SELECT end_ns - start_ns FROM sync WHERE sync_type = 3"), 67000);
  query_text(db, "SELECT domain FROM api WHERE cbid = 211", text, sizeof text);
  assert_string_equal(text, "runtime");
  query_text(db, "SELECT n.name FROM marker m JOIN trace_name n ON n.pid = m.pid AND n.id = m.name_id", text,
             sizeof text);
  assert_string_equal(text, "train_step");
  assert_int_equal(query_int(db, "SELECT domain_name_id FROM marker"), -1); /* NULL: default domain */
  query_text(db, "SELECT op FROM memory", text, sizeof text);
  assert_string_equal(text, "alloc");
  assert_int_equal(query_int(db, "SELECT kinds FROM trace_window"), GW_WIRE_KINDS_KERNEL | GW_WIRE_KINDS_API);
  assert_int_equal(query_int(db, "SELECT runtime_launches FROM launch_count"), 123456);
  assert_int_equal(query_int(db, "SELECT cupti_dropped_records FROM trace_dropped"), 17);
  query_text(db, "SELECT level || ': ' || text FROM trace_note", text, sizeof text);
  assert_string_equal(text, "info: tracing sampled: 200 ms every 2000 ms");
  assert_int_equal(query_int(db, "SELECT overhead_kind FROM trace_overhead"), 1 << 16);
  assert_int_equal(query_int(db, "SELECT graph_id FROM graph_launch"), 5);

  gw_store_trace_close(st);
  sqlite3_close(db);
}

/* The tracer's encoder agrees with the layout the reader checks. */
static void test_encoder(void **state) {
  (void)state;
  unsigned char buf[64];
  assert_int_equal(gw_wire_encode_name(buf, sizeof buf, 1, "abc", 3), 24);
  assert_int_equal(gw_wire_encode_name(buf, 16, 1, "abc", 3), 0); /* does not fit */
  assert_int_equal(buf[16 + 3], 0);                               /* padding is zeroed */
  assert_int_equal(gw_wire_encode_note(buf, sizeof buf, 1, 0, "12345678", 8), 32);
  assert_true(gw_wire_is_nccl_kernel("ncclKernel_AllReduce"));
  assert_true(gw_wire_is_nccl_kernel("ncclDevKernel_Generic"));
  assert_false(gw_wire_is_nccl_kernel("nccl_other"));
  assert_true(gw_wire_is_nccl_kernel("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"));
  assert_true(gw_wire_is_nccl_kernel("_Z26ncclKernel_AllGather_RING_LLP11ncclDevComm"));
  assert_false(gw_wire_is_nccl_kernel("_Z10vector_addPfS_S_i"));
  assert_false(gw_wire_is_nccl_kernel("_Z"));
  assert_false(gw_wire_is_nccl_kernel(NULL));
}

/* The fixture files are the generator's output, byte for byte: a change of
 * the wire layout shows up here. GW_WRITE_TRACE_FIXTURES=<dir> rewrites them. */
static void test_fixtures(void **state) {
  (void)state;
  struct image good = {0};
  put_current_header(&good);
  put_every_type(&good);
  struct image truncated = good;
  truncated.len -= 12;
  const struct {
    const char *name;
    const struct image *im;
    gw_status want;
  } files[] = {{"every_type.gwt", &good, GW_OK}, {"truncated.gwt", &truncated, GW_EINPUT}};
  const char *write_dir = getenv("GW_WRITE_TRACE_FIXTURES");
  const char *fixtures = getenv("GW_FIXTURES");
  if (!write_dir && !fixtures)
    skip();
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[1024];
    if (write_dir) {
      snprintf(path, sizeof path, "%s/%s", write_dir, files[i].name);
      FILE *f = fopen(path, "wb");
      assert_non_null(f);
      assert_int_equal(fwrite(files[i].im->bytes, 1, files[i].im->len, f), files[i].im->len);
      fclose(f);
      continue;
    }
    snprintf(path, sizeof path, "%s/trace/%s", fixtures, files[i].name);
    FILE *f = fopen(path, "rb");
    if (!f)
      fail_msg("missing fixture %s", path);
    static unsigned char bytes[sizeof good.bytes];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_int_equal(n, files[i].im->len);
    assert_memory_equal(bytes, files[i].im->bytes, n);
    struct seen s = {0};
    int minor;
    assert_int_equal(read_path(path, &s, &minor), files[i].want);
  }
}

/* Reads a whole fixture file; returns the header's minor version. */
static int read_fixture(const char *fixtures, const char *name, struct seen *s) {
  char path[1024];
  snprintf(path, sizeof path, "%s/trace/%s", fixtures, name);
  int minor;
  assert_int_equal(read_path(path, s, &minor), GW_OK);
  return minor;
}

/* Files of wire versions 1.0 (before DEVICE records) and 1.1 (before the
 * NVTX mode), as tracers of those versions wrote them, still read. */
static void test_previous_minor_version(void **state) {
  (void)state;
  const char *fixtures = getenv("GW_FIXTURES");
  if (!fixtures)
    skip();
  struct seen s = {0};
  assert_int_equal(read_fixture(fixtures, "every_type_v1_0.gwt", &s), 0);
  assert_int_equal(SEEN(s, KERNEL), 2);
  assert_int_equal(SEEN(s, GRAPH), 1);
  assert_int_equal(SEEN(s, DEVICE), 0);
  struct seen s11 = {0};
  assert_int_equal(read_fixture(fixtures, "every_type_v1_1.gwt", &s11), 1);
  assert_int_equal(SEEN(s11, KERNEL), 2);
  assert_int_equal(SEEN(s11, DEVICE), 1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_record_type),
    cmocka_unit_test(test_growing_file),
    cmocka_unit_test(test_truncated_final_record),
    cmocka_unit_test(test_corrupt_size),
    cmocka_unit_test(test_unknown_type),
    cmocka_unit_test(test_refused_files),
    cmocka_unit_test(test_long_name_is_cut),
    cmocka_unit_test(test_store_needs_its_tables),
    cmocka_unit_test(test_store),
    cmocka_unit_test(test_encoder),
    cmocka_unit_test(test_fixtures),
    cmocka_unit_test(test_previous_minor_version),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
