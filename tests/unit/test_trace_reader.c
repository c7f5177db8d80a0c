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
};

static void put(struct image *im, const void *rec, size_t n) {
  assert_true(im->len + n <= sizeof im->bytes);
  memcpy(im->bytes + im->len, rec, n);
  im->len += n;
}

static void put_header(struct image *im, uint16_t major, uint16_t minor) {
  struct gw_wire_file_header h;
  gw_wire_file_header_init(&h, TEST_PID, T0_NS, 130001, GW_WIRE_MODE_SAMPLED, 200, 2000);
  h.version_major = major;
  h.version_minor = minor;
  put(im, &h, sizeof h);
}

static void put_name(struct image *im, uint32_t id, const char *name) {
  size_t n = gw_wire_encode_name(im->bytes + im->len, sizeof im->bytes - im->len, id, name, strlen(name));
  assert_true(n > 0);
  im->len += n;
}

static void put_kernel(struct image *im, uint32_t name_id, uint64_t start_ns, uint16_t flags) {
  struct gw_wire_kernel k;
  GW_WIRE_REC_INIT(&k, GW_WIRE_KERNEL, flags);
  k.start_ns = start_ns;
  k.end_ns = start_ns + 1500;
  k.device = 0;
  k.context = 1;
  k.stream = 7;
  k.correlation = 99;
  k.name_id = name_id;
  k.grid_x = 128;
  k.grid_y = 2;
  k.grid_z = 1;
  k.block_x = 256;
  k.block_y = 1;
  k.block_z = 1;
  k.regs_per_thread = 32;
  k.static_shmem_bytes = 1024;
  k.dynamic_shmem_bytes = 2048;
  k.graph_id = 5;
  k.graph_node_id = 77;
  put(im, &k, sizeof k);
}

/* One record of every type, names first. Returns the number of records. */
static int put_every_type(struct image *im) {
  int n = 0;
  put_name(im, 1, KERNEL_NAME), n++;
  put_name(im, 2, NCCL_NAME), n++;
  put_name(im, 3, "train_step"), n++;
  put_kernel(im, 1, T0_NS + 1000, 0), n++;
  put_kernel(im, 2, T0_NS + 5000, GW_WIRE_KERNEL_NCCL), n++;

  struct gw_wire_memcpy mc;
  GW_WIRE_REC_INIT(&mc, GW_WIRE_MEMCPY, GW_WIRE_MEMCPY_ASYNC);
  mc.start_ns = T0_NS + 10000;
  mc.end_ns = T0_NS + 20000;
  mc.bytes = 1u << 20;
  mc.stream = 7;
  mc.correlation = 100;
  mc.copy_kind = 1;
  mc.src_kind = GW_WIRE_MEM_KIND_PAGEABLE;
  mc.dst_kind = GW_WIRE_MEM_KIND_DEVICE;
  put(im, &mc, sizeof mc), n++;

  struct gw_wire_memset ms;
  GW_WIRE_REC_INIT(&ms, GW_WIRE_MEMSET, 0);
  ms.start_ns = T0_NS + 21000;
  ms.end_ns = T0_NS + 22000;
  ms.bytes = 4096;
  ms.mem_kind = GW_WIRE_MEM_KIND_DEVICE;
  put(im, &ms, sizeof ms), n++;

  struct gw_wire_sync sy;
  GW_WIRE_REC_INIT(&sy, GW_WIRE_SYNC, 0);
  sy.start_ns = T0_NS + 23000;
  sy.end_ns = T0_NS + 90000;
  sy.sync_type = 3;
  sy.stream = 7;
  put(im, &sy, sizeof sy), n++;

  struct gw_wire_api api;
  GW_WIRE_REC_INIT(&api, GW_WIRE_API, 0);
  api.start_ns = T0_NS + 900;
  api.end_ns = T0_NS + 1400;
  api.cbid = 211;
  api.domain = GW_WIRE_API_RUNTIME;
  api.tid = 4243;
  api.correlation = 99;
  put(im, &api, sizeof api), n++;

  struct gw_wire_marker mk;
  GW_WIRE_REC_INIT(&mk, GW_WIRE_MARKER, 0);
  mk.start_ns = T0_NS;
  mk.end_ns = T0_NS + 100000;
  mk.name_id = 3;
  mk.tid = 4243;
  put(im, &mk, sizeof mk), n++;

  struct gw_wire_memory mem;
  GW_WIRE_REC_INIT(&mem, GW_WIRE_MEMORY, 0);
  mem.t_ns = T0_NS + 500;
  mem.address = 0x7f0000000000ull;
  mem.bytes = 1u << 21;
  mem.op = GW_WIRE_MEMORY_ALLOC;
  mem.mem_kind = GW_WIRE_MEM_KIND_DEVICE;
  put(im, &mem, sizeof mem), n++;

  struct gw_wire_window w;
  GW_WIRE_REC_INIT(&w, GW_WIRE_WINDOW, 0);
  w.start_ns = T0_NS;
  w.end_ns = T0_NS + 200000000ull;
  w.mode = GW_WIRE_MODE_SAMPLED;
  w.kinds = GW_WIRE_KINDS_KERNEL | GW_WIRE_KINDS_API;
  put(im, &w, sizeof w), n++;

  struct gw_wire_launch_count lc;
  GW_WIRE_REC_INIT(&lc, GW_WIRE_LAUNCH_COUNT, 0);
  lc.start_ns = T0_NS;
  lc.end_ns = T0_NS + 2000000000ull;
  lc.runtime_launches = 123456;
  lc.driver_launches = 789;
  put(im, &lc, sizeof lc), n++;

  struct gw_wire_dropped dr;
  GW_WIRE_REC_INIT(&dr, GW_WIRE_DROPPED, 0);
  dr.t_ns = T0_NS + 5;
  dr.cupti_dropped_records = 17;
  dr.buffers_refused = 2;
  put(im, &dr, sizeof dr), n++;

  const char note[] = "tracing sampled: 200 ms every 2000 ms";
  size_t nn = gw_wire_encode_note(im->bytes + im->len, sizeof im->bytes - im->len, T0_NS + 1, GW_WIRE_NOTE_INFO, note,
                                  strlen(note));
  assert_true(nn > 0);
  im->len += nn, n++;

  struct gw_wire_overhead ov;
  GW_WIRE_REC_INIT(&ov, GW_WIRE_OVERHEAD, 0);
  ov.start_ns = T0_NS + 100;
  ov.end_ns = T0_NS + 300;
  ov.overhead_kind = 1u << 16;
  put(im, &ov, sizeof ov), n++;

  struct gw_wire_device d;
  GW_WIRE_REC_INIT(&d, GW_WIRE_DEVICE, 0);
  d.device = 0;
  d.sm_count = 132;
  d.max_warps_per_sm = 64;
  d.max_blocks_per_sm = 32;
  d.max_regs_per_sm = 65536;
  d.max_shmem_per_sm_bytes = 233472;
  d.threads_per_warp = 32;
  d.cc_major = 9;
  put(im, &d, sizeof d), n++;

  struct gw_wire_pm_sample pms;
  GW_WIRE_REC_INIT(&pms, GW_WIRE_PM_SAMPLE, 0);
  pms.start_ns = T0_NS + 1000;
  pms.end_ns = T0_NS + 10001000;
  pms.sm_cycles_active_avg = 9900000.0;
  pms.sm_cycles_elapsed_avg = 19800000.0;
  put(im, &pms, sizeof pms), n++;

  struct gw_wire_graph g;
  GW_WIRE_REC_INIT(&g, GW_WIRE_GRAPH, 0);
  g.start_ns = T0_NS + 40000;
  g.end_ns = T0_NS + 80000;
  g.graph_id = 5;
  put(im, &g, sizeof g), n++;
  return n;
}

/* Counting callbacks that also keep a few values to check. */
struct seen {
  int header, names, kernels, memcpys, memsets, syncs, apis, markers, memories, windows, launch_counts, dropped, notes,
      overheads, graphs, devices, pm_samples;
  uint32_t pid;
  char first_name[64];
  uint32_t nccl_kernels;
  uint64_t runtime_launches;
  char note[128];
};

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
  s->kernels++;
  if (k->h.flags & GW_WIRE_KERNEL_NCCL)
    s->nccl_kernels++;
  return GW_OK;
}
#define COUNTER(fn, type, field)                                                                                       \
  static gw_status fn(void *ctx, uint32_t pid, const type *r) {                                                        \
    (void)pid, (void)r;                                                                                                \
    ((struct seen *)ctx)->field++;                                                                                     \
    return GW_OK;                                                                                                      \
  }
COUNTER(on_memcpy, struct gw_wire_memcpy, memcpys)
COUNTER(on_memset, struct gw_wire_memset, memsets)
COUNTER(on_sync, struct gw_wire_sync, syncs)
COUNTER(on_api, struct gw_wire_api, apis)
COUNTER(on_marker, struct gw_wire_marker, markers)
COUNTER(on_memory, struct gw_wire_memory, memories)
COUNTER(on_window, struct gw_wire_window, windows)
COUNTER(on_dropped, struct gw_wire_dropped, dropped)
COUNTER(on_overhead, struct gw_wire_overhead, overheads)
COUNTER(on_graph, struct gw_wire_graph, graphs)
COUNTER(on_device, struct gw_wire_device, devices)
COUNTER(on_pm_sample, struct gw_wire_pm_sample, pm_samples)
static gw_status on_launch_count(void *ctx, uint32_t pid, const struct gw_wire_launch_count *r) {
  (void)pid;
  struct seen *s = ctx;
  s->launch_counts++;
  s->runtime_launches += r->runtime_launches;
  return GW_OK;
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
  struct gw_trace_callbacks cb = {
      .ctx = s,
      .on_header = on_header,
      .on_name = on_name,
      .on_kernel = on_kernel,
      .on_memcpy = on_memcpy,
      .on_memset = on_memset,
      .on_sync = on_sync,
      .on_api = on_api,
      .on_marker = on_marker,
      .on_memory = on_memory,
      .on_window = on_window,
      .on_launch_count = on_launch_count,
      .on_dropped = on_dropped,
      .on_note = on_note,
      .on_overhead = on_overhead,
      .on_graph = on_graph,
      .on_device = on_device,
      .on_pm_sample = on_pm_sample,
  };
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

/* Reads a whole image in one poll; returns the poll status, the error in err. */
static gw_status read_image(const struct image *im, struct seen *s, struct gw_err *err, gw_status *finish_rc) {
  struct tmpfile t;
  tmp_make(&t);
  tmp_append(&t, im->bytes, im->len);
  struct gw_trace_reader *rd = NULL;
  assert_int_equal(gw_trace_reader_open(&rd, t.path, err), GW_OK);
  struct gw_trace_callbacks cb = counting_callbacks(s);
  gw_status rc = gw_trace_reader_poll(rd, &cb, NULL, err);
  struct gw_err finish_err;
  gw_status frc = gw_trace_reader_finish(rd, &finish_err);
  if (finish_rc)
    *finish_rc = frc;
  if (rc == GW_OK && frc != GW_OK)
    *err = finish_err;
  gw_trace_reader_close(rd);
  tmp_remove(&t);
  return rc;
}

static void test_every_record_type(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
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
  assert_int_equal(s.kernels, 2);
  assert_int_equal(s.nccl_kernels, 1);
  assert_int_equal(s.memcpys + s.memsets + s.syncs + s.apis + s.markers + s.memories, 6);
  assert_int_equal(
      s.windows + s.launch_counts + s.dropped + s.notes + s.overheads + s.graphs + s.devices + s.pm_samples, 8);
  assert_int_equal(s.devices, 1);
  assert_int_equal(s.pm_samples, 1);
  assert_int_equal(s.names + s.kernels + 14, n);
  assert_int_equal(s.runtime_launches, 123456);
  assert_string_equal(s.note, "tracing sampled: 200 ms every 2000 ms");
}

/* The tracer appends while the recorder reads: a record cut in the middle
 * waits for the next poll. */
static void test_growing_file(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
  put_name(&im, 1, KERNEL_NAME);
  put_kernel(&im, 1, T0_NS + 10, 0);
  put_kernel(&im, 1, T0_NS + 20, 0);
  size_t cut = im.len - sizeof(struct gw_wire_kernel) / 2; /* inside the second kernel */

  struct tmpfile t;
  tmp_make(&t);
  struct gw_trace_reader *rd = NULL;
  struct gw_err err = {{0}};
  struct seen s = {0};
  struct gw_trace_callbacks cb = counting_callbacks(&s);
  /* The file exists but the tracer has written nothing yet. */
  tmp_append(&t, "", 0);
  assert_int_equal(gw_trace_reader_open(&rd, t.path, &err), GW_OK);
  uint64_t got = 99;
  assert_int_equal(gw_trace_reader_poll(rd, &cb, &got, &err), GW_OK);
  assert_int_equal(got, 0);
  assert_null(gw_trace_reader_header(rd));

  /* Half of the header only. */
  tmp_append(&t, im.bytes, 20);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, &got, &err), GW_OK);
  assert_int_equal(got, 0);
  assert_int_equal(s.header, 0);

  tmp_append(&t, im.bytes + 20, cut - 20);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, &got, &err), GW_OK);
  assert_int_equal(got, 2); /* NAME and the first KERNEL */
  assert_int_equal(s.header, 1);
  assert_non_null(gw_trace_reader_header(rd));

  tmp_append(&t, im.bytes + cut, im.len - cut);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, &got, &err), GW_OK);
  assert_int_equal(got, 1);
  assert_int_equal(s.kernels, 2);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, &got, &err), GW_OK);
  assert_int_equal(got, 0);
  assert_int_equal(gw_trace_reader_finish(rd, &err), GW_OK);

  struct gw_trace_reader_stats st;
  gw_trace_reader_get_stats(rd, &st);
  assert_int_equal(st.records, 3);
  assert_int_equal(st.bytes_consumed, im.len);
  gw_trace_reader_close(rd);
  tmp_remove(&t);
}

static void test_truncated_final_record(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
  put_name(&im, 1, KERNEL_NAME);
  size_t kernel_off = im.len;
  put_kernel(&im, 1, T0_NS, 0);
  im.len -= 8; /* the writer died in the middle of the kernel record */
  struct seen s = {0};
  struct gw_err err = {{0}};
  gw_status frc;
  assert_int_equal(read_image(&im, &s, &err, &frc), GW_OK);
  assert_int_equal(s.names, 1);
  assert_int_equal(s.kernels, 0);
  assert_int_equal(frc, GW_EINPUT);
  char want[64];
  snprintf(want, sizeof want, "byte offset %zu", kernel_off);
  assert_non_null(strstr(err.msg, want));
  assert_non_null(strstr(err.msg, "truncated"));
  assert_non_null(strstr(err.msg, "KERNEL"));
}

static void test_truncated_header(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
  im.len = 30;
  struct seen s = {0};
  struct gw_err err = {{0}};
  gw_status frc;
  assert_int_equal(read_image(&im, &s, &err, &frc), GW_OK);
  assert_int_equal(frc, GW_EINPUT);
  assert_int_equal(s.header, 0);
  assert_non_null(strstr(err.msg, "header"));
}

static void test_corrupt_size(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
  put_name(&im, 1, KERNEL_NAME);
  size_t bad_off = im.len;
  put_kernel(&im, 1, T0_NS, 0);
  uint32_t bad_size = 12; /* not a multiple of 8 */
  memcpy(im.bytes + bad_off + 4, &bad_size, sizeof bad_size);
  put_kernel(&im, 1, T0_NS + 10, 0);

  struct tmpfile t;
  tmp_make(&t);
  tmp_append(&t, im.bytes, im.len);
  struct gw_trace_reader *rd = NULL;
  struct gw_err err = {{0}};
  struct seen s = {0};
  struct gw_trace_callbacks cb = counting_callbacks(&s);
  assert_int_equal(gw_trace_reader_open(&rd, t.path, &err), GW_OK);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, NULL, &err), GW_EINPUT);
  char want[64];
  snprintf(want, sizeof want, "byte offset %zu", bad_off);
  assert_non_null(strstr(err.msg, want));
  assert_non_null(strstr(err.msg, "size 12"));
  assert_non_null(strstr(err.msg, t.path));
  assert_int_equal(s.kernels, 0);
  /* The error sticks: a later poll does not resume past the damage. */
  struct gw_err again = {{0}};
  assert_int_equal(gw_trace_reader_poll(rd, &cb, NULL, &again), GW_EINPUT);
  assert_string_equal(again.msg, err.msg);
  gw_trace_reader_close(rd);
  tmp_remove(&t);

  /* A size larger than any record is refused too (it would stall the reader). */
  uint32_t huge = 1u << 30;
  memcpy(im.bytes + bad_off + 4, &huge, sizeof huge);
  struct seen s2 = {0};
  assert_int_equal(read_image(&im, &s2, &err, NULL), GW_EINPUT);
  assert_non_null(strstr(err.msg, want));
}

static void test_record_shorter_than_its_type(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
  struct gw_wire_window w;
  GW_WIRE_REC_INIT(&w, GW_WIRE_WINDOW, 0);
  w.h.size_bytes = 16;
  put(&im, &w, 16);
  struct seen s = {0};
  struct gw_err err = {{0}};
  assert_int_equal(read_image(&im, &s, &err, NULL), GW_EINPUT);
  assert_non_null(strstr(err.msg, "WINDOW record of 16 bytes"));
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

    struct tmpfile t;
    tmp_make(&t);
    tmp_append(&t, im.bytes, im.len);
    struct gw_trace_reader *rd = NULL;
    struct gw_err err = {{0}};
    struct seen s = {0};
    struct gw_trace_callbacks cb = counting_callbacks(&s);
    assert_int_equal(gw_trace_reader_open(&rd, t.path, &err), GW_OK);
    gw_status rc = gw_trace_reader_poll(rd, &cb, NULL, &err);
    struct gw_trace_reader_stats st;
    gw_trace_reader_get_stats(rd, &st);
    if (newer) {
      assert_int_equal(rc, GW_OK);
      assert_int_equal(st.skipped_unknown, 1);
      assert_int_equal(s.windows, 1);
      assert_int_equal(s.kernels, 1);
    } else {
      assert_int_equal(rc, GW_EINPUT);
      assert_non_null(strstr(err.msg, "unknown record type 200"));
      assert_int_equal(s.kernels, 0);
    }
    gw_trace_reader_close(rd);
    tmp_remove(&t);
  }
}

static void test_bad_magic(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
  im.bytes[0] = 'X';
  struct seen s = {0};
  struct gw_err err = {{0}};
  assert_int_equal(read_image(&im, &s, &err, NULL), GW_EINPUT);
  assert_non_null(strstr(err.msg, "byte offset 0"));
  assert_non_null(strstr(err.msg, "magic"));
  assert_int_equal(s.header, 0);

  /* A few bytes of something else are refused before the header is whole. */
  struct image small = {0};
  put(&small, "PK\3\4", 4);
  assert_int_equal(read_image(&small, &s, &err, NULL), GW_EINPUT);
  assert_non_null(strstr(err.msg, "magic"));
}

static void test_newer_major_version(void **state) {
  (void)state;
  struct image im = {0};
  put_header(&im, GW_WIRE_VERSION_MAJOR + 1, 0);
  put_name(&im, 1, KERNEL_NAME);
  struct seen s = {0};
  struct gw_err err = {{0}};
  assert_int_equal(read_image(&im, &s, &err, NULL), GW_EINPUT);
  assert_non_null(strstr(err.msg, "version 2.0"));
  assert_non_null(strstr(err.msg, "newer"));
  assert_int_equal(s.names, 0);
}

static void test_bad_fields(void **state) {
  (void)state;
  struct {
    const char *want;
    int which;
  } cases[] = {
      {"name_id 9 was not defined", 0}, {"end", 1}, {"domain 3", 2}, {"defined twice", 3}, {"length 5000", 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct image im = {0};
    put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
    put_name(&im, 1, KERNEL_NAME);
    if (cases[i].which == 0) {
      put_kernel(&im, 9, T0_NS, 0);
    } else if (cases[i].which == 1) {
      struct gw_wire_sync sy;
      GW_WIRE_REC_INIT(&sy, GW_WIRE_SYNC, 0);
      sy.start_ns = T0_NS + 10;
      sy.end_ns = T0_NS;
      put(&im, &sy, sizeof sy);
    } else if (cases[i].which == 2) {
      struct gw_wire_api a;
      GW_WIRE_REC_INIT(&a, GW_WIRE_API, 0);
      a.domain = 3;
      put(&im, &a, sizeof a);
    } else if (cases[i].which == 3) {
      put_name(&im, 1, "again");
    } else {
      struct gw_wire_name nm;
      GW_WIRE_REC_INIT(&nm, GW_WIRE_NAME, 0);
      nm.name_id = 2;
      nm.len_bytes = 5000;
      put(&im, &nm, sizeof nm);
    }
    struct seen s = {0};
    struct gw_err err = {{0}};
    assert_int_equal(read_image(&im, &s, &err, NULL), GW_EINPUT);
    if (!strstr(err.msg, cases[i].want))
      fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].want);
  }
}

static void test_long_name_is_cut(void **state) {
  (void)state;
  static char longname[6000];
  memset(longname, 'a', sizeof longname - 1);
  struct image *im = calloc(1, sizeof *im);
  assert_non_null(im);
  put_header(im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
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
  put_header(&im, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
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

  struct tmpfile t;
  tmp_make(&t);
  tmp_append(&t, im.bytes, im.len);
  struct gw_trace_reader *rd = NULL;
  assert_int_equal(gw_trace_reader_open(&rd, t.path, &err), GW_OK);
  assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  if (gw_trace_reader_poll(rd, &cb, NULL, &err) != GW_OK)
    fail_msg("%s / %s", err.msg, gw_store_trace_errmsg(st));
  assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  gw_trace_reader_close(rd);
  tmp_remove(&t);

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
  put_header(&good, GW_WIRE_VERSION_MAJOR, GW_WIRE_VERSION_MINOR);
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
    struct gw_trace_reader *rd = NULL;
    struct gw_err err = {{0}};
    struct seen s = {0};
    struct gw_trace_callbacks cb = counting_callbacks(&s);
    assert_int_equal(gw_trace_reader_open(&rd, path, &err), GW_OK);
    assert_int_equal(gw_trace_reader_poll(rd, &cb, NULL, &err), GW_OK);
    assert_int_equal(gw_trace_reader_finish(rd, &err), files[i].want);
    gw_trace_reader_close(rd);
  }
}

/* Reads a whole fixture file; returns the header's minor version. */
static int read_fixture(const char *fixtures, const char *name, struct seen *s) {
  char path[1024];
  snprintf(path, sizeof path, "%s/trace/%s", fixtures, name);
  struct gw_trace_reader *rd = NULL;
  struct gw_err err = {{0}};
  struct gw_trace_callbacks cb = counting_callbacks(s);
  assert_int_equal(gw_trace_reader_open(&rd, path, &err), GW_OK);
  assert_int_equal(gw_trace_reader_poll(rd, &cb, NULL, &err), GW_OK);
  assert_int_equal(gw_trace_reader_finish(rd, &err), GW_OK);
  int minor = gw_trace_reader_header(rd)->version_minor;
  gw_trace_reader_close(rd);
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
  assert_int_equal(s.kernels, 2);
  assert_int_equal(s.graphs, 1);
  assert_int_equal(s.devices, 0);
  struct seen s11 = {0};
  assert_int_equal(read_fixture(fixtures, "every_type_v1_1.gwt", &s11), 1);
  assert_int_equal(s11.kernels, 2);
  assert_int_equal(s11.devices, 1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_record_type),
    cmocka_unit_test(test_growing_file),
    cmocka_unit_test(test_truncated_final_record),
    cmocka_unit_test(test_truncated_header),
    cmocka_unit_test(test_corrupt_size),
    cmocka_unit_test(test_record_shorter_than_its_type),
    cmocka_unit_test(test_unknown_type),
    cmocka_unit_test(test_bad_magic),
    cmocka_unit_test(test_newer_major_version),
    cmocka_unit_test(test_bad_fields),
    cmocka_unit_test(test_long_name_is_cut),
    cmocka_unit_test(test_store_needs_its_tables),
    cmocka_unit_test(test_store),
    cmocka_unit_test(test_encoder),
    cmocka_unit_test(test_fixtures),
    cmocka_unit_test(test_previous_minor_version),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
