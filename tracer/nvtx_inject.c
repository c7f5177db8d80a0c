/* NVTX ranges without CUPTI: libgpuwhy-tracer.so is also an NVTX v3
 * injection library. NVTX (header-only, one copy in every library built with
 * it: torch, NCCL, the user's program) reads NVTX_INJECTION64_PATH on its
 * first call, dlopens that library and calls InitializeInjectionNvtx2, which
 * fills NVTX's function table with the functions below. CUPTI 13.0 refuses
 * NVTX callbacks (tracer/README.md), so ranges come through here, and work in
 * a process that never starts CUDA.
 *
 * Each process writes <GPUWHY_TRACE_DIR>/trace-<pid>-nvtx.gwt, a wire file of
 * mode NVTX holding NAME, MARKER and NOTE records only (the CUDA side keeps
 * trace-<pid>.gwt: the two start independently).
 *
 * Cost rules: a push or pop takes the clock (vDSO, no system call), hashes
 * the name and appends 40 bytes to the calling thread's own buffer; no lock is
 * taken unless the name is new to the thread. The buffer goes to the file in
 * one write(2) when it is full, when its oldest range is a second old (so a
 * killed process loses at most the last second), when the thread ends and at
 * exit. Nothing here waits for another thread except that rare write. Every
 * failure turns the ranges off, never the program. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "tracer_out.h"
#include "wire.h"
#include "wire_encode.h"

#define GWT_EXPORT __attribute__((visibility("default")))

/* 1638 ranges per thread between writes: at a training loop's few ranges a
 * step the age limit, not the size, decides when it is written. */
#define THREAD_BUFFER_BYTES (64u * 1024u)
/* A range older than this in a thread's buffer sends the buffer to the file:
 * what a killed process can lose. One write a second per busy thread. */
#define FLUSH_AGE_NS 1000000000ull
/* Push/pop nesting kept per thread; deeper ranges are counted, not recorded
 * (frameworks nest a few levels: step, forward, layer, op). */
#define STACK_DEPTH 64
/* Start/end ranges open at once (they may end on another thread). */
#define OPEN_RANGE_SLOTS 4096u
/* Name interning, as tracer_out.c's table: 3/4 full counts as full. */
#define NAME_SLOTS 16384u
/* A wide or registered name is converted into this much UTF-8. */
#define NAME_TEXT_BYTES 1024u

enum nvtx_state { NVTX_UNSET, NVTX_ON, NVTX_OFF };

struct open_push {
  uint64_t start_ns;
  uint32_t name_id, domain_id;
};

struct thread_buffer {
  pthread_mutex_t write_mutex; /* held while this buffer goes to the file (owner or exit) */
  _Atomic size_t used_bytes;   /* published by the owner: records below it are complete */
  size_t written_bytes;        /* under write_mutex: the part already in the file */
  uint64_t oldest_ns;          /* owner only: the first range not yet written, 0 none */
  atomic_int owned;            /* a live thread appends here; 0: free for the next thread */
  uint32_t tid;
  uint32_t depth;  /* pushes open, including those deeper than STACK_DEPTH */
  uint64_t ranges; /* recorded through this buffer (owner only: no shared counter per range) */
  struct open_push stack[STACK_DEPTH];
  struct name_cache_slot {
    uint64_t hash;
    uint32_t id;
  } cache[64]; /* this thread's last names: no lock on a name seen before */
  struct thread_buffer *next;
  _Alignas(8) unsigned char data[THREAD_BUFFER_BYTES];
};

struct open_range {
  _Atomic uint64_t range_id; /* 0: free */
  uint64_t start_ns;
  uint32_t name_id, domain_id;
};

static atomic_int state = NVTX_UNSET;
static pthread_mutex_t start_mutex = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner_pid;
static int out_fd = -1;
/* Guards the name table and every write to the file, so records land whole
 * and a NAME record always precedes the ranges that use its id. */
static pthread_mutex_t file_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
  uint64_t hash;
  uint32_t id;
} names[NAME_SLOTS];
static atomic_uint names_used;
static _Atomic(struct thread_buffer *) buffers; /* every buffer ever made, newest first */
static pthread_key_t thread_key;
static struct open_range open_ranges[OPEN_RANGE_SLOTS];
static _Atomic uint64_t next_range_id;
static _Atomic uint64_t ranges_dropped;
static __thread struct thread_buffer *my_buffer;

static uint64_t clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* CUPTI's clock on Linux, and the recorder's */
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One "gpuwhy-tracer: " line on stderr, written directly (no stdio locks). */
static void stderr_line(const char *what) {
  char line[GW_WIRE_NOTE_MAX_BYTES];
  int n = snprintf(line, sizeof line, "gpuwhy-tracer: NVTX ranges are not recorded: %s\n", what);
  if (n > 0) {
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)ignored;
  }
}

/* Whole bytes to the file; a failure turns the ranges off for good. */
static void write_locked(const void *bytes, size_t len) {
  const unsigned char *p = bytes;
  while (len && atomic_load_explicit(&state, memory_order_relaxed) == NVTX_ON) {
    ssize_t n = write(out_fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      atomic_store(&state, NVTX_OFF); /* disk full or gone: drop the ranges, never the job */
      return;
    }
    p += n;
    len -= (size_t)n;
  }
}

/* ---- names ------------------------------------------------------------------ */

/* The id of a name, writing its NAME record first when it is new; 0 for no
 * name or a full table. */
static uint32_t name_id_of(const char *text, size_t len) {
  if (!text || len == 0)
    return 0;
  if (len > GW_WIRE_NAME_MAX_BYTES)
    len = GW_WIRE_NAME_MAX_BYTES;
  uint64_t h = gwt_name_hash(text, len);
  struct thread_buffer *b = my_buffer;
  struct name_cache_slot *c = b ? &b->cache[h % 64] : NULL;
  if (c && c->hash == h)
    return c->id;
  uint32_t id = 0;
  pthread_mutex_lock(&file_mutex);
  for (uint32_t probe = 0; probe < NAME_SLOTS; probe++) {
    uint32_t slot = (uint32_t)((h + probe) % NAME_SLOTS);
    if (names[slot].hash == h) {
      id = names[slot].id;
      break;
    }
    if (names[slot].hash == 0) {
      uint32_t used = atomic_load(&names_used);
      if (used >= NAME_SLOTS / 4 * 3)
        break;
      _Alignas(8) unsigned char rec[sizeof(struct gw_wire_name) + GW_WIRE_NAME_MAX_BYTES];
      size_t n = gw_wire_encode_name(rec, sizeof rec, GW_WIRE_NVTX_NAME_ID_BASE + used + 1, text, len);
      if (!n)
        break;
      write_locked(rec, n);
      if (atomic_load(&state) != NVTX_ON)
        break;
      names[slot].hash = h;
      names[slot].id = id = GW_WIRE_NVTX_NAME_ID_BASE + used + 1;
      atomic_store(&names_used, used + 1);
      break;
    }
  }
  pthread_mutex_unlock(&file_mutex);
  if (c && id) {
    c->hash = h;
    c->id = id;
  }
  return id;
}

static uint32_t ascii_name_id(const char *s) {
  return s ? name_id_of(s, strnlen(s, GW_WIRE_NAME_MAX_BYTES)) : 0;
}

/* wchar_t is UTF-32 on Linux: encoded as UTF-8, invalid code points as '?'. */
static uint32_t wide_name_id(const wchar_t *w) {
  if (!w)
    return 0;
  char text[NAME_TEXT_BYTES];
  size_t len = 0;
  for (; *w && len + 4 <= sizeof text; w++) {
    uint32_t cp = (uint32_t)*w;
    if (cp < 0x80) {
      text[len++] = (char)cp;
    } else if (cp < 0x800) {
      text[len++] = (char)(0xC0 | (cp >> 6));
      text[len++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000 && (cp < 0xD800 || cp > 0xDFFF)) {
      text[len++] = (char)(0xE0 | (cp >> 12));
      text[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
      text[len++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp >= 0x10000 && cp <= 0x10FFFF) {
      text[len++] = (char)(0xF0 | (cp >> 18));
      text[len++] = (char)(0x80 | ((cp >> 12) & 0x3F));
      text[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
      text[len++] = (char)(0x80 | (cp & 0x3F));
    } else {
      text[len++] = '?';
    }
  }
  return name_id_of(text, len);
}

/* Registered strings and domains are handed out as their name ids; one that
 * is not ours (or 0) reads as no name, so the file never refers to an id it
 * did not define. */
static uint32_t handle_name_id(const void *handle) {
  uintptr_t id = (uintptr_t)handle;
  return id > GW_WIRE_NVTX_NAME_ID_BASE && id <= GW_WIRE_NVTX_NAME_ID_BASE + atomic_load(&names_used) ? (uint32_t)id
                                                                                                      : 0;
}

static uint32_t attr_name_id(const nvtxEventAttributes_t *a) {
  if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message)
    return 0;
  switch (a->messageType) {
  case NVTX_MESSAGE_TYPE_ASCII:
    return ascii_name_id(a->message.ascii);
  case NVTX_MESSAGE_TYPE_UNICODE:
    return wide_name_id(a->message.unicode);
  case NVTX_MESSAGE_TYPE_REGISTERED:
    return handle_name_id(a->message.registered);
  default:
    return 0;
  }
}

/* ---- per-thread buffers ------------------------------------------------------ */

/* The part of b not yet in the file goes there now. The owner resets the
 * buffer afterwards; the exit path only moves the written mark. */
static void write_buffer(struct thread_buffer *b, int owner) {
  pthread_mutex_lock(&b->write_mutex);
  pthread_mutex_lock(&file_mutex);
  size_t used = atomic_load_explicit(&b->used_bytes, memory_order_acquire);
  if (used > b->written_bytes)
    write_locked(b->data + b->written_bytes, used - b->written_bytes);
  pthread_mutex_unlock(&file_mutex);
  if (owner) {
    atomic_store_explicit(&b->used_bytes, 0, memory_order_release);
    b->written_bytes = 0;
    b->oldest_ns = 0;
  } else {
    b->written_bytes = used;
  }
  pthread_mutex_unlock(&b->write_mutex);
}

static void thread_ends(void *arg) {
  struct thread_buffer *b = arg;
  if (atomic_load(&state) == NVTX_ON && getpid() == owner_pid)
    write_buffer(b, 1);
  b->depth = 0;
  memset(b->cache, 0, sizeof b->cache);
  /* An NVTX call from a later destructor of this thread finds no buffer and
   * takes another, never this one, which the next new thread may own. */
  my_buffer = NULL;
  atomic_store(&b->owned, 0); /* the next new thread takes it */
}

/* This thread's buffer: one left by an ended thread, else a new one. NULL
 * when memory is short (the thread's ranges are then counted as dropped). */
static struct thread_buffer *thread_buffer(void) {
  struct thread_buffer *b = my_buffer;
  if (b)
    return b;
  for (b = atomic_load(&buffers); b; b = b->next) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&b->owned, &expect, 1))
      break;
  }
  if (!b) {
    b = calloc(1, sizeof *b);
    if (!b)
      return NULL;
    pthread_mutex_init(&b->write_mutex, NULL);
    atomic_store(&b->owned, 1);
    b->next = atomic_load(&buffers);
    while (!atomic_compare_exchange_weak(&buffers, &b->next, b))
      ;
  }
  b->tid = (uint32_t)syscall(SYS_gettid); /* once per thread */
  my_buffer = b;
  pthread_setspecific(thread_key, b);
  return b;
}

static void put_range(struct thread_buffer *b, uint64_t start_ns, uint64_t end_ns, uint32_t name_id, uint32_t domain_id,
                      uint32_t range_id, uint16_t flags) {
  struct gw_wire_marker m;
  gw_wire_marker_init(&m, flags);
  m.start_ns = start_ns;
  m.end_ns = end_ns < start_ns ? start_ns : end_ns;
  m.name_id = name_id;
  m.domain_name_id = domain_id;
  m.tid = b->tid;
  m.marker_id = range_id;
  size_t used = atomic_load_explicit(&b->used_bytes, memory_order_relaxed);
  if (used + sizeof m > sizeof b->data) {
    write_buffer(b, 1);
    used = 0;
  }
  memcpy(b->data + used, &m, sizeof m);
  atomic_store_explicit(&b->used_bytes, used + sizeof m, memory_order_release);
  b->ranges++;
  if (!b->oldest_ns)
    b->oldest_ns = end_ns;
  else if (end_ns - b->oldest_ns > FLUSH_AGE_NS)
    write_buffer(b, 1);
}

static int on(void) {
  return atomic_load_explicit(&state, memory_order_relaxed) == NVTX_ON;
}

static void count_dropped(void) {
  atomic_fetch_add_explicit(&ranges_dropped, 1, memory_order_relaxed);
}

/* ---- the NVTX functions -------------------------------------------------------- */

static int push(uint32_t domain_id, uint32_t name_id) {
  struct thread_buffer *b = thread_buffer();
  if (!b) {
    count_dropped();
    return -1;
  }
  uint32_t level = b->depth++;
  if (level < STACK_DEPTH)
    b->stack[level] = (struct open_push){clock_ns(), name_id, domain_id};
  return (int)level;
}

/* Ends the innermost open push of the domain (normally the top). */
static int pop(uint32_t domain_id) {
  uint64_t end_ns = clock_ns();
  struct thread_buffer *b = my_buffer;
  if (!b || b->depth == 0)
    return -1;
  uint32_t level = b->depth - 1;
  if (level >= STACK_DEPTH) {
    b->depth--;
    count_dropped();
    return (int)level;
  }
  uint32_t i = level;
  while (i > 0 && b->stack[i].domain_id != domain_id)
    i--;
  if (b->stack[i].domain_id != domain_id)
    return -1; /* no range of this domain is open here */
  struct open_push p = b->stack[i];
  memmove(&b->stack[i], &b->stack[i + 1], (level - i) * sizeof b->stack[0]);
  b->depth--;
  put_range(b, p.start_ns, end_ns, p.name_id, p.domain_id, 0, 0);
  return (int)i;
}

static nvtxRangeId_t range_start(uint32_t domain_id, uint32_t name_id) {
  uint64_t start_ns = clock_ns();
  uint64_t id = atomic_fetch_add_explicit(&next_range_id, 1, memory_order_relaxed) + 1;
  struct open_range *r = &open_ranges[id % OPEN_RANGE_SLOTS];
  uint64_t free_slot = 0;
  if (!atomic_compare_exchange_strong(&r->range_id, &free_slot, id)) {
    count_dropped(); /* more ranges open than slots */
    return id;
  }
  r->start_ns = start_ns;
  r->name_id = name_id;
  r->domain_id = domain_id;
  return id;
}

static void range_end(nvtxRangeId_t id) {
  uint64_t end_ns = clock_ns();
  struct open_range *r = &open_ranges[id % OPEN_RANGE_SLOTS];
  if (id == 0 || atomic_load(&r->range_id) != id)
    return;
  struct open_range copy = {0, r->start_ns, r->name_id, r->domain_id};
  uint64_t expect = id;
  if (!atomic_compare_exchange_strong(&r->range_id, &expect, 0))
    return;
  struct thread_buffer *b = thread_buffer();
  if (b)
    put_range(b, copy.start_ns, end_ns, copy.name_id, copy.domain_id, (uint32_t)id, 0);
  else
    count_dropped();
}

static void mark(uint32_t domain_id, uint32_t name_id) {
  struct thread_buffer *b = thread_buffer();
  uint64_t t = clock_ns();
  if (b)
    put_range(b, t, t, name_id, domain_id, 0, GW_WIRE_MARKER_INSTANT);
  else
    count_dropped();
}

static int NVTX_API gw_RangePushA(const char *message) {
  return on() ? push(0, ascii_name_id(message)) : -1;
}
static int NVTX_API gw_RangePushW(const wchar_t *message) {
  return on() ? push(0, wide_name_id(message)) : -1;
}
static int NVTX_API gw_RangePushEx(const nvtxEventAttributes_t *a) {
  return on() ? push(0, attr_name_id(a)) : -1;
}
static int NVTX_API gw_RangePop(void) {
  return on() ? pop(0) : -1;
}
static nvtxRangeId_t NVTX_API gw_RangeStartA(const char *message) {
  return on() ? range_start(0, ascii_name_id(message)) : 0;
}
static nvtxRangeId_t NVTX_API gw_RangeStartW(const wchar_t *message) {
  return on() ? range_start(0, wide_name_id(message)) : 0;
}
static nvtxRangeId_t NVTX_API gw_RangeStartEx(const nvtxEventAttributes_t *a) {
  return on() ? range_start(0, attr_name_id(a)) : 0;
}
static void NVTX_API gw_RangeEnd(nvtxRangeId_t id) {
  if (on())
    range_end(id);
}
static void NVTX_API gw_MarkA(const char *message) {
  if (on())
    mark(0, ascii_name_id(message));
}
static void NVTX_API gw_MarkW(const wchar_t *message) {
  if (on())
    mark(0, wide_name_id(message));
}
static void NVTX_API gw_MarkEx(const nvtxEventAttributes_t *a) {
  if (on())
    mark(0, attr_name_id(a));
}
static int NVTX_API gw_DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  return on() ? push(handle_name_id(d), attr_name_id(a)) : -1;
}
static int NVTX_API gw_DomainRangePop(nvtxDomainHandle_t d) {
  return on() ? pop(handle_name_id(d)) : -1;
}
static nvtxRangeId_t NVTX_API gw_DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  return on() ? range_start(handle_name_id(d), attr_name_id(a)) : 0;
}
static void NVTX_API gw_DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  (void)d;
  if (on())
    range_end(id);
}
static void NVTX_API gw_DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
  if (on())
    mark(handle_name_id(d), attr_name_id(a));
}
/* A domain or registered string is its name's id, cast to the handle type. */
static nvtxDomainHandle_t NVTX_API gw_DomainCreateA(const char *name) {
  return on() ? (nvtxDomainHandle_t)(uintptr_t)ascii_name_id(name) : NULL;
}
static nvtxDomainHandle_t NVTX_API gw_DomainCreateW(const wchar_t *name) {
  return on() ? (nvtxDomainHandle_t)(uintptr_t)wide_name_id(name) : NULL;
}
static void NVTX_API gw_DomainDestroy(nvtxDomainHandle_t d) {
  (void)d; /* ids stay valid: ranges already buffered refer to them */
}
static nvtxStringHandle_t NVTX_API gw_DomainRegisterStringA(nvtxDomainHandle_t d, const char *s) {
  (void)d;
  return on() ? (nvtxStringHandle_t)(uintptr_t)ascii_name_id(s) : NULL;
}
static nvtxStringHandle_t NVTX_API gw_DomainRegisterStringW(nvtxDomainHandle_t d, const wchar_t *s) {
  (void)d;
  return on() ? (nvtxStringHandle_t)(uintptr_t)wide_name_id(s) : NULL;
}

/* ---- start, exit, fork ------------------------------------------------------------ */

static void at_exit(void) {
  if (getpid() != owner_pid || !on())
    return;
  uint64_t written = 0;
  for (struct thread_buffer *b = atomic_load(&buffers); b; b = b->next) {
    write_buffer(b, 0);
    written += b->ranges;
  }
  uint64_t dropped = atomic_load(&ranges_dropped);
  if (!dropped)
    return;
  char text[256];
  int len =
      snprintf(text, sizeof text,
               "NVTX: %llu of %llu ranges not recorded (nested deeper than %d, more than %u start/end ranges "
               "open, or no memory for a thread's buffer)",
               (unsigned long long)dropped, (unsigned long long)(dropped + written), STACK_DEPTH, OPEN_RANGE_SLOTS);
  _Alignas(8) unsigned char rec[sizeof(struct gw_wire_note) + sizeof text];
  size_t n = len > 0 ? gw_wire_encode_note(rec, sizeof rec, clock_ns(), GW_WIRE_NOTE_WARN, text, (size_t)len) : 0;
  pthread_mutex_lock(&file_mutex);
  if (n)
    write_locked(rec, n);
  pthread_mutex_unlock(&file_mutex);
}

static void in_forked_child(void) {
  /* The file and the buffers are the parent's: the child records nothing. */
  atomic_store(&state, NVTX_OFF);
}

/* Opens the process's file, once. 1: ranges are recorded. Nothing is
 * registered (atexit, fork, thread key) before the file exists, so a failed
 * start leaves NVTX free to unload the library. */
static int start_once(void) {
  int s = atomic_load(&state);
  if (s != NVTX_UNSET)
    return s == NVTX_ON;
  pthread_mutex_lock(&start_mutex);
  s = atomic_load(&state);
  if (s == NVTX_UNSET) {
    s = NVTX_OFF;
    const char *dir = getenv("GPUWHY_TRACE_DIR");
    char path[4096];
    pid_t pid = getpid();
    if (dir && *dir && snprintf(path, sizeof path, "%s/trace-%d-nvtx.gwt", dir, (int)pid) < (int)sizeof path) {
      int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
      if (fd < 0) {
        char why[GW_WIRE_NOTE_MAX_BYTES];
        int e = errno;
        snprintf(why, sizeof why, "cannot create %.900s: %s", path, strerror(e));
        stderr_line(why);
      } else if (pthread_key_create(&thread_key, thread_ends) != 0) {
        close(fd);
        unlink(path);
      } else {
        struct gw_wire_file_header h;
        gw_wire_file_header_init(&h, (uint32_t)pid, clock_ns(), 0, GW_WIRE_MODE_NVTX, 0, 0);
        out_fd = fd;
        owner_pid = pid;
        atomic_store(&state, NVTX_ON);
        pthread_mutex_lock(&file_mutex);
        write_locked(&h, sizeof h);
        pthread_mutex_unlock(&file_mutex);
        s = atomic_load(&state);
        if (s == NVTX_ON) {
          atexit(at_exit);
          pthread_atfork(NULL, NULL, in_forked_child);
        }
      }
    }
    if (s != NVTX_ON)
      atomic_store(&state, NVTX_OFF);
  }
  pthread_mutex_unlock(&start_mutex);
  return s == NVTX_ON;
}

struct slot_fill {
  uint32_t cbid;
  NvtxFunctionPointer fn;
};

/* Puts fns into one module's table; slots NVTX does not have are skipped. */
static void fill_module(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, const struct slot_fill *fns,
                        size_t n) {
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
    return;
  for (size_t i = 0; i < n; i++)
    if (fns[i].cbid < size && table[fns[i].cbid])
      *table[fns[i].cbid] = fns[i].fn;
}

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

/* Called once by every NVTX copy in the process (each library built with
 * NVTX v3 has its own), so everything here is idempotent. Returning 0 makes
 * that copy's calls no-ops (and unloads us, if nothing else holds us). */
GWT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  if (!get_export_table || !start_once())
    return 0;
  const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
  if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
    return 1; /* an NVTX we cannot talk to: its calls stay no-ops */
  static const struct slot_fill core[] = {
      {NVTX_CBID_CORE_MarkEx, FN(gw_MarkEx)},
      {NVTX_CBID_CORE_MarkA, FN(gw_MarkA)},
      {NVTX_CBID_CORE_MarkW, FN(gw_MarkW)},
      {NVTX_CBID_CORE_RangeStartEx, FN(gw_RangeStartEx)},
      {NVTX_CBID_CORE_RangeStartA, FN(gw_RangeStartA)},
      {NVTX_CBID_CORE_RangeStartW, FN(gw_RangeStartW)},
      {NVTX_CBID_CORE_RangeEnd, FN(gw_RangeEnd)},
      {NVTX_CBID_CORE_RangePushEx, FN(gw_RangePushEx)},
      {NVTX_CBID_CORE_RangePushA, FN(gw_RangePushA)},
      {NVTX_CBID_CORE_RangePushW, FN(gw_RangePushW)},
      {NVTX_CBID_CORE_RangePop, FN(gw_RangePop)},
  };
  static const struct slot_fill core2[] = {
      {NVTX_CBID_CORE2_DomainMarkEx, FN(gw_DomainMarkEx)},
      {NVTX_CBID_CORE2_DomainRangeStartEx, FN(gw_DomainRangeStartEx)},
      {NVTX_CBID_CORE2_DomainRangeEnd, FN(gw_DomainRangeEnd)},
      {NVTX_CBID_CORE2_DomainRangePushEx, FN(gw_DomainRangePushEx)},
      {NVTX_CBID_CORE2_DomainRangePop, FN(gw_DomainRangePop)},
      {NVTX_CBID_CORE2_DomainRegisterStringA, FN(gw_DomainRegisterStringA)},
      {NVTX_CBID_CORE2_DomainRegisterStringW, FN(gw_DomainRegisterStringW)},
      {NVTX_CBID_CORE2_DomainCreateA, FN(gw_DomainCreateA)},
      {NVTX_CBID_CORE2_DomainCreateW, FN(gw_DomainCreateW)},
      {NVTX_CBID_CORE2_DomainDestroy, FN(gw_DomainDestroy)},
  };
  fill_module(cb, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0]);
  fill_module(cb, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]);
  return 1;
}
