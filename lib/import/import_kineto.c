#include "import/import_kineto.h"

#include "core/cuda_calls.h"
#include "core/i18n.h"
#include "import/import_pipe.h"
#include "core/json_stream.h"
#include "import/import_sink.h"
#include "store/store_write.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Chunks read at a time: large enough that per-call costs vanish. */
#define CHUNK_BYTES (1u << 20)
/* Any string or bare token longer than this is no trace field: stop there
 * instead of growing the buffer to hold it whole. */
#define MAX_TOKEN_BYTES (4u << 20)
/* Trace events nest four deep (event, args, grid); allow some slack. */
#define MAX_DEPTH 64
#define MAX_DEVICE_PROPS 64

enum top_key { TOP_NONE, TOP_EVENTS, TOP_DEVICES, TOP_DIST, TOP_BASE, TOP_CUPTI, TOP_DRIVER, TOP_RUNTIME };

enum ev_key {
  EK_NONE,
  EK_PH,
  EK_CAT,
  EK_NAME,
  EK_PID,
  EK_TID,
  EK_TS,
  EK_DUR,
  EK_ID,
  EK_ARGS,
  EK_COUNT,
};

enum arg_key {
  AK_NONE,
  AK_DEVICE,
  AK_STREAM,
  AK_CONTEXT,
  AK_CORRELATION,
  AK_REGS,
  AK_SHMEM,
  AK_GRID,
  AK_BLOCK,
  AK_BYTES,
  AK_CBID,
  AK_FLOPS,
  AK_COUNT,
};

enum dev_key { DK_NONE, DK_ID, DK_NAME, DK_MEM, DK_SMS, DK_MAJOR, DK_MINOR, DK_THREADS_SM, DK_COUNT };
enum dist_key { XK_NONE, XK_RANK, XK_WORLD, XK_BACKEND, XK_NCCL };

enum category {
  CAT_OTHER,
  CAT_KERNEL,
  CAT_MEMCPY,
  CAT_MEMSET,
  CAT_RUNTIME,
  CAT_DRIVER,
  CAT_SYNC,
  CAT_CPU_OP,
  CAT_ANNOTATION,
  CAT_GPU_ANNOTATION,
  CAT_FLOW,
};

/* Fields present in the current event. */
enum {
  HAVE_PH = 1u << 0,
  HAVE_CAT = 1u << 1,
  HAVE_PID = 1u << 2,
  HAVE_TID = 1u << 3,
  HAVE_TS = 1u << 4,
  HAVE_DUR = 1u << 5,
  HAVE_ID = 1u << 6,
  HAVE_DEVICE = 1u << 7,
  HAVE_STREAM = 1u << 8,
  HAVE_CONTEXT = 1u << 9,
  HAVE_CORRELATION = 1u << 10,
  HAVE_REGS = 1u << 11,
  HAVE_SHMEM = 1u << 12,
  HAVE_BYTES = 1u << 13,
  HAVE_CBID = 1u << 14,
  BAD_TIME = 1u << 15, /* ts or dur present but not a number we can use */
  HAVE_FLOPS = 1u << 16,
};

struct event {
  uint32_t have;
  char ph;
  enum category cat;
  size_t name_len, name_full_len;
  int64_t pid, tid, ts_ns, dur_ns, id;
  int64_t device, stream, context, correlation, regs, shmem, bytes, cbid;
  int64_t flops; /* torch.profiler(with_flops=True) on CPU ops */
  uint32_t grid[3], block[3];
  char name[GW_WIRE_NAME_MAX_BYTES + 1];
};

/* Where a numeric field of an event or of its args goes: the int64_t at
 * offset, and the bit that says it came (0: the key is no number). A time
 * is microseconds as written; one that does not parse marks the event
 * BAD_TIME instead of leaving it without the field. */
struct event_number {
  uint32_t have;
  size_t offset;
  int is_time_us;
};
static const struct event_number EVENT_NUMBERS[EK_COUNT] = {
    [EK_TS] = {HAVE_TS, offsetof(struct event, ts_ns), 1}, [EK_DUR] = {HAVE_DUR, offsetof(struct event, dur_ns), 1},
    [EK_PID] = {HAVE_PID, offsetof(struct event, pid), 0}, [EK_TID] = {HAVE_TID, offsetof(struct event, tid), 0},
    [EK_ID] = {HAVE_ID, offsetof(struct event, id), 0},
};
static const struct event_number ARG_NUMBERS[AK_COUNT] = {
    [AK_DEVICE] = {HAVE_DEVICE, offsetof(struct event, device), 0},
    [AK_STREAM] = {HAVE_STREAM, offsetof(struct event, stream), 0},
    [AK_CONTEXT] = {HAVE_CONTEXT, offsetof(struct event, context), 0},
    [AK_CORRELATION] = {HAVE_CORRELATION, offsetof(struct event, correlation), 0},
    [AK_REGS] = {HAVE_REGS, offsetof(struct event, regs), 0},
    [AK_SHMEM] = {HAVE_SHMEM, offsetof(struct event, shmem), 0},
    [AK_BYTES] = {HAVE_BYTES, offsetof(struct event, bytes), 0},
    [AK_CBID] = {HAVE_CBID, offsetof(struct event, cbid), 0},
    [AK_FLOPS] = {HAVE_FLOPS, offsetof(struct event, flops), 0},
};

/* A record held back one event because it lacks a correlation id: Kineto
 * writes the ac2g flow event that carries it right after the record. */
enum held_type { HELD_NONE, HELD_KERNEL, HELD_MEMCPY, HELD_MEMSET, HELD_API };

struct held {
  enum held_type type;
  int64_t ts_ns_key; /* the record's ts as written, to match the flow */
  union {
    struct gw_wire_kernel kernel;
    struct gw_wire_memcpy memcpy;
    struct gw_wire_memset memset;
    struct gw_wire_api api;
  } r;
  size_t name_len, name_full_len;
  char name[GW_WIRE_NAME_MAX_BYTES + 1];
};

struct flop_op {
  int64_t tid, start_ns, end_ns, flops;
};
struct profiler_step {
  int64_t step, start_ns, end_ns;
  double flops;
};

struct parser {
  struct gw_json *j;
  struct gw_err *err;
  gw_status fail;     /* set by a callback that stopped the parse */
  int prescan;        /* header only */
  int prescan_to_end; /* looking for a base written after the events */
  int stop;           /* prescan done */
  const char *name;   /* input name */
  struct gw_import_sink *sink;
  struct gw_pipe *pipe; /* records go to the writer thread */
  int pid_known;
  const struct gw_kineto_opts *opts;
  struct gw_kineto_info *info;

  int depth;
  int events_depth; /* depth while inside an event object; 0 until the array is
                       found */
  int in_events;
  enum top_key top;
  enum ev_key ev_key;
  enum ev_key ev_container; /* which event key opened the object or array one
                               level down */
  enum arg_key arg_key;
  enum arg_key arg_container;
  int array_index;
  struct event ev;
  struct held held;
  /* deviceProperties / distributedInfo */
  enum dev_key dev_key;
  struct gw_sink_device dev;
  int dev_has_id;
  enum dist_key dist_key;
  /* for the step_flops row: CPU ops that carry FLOPs, and the ProfilerStep ranges */
  struct flop_op *ops;
  size_t nops, ops_cap;
  struct profiler_step *steps;
  size_t nsteps, steps_cap;
};

static uint64_t offset_now(struct parser *p) {
  return gw_json_offset(p->j);
}

/* Stop the parse with a message naming the byte offset. */
static int fail_at(struct parser *p, gw_status rc, const char *what) {
  gw_err_set(p->err, _("%s: byte %llu: %s"), p->name, (unsigned long long)offset_now(p), what);
  p->fail = rc;
  return 0;
}

/* Callback failure already described by the sink. */
static int fail_sink(struct parser *p, gw_status rc) {
  p->fail = rc;
  return 0;
}

static int key_eq(const unsigned char *k, size_t n, const char *lit) {
  size_t m = strlen(lit);
  return n == m && memcmp(k, lit, m) == 0;
}

/* ---- numbers ---- */

/* Whole-token integer (a fraction is dropped: "0.0" ids appear in some
 * tools' output). 0 on success. */
static int parse_int(const char *s, size_t n, int64_t *out) {
  /* plain digits, the common case, without a library call */
  if (n > 0 && n <= 18) {
    int64_t v = 0;
    size_t i = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      v = v * 10 + (s[i] - '0');
    if (i == n) {
      *out = v;
      return 0;
    }
  }
  char buf[64];
  if (n == 0 || n >= sizeof buf)
    return -1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  int64_t v;
  if (gw_parse_i64(buf, &v) == 0) {
    *out = v;
    return 0;
  }
  double d;
  if (gw_parse_double(buf, &d) != 0 || !isfinite(d) || d < -9.2e18 || d > 9.2e18)
    return -1;
  *out = (int64_t)d;
  return 0;
}

int gw_kineto_parse_us(const char *s, size_t n, int64_t *ns) {
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '-' || s[i] == '+'))
    neg = s[i++] == '-';
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
    if (whole > (INT64_MAX / 1000 - 9) / 10)
      return -1; /* beyond what ns fit in int64 */
    whole = whole * 10 + (s[i] - '0');
  }
  int64_t frac = 0;
  size_t fdigits = 0;
  int round_up = 0;
  if (i < n && s[i] == '.') {
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      if (fdigits < 3)
        frac = frac * 10 + (s[i] - '0');
      else if (fdigits == 3)
        round_up = s[i] >= '5';
      fdigits++;
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    /* rare: exponent notation; a double is exact enough there */
    char buf[64];
    double d;
    if (n >= sizeof buf)
      return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (gw_parse_double(buf, &d) != 0 || !isfinite(d) || fabs(d) > 9.2e15)
      return -1;
    *ns = (int64_t)llround(d * 1000.0);
    return 0;
  }
  if (i != n || (digits == 0 && fdigits == 0))
    return -1;
  for (size_t k = fdigits; k < 3; k++)
    frac *= 10;
  int64_t v = whole * 1000 + frac + round_up;
  *ns = neg ? -v : v;
  return 0;
}

/* ---- classification ---- */

static int ieq(const unsigned char *s, size_t n, const char *lit) {
  /* the first letter decides most misses without strncasecmp */
  return strlen(lit) == n && (s[0] | 0x20) == lit[0] &&
         (memcmp(s, lit, n) == 0 || strncasecmp((const char *)s, lit, n) == 0);
}

/* Category names: the current ones, and the older (torch 1.8 era)
 * spellings Kernel, Operator, Runtime, Memcpy, Memset, Driver, matched
 * without case. */
static const struct category_name {
  const char *name;
  size_t len;
  enum category cat;
} CATEGORY_NAMES[] = {
#define CATEGORY(name, cat)                                                                                            \
  { name, sizeof name - 1, cat }
    CATEGORY("ac2g", CAT_FLOW),
    CATEGORY("kernel", CAT_KERNEL),
    CATEGORY("cpu_op", CAT_CPU_OP),
    CATEGORY("memcpy", CAT_MEMCPY),
    CATEGORY("memset", CAT_MEMSET),
    CATEGORY("driver", CAT_DRIVER),
    CATEGORY("runtime", CAT_RUNTIME),
    CATEGORY("operator", CAT_CPU_OP),
    CATEGORY("cuda_sync", CAT_SYNC),
    CATEGORY("gpu_memcpy", CAT_MEMCPY),
    CATEGORY("gpu_memset", CAT_MEMSET),
    CATEGORY("cuda_driver", CAT_DRIVER),
    CATEGORY("cuda_runtime", CAT_RUNTIME),
    CATEGORY("user_annotation", CAT_ANNOTATION),
    CATEGORY("gpu_user_annotation", CAT_GPU_ANNOTATION),
#undef CATEGORY
};

static enum category classify_cat(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < sizeof CATEGORY_NAMES / sizeof CATEGORY_NAMES[0]; i++)
    if (CATEGORY_NAMES[i].len == n && ieq(s, n, CATEGORY_NAMES[i].name))
      return CATEGORY_NAMES[i].cat;
  return CAT_OTHER;
}

static enum ev_key classify_ev_key(const unsigned char *k, size_t n) {
  switch (n) {
  case 2:
    if (k[0] == 'p' && k[1] == 'h')
      return EK_PH;
    if (k[0] == 't' && k[1] == 's')
      return EK_TS;
    if (k[0] == 'i' && k[1] == 'd')
      return EK_ID;
    return EK_NONE;
  case 3:
    if (key_eq(k, n, "cat"))
      return EK_CAT;
    if (key_eq(k, n, "pid"))
      return EK_PID;
    if (key_eq(k, n, "tid"))
      return EK_TID;
    if (key_eq(k, n, "dur"))
      return EK_DUR;
    return EK_NONE;
  case 4:
    if (key_eq(k, n, "name"))
      return EK_NAME;
    if (key_eq(k, n, "args"))
      return EK_ARGS;
    return EK_NONE;
  default:
    return EK_NONE;
  }
}

static enum arg_key classify_arg_key(const unsigned char *k, size_t n) {
  switch (k[0]) {
  case 'd':
    return key_eq(k, n, "device") ? AK_DEVICE : AK_NONE;
  case 's':
    if (key_eq(k, n, "stream"))
      return AK_STREAM;
    return key_eq(k, n, "shared memory") ? AK_SHMEM : AK_NONE;
  case 'c':
    if (key_eq(k, n, "correlation"))
      return AK_CORRELATION;
    if (key_eq(k, n, "context"))
      return AK_CONTEXT;
    return key_eq(k, n, "cbid") ? AK_CBID : AK_NONE;
  case 'r':
    return key_eq(k, n, "registers per thread") ? AK_REGS : AK_NONE;
  case 'g':
    return key_eq(k, n, "grid") ? AK_GRID : AK_NONE;
  case 'b':
    if (key_eq(k, n, "block"))
      return AK_BLOCK;
    return key_eq(k, n, "bytes") ? AK_BYTES : AK_NONE;
  case 'f':
    return key_eq(k, n, "flops") ? AK_FLOPS : AK_NONE;
  default:
    return AK_NONE;
  }
}

/* ---- time ---- */

/* ts (ns as written) to CLOCK_REALTIME ns; -1 when out of range. */
static int64_t to_realtime(const struct gw_kineto_info *info, int64_t ts_ns) {
  int64_t t = ts_ns;
  if (info->clock == GW_KINETO_CLOCK_RELATIVE) {
    if ((ts_ns > 0 && info->base_ns > INT64_MAX - ts_ns))
      return -1;
    t = info->base_ns + ts_ns;
  }
  return t < 0 ? -1 : t;
}

/* Start and end of the current event; 0 when it has no usable span. */
static int event_span(struct parser *p, int64_t *start, int64_t *end) {
  const struct event *e = &p->ev;
  if ((e->have & BAD_TIME) || !(e->have & HAVE_TS))
    return 0;
  int instant = e->ph == 'i' || e->ph == 'I';
  if (!instant && !(e->have & HAVE_DUR))
    return 0; /* a complete event without its duration */
  int64_t dur = instant ? 0 : e->dur_ns;
  if (dur < 0)
    return 0;
  int64_t s = to_realtime(p->info, e->ts_ns);
  if (s < 0 || s > INT64_MAX - dur)
    return 0;
  *start = s;
  *end = s + dur;
  return 1;
}

/* event_span, counting an event without a usable span as skipped. */
static int event_span_or_skip(struct parser *p, int64_t *start, int64_t *end) {
  if (event_span(p, start, end))
    return 1;
  p->info->skipped_no_time++;
  return 0;
}

/* ---- names of copies and syncs (cupti_strings.cpp spellings) ---- */

/* CUPTI's CUpti_ActivityMemcpyKind numbers. */
static uint8_t copy_kind_of(const char *name, size_t n) {
  static const char *const kinds[] = {"HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  const char *sp = memchr(name, ' ', n);
  if (!sp)
    return 0;
  size_t off = (size_t)(sp + 1 - name);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (n - off >= 4 && memcmp(name + off, kinds[k], 4) == 0)
      return (uint8_t)(k + 1);
  return 0;
}

/* CUPTI's CUpti_ActivityMemoryKind numbers for a word such as "Pageable". */
static uint8_t mem_kind_of(const char *s, size_t n) {
  static const char *const kinds[] = {"Pageable", "Pinned",        "Device",        "Array",
                                      "Managed",  "Device Static", "Managed Static"};
  for (size_t k = sizeof kinds / sizeof kinds[0]; k-- > 0;) {
    size_t m = strlen(kinds[k]);
    if (n == m && memcmp(s, kinds[k], m) == 0)
      return (uint8_t)(k + 1);
  }
  return 0;
}

/* "Memcpy HtoD (Pageable -> Device)" -> source and destination kinds. */
static void copy_mem_kinds(const char *name, size_t n, uint8_t *src, uint8_t *dst) {
  *src = *dst = 0;
  const char *open = memchr(name, '(', n);
  if (!open)
    return;
  const char *close = memchr(open, ')', n - (size_t)(open - name));
  if (!close)
    return;
  const char *a = open + 1;
  size_t span = (size_t)(close - a);
  const char *arrow = NULL;
  for (size_t i = 0; i + 4 <= span; i++)
    if (memcmp(a + i, " -> ", 4) == 0) {
      arrow = a + i;
      break;
    }
  if (!arrow) {
    *src = mem_kind_of(a, span); /* "Memset (Device)" */
    return;
  }
  *src = mem_kind_of(a, (size_t)(arrow - a));
  *dst = mem_kind_of(arrow + 4, (size_t)(close - arrow - 4));
}

static uint32_t sync_type_of(const char *name, size_t n) {
  static const char *const types[] = {"Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    size_t m = strlen(types[k]);
    if (n == m && memcmp(name, types[k], m) == 0)
      return (uint32_t)(k + 1);
  }
  return 0;
}

static int is_nccl(const char *name, size_t n) {
  return (n >= 11 && memcmp(name, "ncclKernel_", 11) == 0) || (n >= 14 && memcmp(name, "ncclDevKernel_", 14) == 0);
}

/* "ProfilerStep#12" -> 12 */
static int profiler_step(const char *name, size_t n, int64_t *step) {
  static const char prefix[] = "ProfilerStep#";
  size_t m = sizeof prefix - 1;
  if (n <= m || n > m + 18 || memcmp(name, prefix, m) != 0)
    return 0;
  int64_t v = 0;
  for (size_t i = m; i < n; i++) {
    if (name[i] < '0' || name[i] > '9')
      return 0;
    v = v * 10 + (name[i] - '0');
  }
  *step = v;
  return 1;
}

/* ---- records ---- */

static uint32_t u32_or(int have, int64_t v, uint32_t fallback) {
  return have && v >= 0 && v <= UINT32_MAX ? (uint32_t)v : fallback;
}

/* The CUDA device of a GPU-side event: args.device, else the pid (Kineto
 * puts the device id there). The writer maps it to a recording GPU. */
static int event_device(struct parser *p, uint32_t *device) {
  const struct event *e = &p->ev;
  int64_t dev = 0;
  if (e->have & HAVE_DEVICE)
    dev = e->device;
  else if (e->have & HAVE_PID)
    dev = e->pid;
  if (dev < 0 || dev >= GW_SINK_MAX_GPU_INDEX)
    return fail_at(p, GW_EINPUT, _("GPU event with a device id outside 0-4095"));
  *device = (uint32_t)dev;
  return 1;
}

static uint32_t event_stream(const struct event *e) {
  if (e->have & HAVE_STREAM)
    return u32_or(1, e->stream, 0);
  return u32_or(e->have & HAVE_TID, e->tid, 0);
}

/* The record's device field holds the CUDA device until the writer maps it. */
static gw_status emit(struct parser *p, enum held_type type, void *rec, const char *name, size_t name_full_len) {
  switch (type) {
  case HELD_KERNEL: {
    const struct gw_wire_kernel *k = rec;
    return gw_pipe_kernel(p->pipe, k, k->device, name, name_full_len);
  }
  case HELD_MEMCPY: {
    const struct gw_wire_memcpy *m = rec;
    return gw_pipe_memcpy(p->pipe, m, m->device);
  }
  case HELD_MEMSET: {
    const struct gw_wire_memset *m = rec;
    return gw_pipe_memset(p->pipe, m, m->device);
  }
  case HELD_API:
    return gw_pipe_api(p->pipe, rec);
  case HELD_NONE:
    break;
  }
  return GW_OK;
}

static gw_status emit_held(struct parser *p) {
  struct held *h = &p->held;
  enum held_type type = h->type;
  h->type = HELD_NONE;
  return emit(p, type, &h->r, h->name, h->name_full_len);
}

/* Hold the record when it has no correlation id, else write it now. */
static gw_status put_or_hold(struct parser *p, enum held_type type, void *rec, size_t size) {
  gw_status rc = emit_held(p);
  if (rc)
    return rc;
  struct event *e = &p->ev;
  if (e->have & HAVE_CORRELATION)
    return emit(p, type, rec, e->name, e->name_full_len);
  struct held *h = &p->held;
  h->type = type;
  h->ts_ns_key = e->ts_ns;
  memcpy(&h->r, rec, size);
  h->name_len = e->name_len;
  h->name_full_len = e->name_full_len;
  memcpy(h->name, e->name, e->name_len);
  return GW_OK;
}

/* A flow event: fill the held record's correlation when it is the flow's
 * other end (same timestamp), and count it. */
static gw_status take_flow(struct parser *p) {
  struct event *e = &p->ev;
  p->info->ac2g_flows++;
  struct held *h = &p->held;
  if (h->type == HELD_NONE || !(e->have & HAVE_ID) || !(e->have & HAVE_TS) || e->ts_ns != h->ts_ns_key || e->id < 0 ||
      e->id > UINT32_MAX)
    return GW_OK;
  uint32_t corr = (uint32_t)e->id;
  int is_start = e->ph == 's';
  if (h->type == HELD_API && is_start)
    h->r.api.correlation = corr;
  else if (h->type == HELD_KERNEL && !is_start)
    h->r.kernel.correlation = corr;
  else if (h->type == HELD_MEMCPY && !is_start)
    h->r.memcpy.correlation = corr;
  else if (h->type == HELD_MEMSET && !is_start)
    h->r.memset.correlation = corr;
  else
    return GW_OK;
  p->info->flow_fills++;
  return emit_held(p);
}

static gw_status do_kernel(struct parser *p) {
  struct event *e = &p->ev;
  struct gw_wire_kernel k;
  gw_wire_kernel_init(&k, 0);
  int64_t start, end;
  if (event_span(p, &start, &end)) {
    k.start_ns = (uint64_t)start;
    k.end_ns = (uint64_t)end;
  } else {
    k.h.flags |= GW_WIRE_KERNEL_NO_TIMESTAMP; /* still one row: counts must
                                                 match the trace */
  }
  if (!event_device(p, &k.device))
    return p->fail;
  if (is_nccl(e->name, e->name_len))
    k.h.flags |= GW_WIRE_KERNEL_NCCL;
  k.context = u32_or(e->have & HAVE_CONTEXT, e->context, 0);
  k.stream = event_stream(e);
  k.correlation = u32_or(e->have & HAVE_CORRELATION, e->correlation, 0);
  k.grid_x = e->grid[0];
  k.grid_y = e->grid[1];
  k.grid_z = e->grid[2];
  k.block_x = e->block[0];
  k.block_y = e->block[1];
  k.block_z = e->block[2];
  k.regs_per_thread = u32_or(e->have & HAVE_REGS, e->regs, 0);
  /* Kineto gives static + dynamic shared memory as one number */
  k.static_shmem_bytes = u32_or(e->have & HAVE_SHMEM, e->shmem, 0);
  return put_or_hold(p, HELD_KERNEL, &k, sizeof k);
}

static gw_status do_copy(struct parser *p, int is_memset) {
  struct event *e = &p->ev;
  int64_t start, end;
  if (!event_span_or_skip(p, &start, &end))
    return GW_OK;
  uint32_t device;
  if (!event_device(p, &device))
    return p->fail;
  uint32_t ctx = u32_or(e->have & HAVE_CONTEXT, e->context, 0), stream = event_stream(e);
  uint32_t corr = u32_or(e->have & HAVE_CORRELATION, e->correlation, 0);
  uint64_t bytes = (e->have & HAVE_BYTES) && e->bytes > 0 ? (uint64_t)e->bytes : 0;
  if (is_memset) {
    struct gw_wire_memset m;
    gw_wire_memset_init(&m, 0);
    GW_WIRE_SET_TRANSFER(&m, (uint64_t)start, (uint64_t)end, bytes, device, ctx, stream, corr);
    uint8_t kind, unused;
    copy_mem_kinds(e->name, e->name_len, &kind, &unused);
    m.mem_kind = kind;
    return put_or_hold(p, HELD_MEMSET, &m, sizeof m);
  }
  struct gw_wire_memcpy m;
  gw_wire_memcpy_init(&m, 0);
  GW_WIRE_SET_TRANSFER(&m, (uint64_t)start, (uint64_t)end, bytes, device, ctx, stream, corr);
  m.copy_kind = copy_kind_of(e->name, e->name_len);
  copy_mem_kinds(e->name, e->name_len, &m.src_kind, &m.dst_kind);
  return put_or_hold(p, HELD_MEMCPY, &m, sizeof m);
}

static gw_status do_api(struct parser *p, int driver) {
  struct event *e = &p->ev;
  int64_t start, end;
  if (!event_span_or_skip(p, &start, &end))
    return GW_OK;
  struct gw_wire_api a;
  gw_wire_api_init(&a, 0);
  a.start_ns = (uint64_t)start;
  a.end_ns = (uint64_t)end;
  a.domain = driver ? GW_WIRE_API_DRIVER : GW_WIRE_API_RUNTIME;
  /* Older Kineto traces carry no cbid: the call's name gives it. */
  a.cbid = e->have & HAVE_CBID ? u32_or(1, e->cbid, 0) : gw_cuda_call_cbid(e->name, e->name_len, driver);
  a.tid = u32_or(e->have & HAVE_TID, e->tid, 0);
  a.correlation = u32_or(e->have & HAVE_CORRELATION, e->correlation, 0);
  return put_or_hold(p, HELD_API, &a, sizeof a);
}

static gw_status do_sync(struct parser *p) {
  struct event *e = &p->ev;
  int64_t start, end;
  if (!event_span_or_skip(p, &start, &end))
    return GW_OK;
  struct gw_wire_sync y;
  gw_wire_sync_init(&y, 0);
  y.start_ns = (uint64_t)start;
  y.end_ns = (uint64_t)end;
  y.sync_type = sync_type_of(e->name, e->name_len);
  y.context = u32_or(e->have & HAVE_CONTEXT, e->context, 0);
  y.stream = u32_or(e->have & HAVE_STREAM, e->stream, 0);
  y.correlation = u32_or(e->have & HAVE_CORRELATION, e->correlation, 0);
  gw_status rc = emit_held(p);
  return rc ? rc : gw_pipe_sync(p->pipe, &y);
}

/* Room for one more of n items in *items: doubles *cap when full, starting
 * at first_cap. */
static void *room_for_one_more(void *items, size_t n, size_t *cap, size_t first_cap, size_t item_bytes) {
  if (n < *cap)
    return items;
  *cap = *cap ? 2 * *cap : first_cap;
  return gw_xrealloc(items, *cap * item_bytes);
}

static void keep_step(struct parser *p, int64_t step, int64_t start_ns, int64_t end_ns) {
  p->steps = room_for_one_more(p->steps, p->nsteps, &p->steps_cap, 16, sizeof *p->steps);
  p->steps[p->nsteps++] = (struct profiler_step){step, start_ns, end_ns, 0};
}

static void keep_flop_op(struct parser *p, int64_t tid, int64_t start_ns, int64_t end_ns, int64_t flops) {
  p->ops = room_for_one_more(p->ops, p->nops, &p->ops_cap, 256, sizeof *p->ops);
  p->ops[p->nops++] = (struct flop_op){tid, start_ns, end_ns, flops};
}

static gw_status do_marker(struct parser *p, const char *domain, int on_gpu) {
  struct event *e = &p->ev;
  int64_t start, end;
  if (!event_span_or_skip(p, &start, &end))
    return GW_OK;
  gw_status rc = emit_held(p);
  if (rc)
    return rc;
  int64_t step;
  int is_step = !on_gpu && profiler_step(e->name, e->name_len, &step);
  if (is_step && p->opts->write_steps && (rc = gw_pipe_step(p->pipe, start, end, step, "kineto")))
    return rc;
  if (is_step)
    keep_step(p, step, start, end);
  if (e->cat == CAT_CPU_OP && (e->have & HAVE_FLOPS) && e->flops > 0)
    keep_flop_op(p, u32_or(e->have & HAVE_TID, e->tid, 0), start, end, e->flops);
  struct gw_wire_marker m;
  gw_wire_marker_init(&m, 0);
  m.start_ns = (uint64_t)start;
  m.end_ns = (uint64_t)end;
  if (e->ph == 'i' || e->ph == 'I')
    m.h.flags |= GW_WIRE_MARKER_INSTANT;
  m.tid = on_gpu ? event_stream(e) : u32_or(e->have & HAVE_TID, e->tid, 0);
  return gw_pipe_marker(p->pipe, &m, e->name, e->name_full_len, domain);
}

/* CPU-side categories carry the OS pid of the traced process. */
static int is_cpu_side(enum category c) {
  return c == CAT_CPU_OP || c == CAT_ANNOTATION || c == CAT_RUNTIME || c == CAT_DRIVER;
}

static gw_status end_event(struct parser *p) {
  struct event *e = &p->ev;
  struct gw_kineto_info *info = p->info;
  info->events++;
  if (e->cat == CAT_KERNEL)
    info->kernel_events++;
  if (p->prescan) {
    if (!info->has_first_ts && (e->have & HAVE_TS) && !(e->have & BAD_TIME)) {
      info->has_first_ts = 1;
      info->first_ts_ns = e->ts_ns;
    }
    return GW_OK;
  }
  gw_status rc;
  if (is_cpu_side(e->cat) && (e->have & HAVE_PID) && e->pid > 0 && !p->pid_known) {
    p->pid_known = 1;
    if ((rc = gw_pipe_set_pid(p->pipe, e->pid)))
      return rc;
  }
  if (e->cat == CAT_FLOW && (e->ph == 's' || e->ph == 'f'))
    return take_flow(p);
  if (e->cat != CAT_KERNEL && e->ph != 'X' && !(e->ph == 'i' || e->ph == 'I')) {
    info->skipped_other++; /* metadata, counters, other flows */
    return emit_held(p);
  }
  switch (e->cat) {
  case CAT_KERNEL:
    return do_kernel(p);
  case CAT_MEMCPY:
    return do_copy(p, 0);
  case CAT_MEMSET:
    return do_copy(p, 1);
  case CAT_RUNTIME:
    return do_api(p, 0);
  case CAT_DRIVER:
    return do_api(p, 1);
  case CAT_SYNC:
    return do_sync(p);
  case CAT_CPU_OP:
    return do_marker(p, "cpu_op", 0);
  case CAT_ANNOTATION:
    return do_marker(p, "user_annotation", 0);
  case CAT_GPU_ANNOTATION:
    return do_marker(p, "gpu_user_annotation", 1);
  default:
    info->skipped_other++;
    return emit_held(p);
  }
}

/* ---- JSON callbacks ---- */

static int in_event(const struct parser *p) {
  return p->in_events && p->depth == p->events_depth;
}
static int in_args(const struct parser *p) {
  return p->in_events && p->depth == p->events_depth + 1 && p->ev_container == EK_ARGS;
}
static int in_args_array(const struct parser *p) {
  return p->in_events && p->depth == p->events_depth + 2 && p->ev_container == EK_ARGS &&
         (p->arg_container == AK_GRID || p->arg_container == AK_BLOCK);
}

/* Stores a number into the event field f names, when it names one. */
static void take_event_number(struct event *e, const struct event_number *f, const char *s, size_t n) {
  if (!f->have)
    return;
  int64_t *field = (int64_t *)((char *)e + f->offset);
  if (f->is_time_us) {
    e->have |= gw_kineto_parse_us(s, n, field) == 0 ? f->have : BAD_TIME;
    return;
  }
  int64_t v;
  if (parse_int(s, n, &v) == 0) {
    *field = v;
    e->have |= f->have;
  }
}

/* A numeric field given as a number or as a string of digits. */
static int take_number(struct parser *p, const char *s, size_t n) {
  struct event *e = &p->ev;
  if (in_event(p)) {
    take_event_number(e, &EVENT_NUMBERS[p->ev_key], s, n);
    return 1;
  }
  if (in_args(p)) {
    take_event_number(e, &ARG_NUMBERS[p->arg_key], s, n);
    return 1;
  }
  if (in_args_array(p)) {
    int64_t v;
    if (p->array_index < 3 && parse_int(s, n, &v) == 0 && v >= 0 && v <= UINT32_MAX) {
      uint32_t *dst = p->arg_container == AK_GRID ? e->grid : e->block;
      dst[p->array_index] = (uint32_t)v;
    }
    p->array_index++;
    return 1;
  }
  return 0; /* not an event field */
}

/* An int of deviceProperties and the values it can hold; one outside them
 * is a writer's mistake and stays unknown (0). max 0: the key is no such int. */
struct device_limit {
  size_t offset; /* in struct gw_sink_device */
  int64_t min, max;
};
static const struct device_limit DEVICE_LIMITS[DK_COUNT] = {
    [DK_SMS] = {offsetof(struct gw_sink_device, num_sms), 1, 99999},
    [DK_MAJOR] = {offsetof(struct gw_sink_device, cc_major), 1, 999},
    [DK_MINOR] = {offsetof(struct gw_sink_device, cc_minor), 0, 999},
    [DK_THREADS_SM] = {offsetof(struct gw_sink_device, max_threads_per_sm), 1, 999999},
};

static void take_device_limit(struct gw_sink_device *dev, const struct device_limit *f, int64_t v) {
  if (f->max)
    *(int *)((char *)dev + f->offset) = v >= f->min && v <= f->max ? (int)v : 0;
}

static void take_header_number(struct parser *p, const char *s, size_t n) {
  int64_t v;
  if (parse_int(s, n, &v) != 0)
    return;
  struct gw_kineto_info *info = p->info;
  if (p->depth == 1) {
    switch (p->top) {
    case TOP_BASE:
      info->has_base = 1;
      info->base_ns = v;
      break;
    case TOP_CUPTI:
      info->cupti_version = v;
      break;
    case TOP_DRIVER:
      info->cuda_driver_version = v;
      break;
    case TOP_RUNTIME:
      info->cuda_runtime_version = v;
      break;
    default:
      break;
    }
  } else if (p->top == TOP_DEVICES && p->depth == 3) {
    switch (p->dev_key) {
    case DK_ID:
      if (v >= 0 && v < GW_SINK_MAX_GPU_INDEX) {
        p->dev.device = (uint32_t)v;
        p->dev_has_id = 1;
      }
      break;
    case DK_MEM:
      p->dev.mem_total_bytes = v > 0 ? (uint64_t)v : 0;
      break;
    default:
      take_device_limit(&p->dev, &DEVICE_LIMITS[p->dev_key], v);
      break;
    }
  } else if (p->top == TOP_DIST && p->depth == 2) {
    if (p->dist_key == XK_RANK) {
      info->has_rank = 1;
      info->rank = v;
    } else if (p->dist_key == XK_WORLD) {
      info->world_size = v;
    }
  }
}

static int cb_number(void *ctx, const char *s, size_t n) {
  struct parser *p = ctx;
  if (p->in_events) {
    if (!take_number(p, s, n) && p->depth == p->events_depth - 1)
      return fail_at(p, GW_EINPUT, _("a trace event must be a JSON object, found a number"));
    return 1;
  }
  take_header_number(p, s, n);
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n) {
  struct parser *p = ctx;
  const char *cs = (const char *)s;
  if (in_event(p)) {
    struct event *e = &p->ev;
    switch (p->ev_key) {
    case EK_NAME:
      e->name_full_len = n;
      e->name_len = n > GW_WIRE_NAME_MAX_BYTES ? GW_WIRE_NAME_MAX_BYTES : n;
      memcpy(e->name, s, e->name_len);
      break;
    case EK_CAT:
      e->cat = classify_cat(s, n);
      e->have |= HAVE_CAT;
      break;
    case EK_PH:
      e->ph = n ? cs[0] : 0;
      e->have |= HAVE_PH;
      break;
    case EK_TS:
    case EK_DUR:
    case EK_PID:
    case EK_TID:
    case EK_ID:
      /* numbers written as strings; a non-numeric pid such as "Spans" is no pid
       */
      take_number(p, cs, n);
      break;
    default:
      break;
    }
    return 1;
  }
  if (p->in_events) {
    if (p->depth == p->events_depth - 1)
      return fail_at(p, GW_EINPUT, _("a trace event must be a JSON object, found a string"));
    if (in_args(p) && p->arg_key != AK_NONE)
      take_number(p, cs, n);
    return 1;
  }
  if (p->top == TOP_DEVICES && p->depth == 3 && p->dev_key == DK_NAME) {
    size_t m = n < sizeof p->dev.name - 1 ? n : sizeof p->dev.name - 1;
    memcpy(p->dev.name, s, m);
    p->dev.name[m] = '\0';
  } else if (p->top == TOP_DIST && p->depth == 2 && (p->dist_key == XK_BACKEND || p->dist_key == XK_NCCL)) {
    char *dst = p->dist_key == XK_BACKEND ? p->info->backend : p->info->nccl_version;
    size_t m = n < sizeof p->info->backend - 1 ? n : sizeof p->info->backend - 1;
    memcpy(dst, s, m);
    dst[m] = '\0';
  } else if (p->depth == 1 && (p->top == TOP_BASE || p->top == TOP_CUPTI)) {
    take_header_number(p, cs, n);
  }
  return 1;
}

static int cb_scalar(void *ctx) {
  struct parser *p = ctx;
  if (p->in_events && p->depth == p->events_depth - 1)
    return fail_at(p, GW_EINPUT, _("a trace event must be a JSON object"));
  if (in_args_array(p))
    p->array_index++;
  return 1;
}
static int cb_boolean(void *ctx, int v) {
  (void)v;
  return cb_scalar(ctx);
}

/* The keys of the header objects, each list ending at a NULL name; a key
 * not listed is 0 (TOP_NONE, DK_NONE, XK_NONE). */
struct key_name {
  const char *name;
  int key;
};
static const struct key_name TOP_KEY_NAMES[] = {
    {"traceEvents", TOP_EVENTS},           {"deviceProperties", TOP_DEVICES},
    {"distributedInfo", TOP_DIST},         {"baseTimeNanoseconds", TOP_BASE},
    {"cupti_version", TOP_CUPTI},          {"cuda_driver_version", TOP_DRIVER},
    {"cuda_runtime_version", TOP_RUNTIME}, {NULL, TOP_NONE}};
static const struct key_name DEVICE_KEY_NAMES[] = {{"id", DK_ID},
                                                   {"name", DK_NAME},
                                                   {"totalGlobalMem", DK_MEM},
                                                   {"numSms", DK_SMS},
                                                   {"computeMajor", DK_MAJOR},
                                                   {"computeMinor", DK_MINOR},
                                                   {"maxThreadsPerMultiprocessor", DK_THREADS_SM},
                                                   {NULL, DK_NONE}};
static const struct key_name DIST_KEY_NAMES[] = {
    {"rank", XK_RANK}, {"world_size", XK_WORLD}, {"backend", XK_BACKEND}, {"nccl_version", XK_NCCL}, {NULL, XK_NONE}};

static int key_named(const struct key_name *names, const unsigned char *k, size_t n) {
  for (; names->name; names++)
    if (key_eq(k, n, names->name))
      return names->key;
  return 0;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t n) {
  struct parser *p = ctx;
  if (in_event(p)) {
    p->ev_key = classify_ev_key(k, n);
  } else if (in_args(p)) {
    p->arg_key = n ? classify_arg_key(k, n) : AK_NONE;
  } else if (p->depth == 1 && !p->info->bare_array) {
    p->top = (enum top_key)key_named(TOP_KEY_NAMES, k, n);
  } else if (p->top == TOP_DEVICES && p->depth == 3) {
    p->dev_key = (enum dev_key)key_named(DEVICE_KEY_NAMES, k, n);
  } else if (p->top == TOP_DIST && p->depth == 2) {
    p->dist_key = (enum dist_key)key_named(DIST_KEY_NAMES, k, n);
  }
  return 1;
}

static int push_depth(struct parser *p) {
  if (++p->depth > MAX_DEPTH)
    return fail_at(p, GW_EINPUT, _("JSON nested deeper than 64 levels: not a trace"));
  return 1;
}

/* Whether the object now opening as the value of an event key can be
 * skipped unread: any object but args, and args of an event whose category
 * takes nothing from them (CPU ops, annotations, flows, other categories),
 * which is most events. Kineto writes "cat" before "args": an event that
 * names its category only after args has them read (a second, different
 * "cat" after skipped args would find them unread; no writer does that). */
static int event_object_unread(const struct parser *p) {
  if (p->ev_key != EK_ARGS || p->prescan)
    return 1;
  if (!(p->ev.have & HAVE_CAT))
    return 0;
  switch (p->ev.cat) {
  case CAT_OTHER:
  case CAT_ANNOTATION:
  case CAT_FLOW:
    return 1;
  default:
    return 0;
  }
}

static int cb_start_map(void *ctx) {
  struct parser *p = ctx;
  if (p->in_events) {
    if (p->depth == p->events_depth - 1) {
      struct event *e = &p->ev;
      e->have = 0;
      e->ph = 0;
      e->cat = CAT_OTHER;
      e->name_len = e->name_full_len = 0;
      memset(e->grid, 0, sizeof e->grid);
      memset(e->block, 0, sizeof e->block);
      p->ev_key = EK_NONE;
      p->ev_container = EK_NONE;
    } else if (p->depth == p->events_depth) {
      p->ev_container = p->ev_key;
      p->arg_key = AK_NONE;
      if (!push_depth(p))
        return 0;
      return event_object_unread(p) ? GW_JSON_SKIP : 1;
    }
  } else if (p->top == TOP_DEVICES && p->depth == 2) {
    memset(&p->dev, 0, sizeof p->dev);
    p->dev_has_id = 0;
    p->dev_key = DK_NONE;
  } else if (p->top == TOP_DIST && p->depth == 1) {
    p->dist_key = XK_NONE;
  } else if (p->depth == 1 && p->top == TOP_EVENTS) {
    return fail_at(p, GW_EINPUT, _("\"traceEvents\" must be an array of event objects"));
  }
  return push_depth(p);
}

static int cb_end_map(void *ctx) {
  struct parser *p = ctx;
  p->depth--;
  if (p->in_events && p->depth == p->events_depth - 1) {
    gw_status rc = end_event(p);
    if (rc)
      return fail_sink(p, rc);
    if (p->prescan && p->info->has_first_ts && !p->prescan_to_end) {
      p->stop = 1;
      return 0;
    }
  } else if (p->in_events && p->depth == p->events_depth) {
    p->ev_container = EK_NONE;
  } else if (p->top == TOP_DEVICES && p->depth == 2 && p->dev_has_id && p->pipe) {
    p->dev.input_index = p->opts->input_index;
    gw_status rc = gw_pipe_device(p->pipe, &p->dev);
    if (rc)
      return fail_sink(p, rc);
  }
  return 1;
}

static int cb_start_array(void *ctx) {
  struct parser *p = ctx;
  if (p->depth == 0) {
    p->info->bare_array = 1; /* JSON Array Format: the document is the event list */
    p->info->saw_events = 1;
    p->in_events = 1;
    p->events_depth = 2;
  } else if (p->depth == 1 && p->top == TOP_EVENTS && !p->info->bare_array) {
    p->info->saw_events = 1;
    p->in_events = 1;
    p->events_depth = 3;
  } else if (p->in_events && p->depth == p->events_depth - 1) {
    return fail_at(p, GW_EINPUT, _("a trace event must be a JSON object, found an array"));
  } else if (in_args(p)) {
    p->arg_container = p->arg_key;
    p->array_index = 0;
  } else if (in_event(p)) {
    p->ev_container = p->ev_key;
  }
  return push_depth(p);
}

static int cb_end_array(void *ctx) {
  struct parser *p = ctx;
  p->depth--;
  if (p->in_events && p->depth == p->events_depth - 2) {
    p->in_events = 0;
    p->top = TOP_NONE;
    gw_status rc = p->prescan ? GW_OK : emit_held(p);
    if (rc)
      return fail_sink(p, rc);
    if (p->prescan && !p->prescan_to_end) {
      p->stop = 1; /* an empty event list */
      return 0;
    }
  } else if (in_args(p)) {
    p->arg_container = AK_NONE;
  }
  return 1;
}

static int cb_null(void *ctx) {
  return cb_scalar(ctx);
}

static const struct gw_json_callbacks CALLBACKS = {
    .null_value = cb_null,
    .boolean = cb_boolean,
    .number = cb_number, /* raw text: exact ts, no double round trip */
    .string = cb_string,
    .start_map = cb_start_map,
    .map_key = cb_map_key,
    .end_map = cb_end_map,
    .start_array = cb_start_array,
    .end_array = cb_end_array,
};

/* ---- driver ---- */

/* Reads the input into one buffer and parses whole tokens from it; the
 * bytes of a token cut by the end of a read move to the front and the next
 * read goes after them. A token that fills the buffer doubles it, up to
 * MAX_TOKEN_BYTES: a corrupt file with a gigabyte-long string fails with a
 * message instead of taking the memory. */
static gw_status parse_stream(struct gw_input *in, struct parser *p) {
  struct gw_err *err = p->err;
  size_t cap_bytes = CHUNK_BYTES, keep_bytes = 0;
  /* A plain input smaller than a chunk gets a buffer of its size (the
   * reads go on in pieces of it if the file grows): a megabyte per parse
   * cost more than parsing a small trace. Not cleared: only the n bytes
   * read are parsed. */
  if (!in->is_gzip && in->total_bytes < CHUNK_BYTES)
    cap_bytes = in->total_bytes < 4096 ? 4096 : (size_t)in->total_bytes + 1;
  unsigned char *buf = gw_xrealloc(NULL, cap_bytes);
  p->j = gw_json_new(&CALLBACKS, p, MAX_DEPTH);
  gw_status rc = GW_OK;
  uint64_t total_bytes = 0;
  for (;;) {
    if (keep_bytes == cap_bytes) {
      if (cap_bytes >= MAX_TOKEN_BYTES) {
        gw_err_set(err,
                   _("%s: a string or value longer than %u bytes runs up to byte "
                     "%llu: not a trace field (corrupt "
                     "file?)"),
                   in->name, MAX_TOKEN_BYTES, (unsigned long long)total_bytes);
        rc = GW_EINPUT;
        break;
      }
      cap_bytes *= 2;
      buf = gw_xrealloc(buf, cap_bytes);
    }
    size_t got;
    if ((rc = gw_input_read(in, buf + keep_bytes, cap_bytes - keep_bytes, &got, err)))
      break;
    total_bytes += got;
    int at_end = got == 0;
    size_t n = keep_bytes + got, used;
    enum gw_json_status st = gw_json_parse(p->j, buf, n, at_end, &used);
    if (st == GW_JSON_CANCELED) {
      rc = p->stop ? GW_OK : p->fail;
      break;
    }
    if (st == GW_JSON_TOO_DEEP) {
      fail_at(p, GW_EINPUT, _("JSON nested deeper than 64 levels: not a trace"));
      rc = GW_EINPUT;
      break;
    }
    if (st == GW_JSON_INCOMPLETE) {
      gw_err_set(err,
                 _("%s: ends at byte %llu inside the JSON document, which is "
                   "incomplete (%s)"),
                 in->name, (unsigned long long)total_bytes, gw_json_error(p->j));
      rc = GW_EINPUT;
      break;
    }
    if (st == GW_JSON_ERROR) {
      gw_err_set(err,
                 _("%s: byte %llu: not valid JSON here (%s); a Kineto/Chrome "
                   "trace is one JSON object or array"),
                 in->name, (unsigned long long)gw_json_offset(p->j), gw_json_error(p->j));
      rc = GW_EINPUT;
      break;
    }
    if (at_end)
      break;
    keep_bytes = n - used;
    memmove(buf, buf + used, keep_bytes);
    if (p->opts && p->opts->progress)
      p->opts->progress(p->opts->progress_ctx, gw_input_position(in), in->total_bytes);
  }
  p->info->bytes = total_bytes;
  gw_json_free(p->j);
  p->j = NULL;
  free(buf);
  return rc;
}

gw_status gw_kineto_prescan(struct gw_input *in, struct gw_kineto_info *info, struct gw_err *err) {
  memset(info, 0, sizeof *info);
  struct parser *p = gw_xcalloc(1, sizeof *p);
  p->err = err;
  p->prescan = 1;
  p->info = info;
  p->name = in->name;
  gw_status rc = parse_stream(in, p);
  if (!rc && info->has_first_ts && info->first_ts_ns < GW_KINETO_ABSOLUTE_TS_MIN_US * 1000 && !info->has_base) {
    /* relative times and no base yet: it may follow the events */
    if (!(rc = gw_input_rewind(in, err))) {
      struct gw_kineto_info again = {0};
      memset(p, 0, sizeof *p);
      p->err = err;
      p->prescan = 1;
      p->prescan_to_end = 1;
      p->info = &again;
      p->name = in->name;
      if (!(rc = parse_stream(in, p)) && again.has_base) {
        info->has_base = 1;
        info->base_ns = again.base_ns;
      }
    }
  }
  free(p);
  if (rc)
    return rc;
  if (!info->saw_events) {
    gw_err_set(err,
               _("%s: a JSON document without a \"traceEvents\" array: not a "
                 "Kineto/Chrome trace"),
               in->name);
    return GW_EINPUT;
  }
  if (info->has_first_ts && info->first_ts_ns >= GW_KINETO_ABSOLUTE_TS_MIN_US * 1000)
    info->clock = GW_KINETO_CLOCK_ABSOLUTE;
  else if (info->has_base)
    info->clock = GW_KINETO_CLOCK_RELATIVE;
  else
    info->clock = info->has_first_ts ? GW_KINETO_CLOCK_UNKNOWN : GW_KINETO_CLOCK_ABSOLUTE;
  if (info->has_base && info->base_ns < 0) {
    gw_err_set(err, _("%s: baseTimeNanoseconds is negative"), in->name);
    return GW_EINPUT;
  }
  info->events = info->kernel_events = 0;
  return gw_input_rewind(in, err);
}

static int by_tid_then_start(const void *x, const void *y) {
  const struct flop_op *a = x, *b = y;
  if (a->tid != b->tid)
    return (a->tid > b->tid) - (a->tid < b->tid);
  if (a->start_ns != b->start_ns)
    return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
  return (a->end_ns < b->end_ns) - (a->end_ns > b->end_ns); /* the enclosing op first */
}

static int by_flops(const void *x, const void *y) {
  const struct profiler_step *a = x, *b = y;
  return (a->flops > b->flops) - (a->flops < b->flops);
}

/* The FLOPs of each ProfilerStep: its ops that carry a count, by start
 * time (the backward ops run on autograd's thread, inside the step's time).
 * An op inside another op with a count on the same thread is left out, so
 * a count given at two levels of one call is not added twice. Returns the
 * median step (by FLOPs), NULL when no step has any: a trace recorded
 * without with_flops=True, or without ProfilerStep ranges. */
static const struct profiler_step *median_flop_step(struct parser *p) {
  if (p->nops == 0 || p->nsteps == 0)
    return NULL;
  qsort(p->ops, p->nops, sizeof *p->ops, by_tid_then_start);
  int64_t outer_tid = 0, outer_end_ns = INT64_MIN;
  for (size_t i = 0; i < p->nops; i++) {
    const struct flop_op *o = &p->ops[i];
    if (o->tid == outer_tid && o->end_ns <= outer_end_ns && i > 0)
      continue;
    outer_tid = o->tid;
    outer_end_ns = o->end_ns;
    for (size_t k = 0; k < p->nsteps; k++)
      if (o->start_ns >= p->steps[k].start_ns && o->start_ns < p->steps[k].end_ns)
        p->steps[k].flops += (double)o->flops;
  }
  size_t n = 0;
  for (size_t k = 0; k < p->nsteps; k++)
    if (p->steps[k].flops > 0)
      p->steps[n++] = p->steps[k];
  if (n == 0)
    return NULL;
  qsort(p->steps, n, sizeof *p->steps, by_flops);
  return &p->steps[(n - 1) / 2];
}

/* One step_flops row per traced process, as the Python hook writes one: the
 * median step's FLOPs (a step cut by the trace's window counts fewer ops and
 * falls out of the median). counted_ns stays unknown: nothing was counted
 * during the run, so counting cost nothing. */
static gw_status write_step_flops(struct gw_import_sink *sink, const struct profiler_step *st, int64_t pid,
                                  const struct gw_kineto_info *info, struct gw_err *err) {
  struct gw_store_step_flops *w = NULL;
  gw_status rc = gw_store_step_flops_open(&w, gw_sink_store(sink), err);
  if (rc)
    return rc;
  struct gw_store_step_flops_row row = {
      .step = st->step,
      .pid = pid,
      .rank = info->has_rank ? info->rank : -1,
      .flops = st->flops < 9e18 ? (int64_t)st->flops : INT64_MAX,
      .dtype_flops_json = NULL,
      .batch_size = -1,
      .counted_ns = -1,
      .source = "kineto",
  };
  rc = gw_store_step_flops_put(w, &row);
  if (rc)
    gw_err_set(err, "recording: cannot write the step_flops row");
  gw_store_step_flops_close(w);
  return rc;
}

gw_status gw_kineto_import(struct gw_input *in, struct gw_import_sink *sink, const struct gw_kineto_opts *opts,
                           struct gw_kineto_info *info, struct gw_err *err) {
  gw_status rc = gw_sink_begin_process(sink, opts->input_index, 0, 0, err);
  if (rc)
    return rc;
  struct parser *p = gw_xcalloc(1, sizeof *p);
  p->err = err;
  p->sink = sink;
  p->opts = opts;
  p->info = info;
  p->name = in->name;
  info->events = info->kernel_events = info->ac2g_flows = info->flow_fills = 0;
  info->skipped_no_time = info->skipped_other = 0;
  info->bare_array = 0;
  if ((rc = gw_pipe_start(&p->pipe, sink, err))) {
    free(p);
    return rc;
  }
  rc = parse_stream(in, p);
  if (!rc)
    rc = emit_held(p);
  struct gw_err writer_err = {{0}};
  gw_status wrc = gw_pipe_finish(p->pipe, &writer_err);
  struct profiler_step flop_step = {0};
  const struct profiler_step *median = rc || wrc ? NULL : median_flop_step(p);
  if (median)
    flop_step = *median;
  free(p->ops);
  free(p->steps);
  free(p);
  if (wrc) {
    *err = writer_err; /* the parser stopped because the writer did */
    return wrc;
  }
  if (rc)
    return rc;
  uint32_t pid_used;
  if ((rc = gw_sink_end_process(sink, &pid_used, err)))
    return rc;
  info->pid = pid_used;
  /* with the process's steps in the step table, where its steady step time comes from */
  if (flop_step.flops > 0 && opts->write_steps && (rc = write_step_flops(sink, &flop_step, pid_used, info, err)))
    return rc;
  struct gw_import_counts *c = gw_sink_counts(sink);
  c->events += info->events;
  c->skipped += info->skipped_no_time + info->skipped_other;
  return GW_OK;
}
