/* libgpuwhy-tracer.so: a CUPTI client that CUDA loads into the user's
 * process through CUDA_INJECTION64_PATH and starts by calling
 * InitializeInjection(). See tracer/README.md for what it records and why.
 *
 * Rules this file keeps: libcupti is opened with dlopen (never linked, so a
 * missing library cannot stop CUDA from loading us); every failure turns
 * tracing off, leaves one NOTE record and one "gpuwhy-tracer: " line on
 * stderr, and the job runs on; application threads never block on us (the
 * buffer pool is lock-free, the launch counter is one relaxed atomic add);
 * memory is bounded (a fixed buffer pool, fixed tables, no allocation per
 * record). cupti.h is included for types and enums only. */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_ring.h"
#include "coexist.h"
#include "convert.h"
#include "pm_sampling.h"
#include "tracer_out.h"
#include "wire.h"
#include "wire_encode.h"

#define GWT_EXPORT __attribute__((visibility("default")))

/* ---- CUPTI entry points, resolved with dlsym ---------------------------- */

/* The pointer types come from the prototypes in cupti.h, so a mismatch with
 * the headers we build against cannot slip in. */
#define CUPTI_REQUIRED(X)                                                                                              \
  X(cuptiGetVersion)                                                                                                   \
  X(cuptiGetResultString)                                                                                              \
  X(cuptiSubscribe)                                                                                                    \
  X(cuptiEnableCallback)                                                                                               \
  X(cuptiActivityRegisterCallbacks)                                                                                    \
  X(cuptiActivityEnable)                                                                                               \
  X(cuptiActivityDisable)                                                                                              \
  X(cuptiActivityGetNextRecord)                                                                                        \
  X(cuptiActivityGetNumDroppedRecords)                                                                                 \
  X(cuptiActivityFlushAll)                                                                                             \
  X(cuptiGetTimestamp)                                                                                                 \
  X(cuptiUnsubscribe)
#define CUPTI_OPTIONAL(X)                                                                                              \
  X(cuptiActivityEnableRuntimeApi)                                                                                     \
  X(cuptiActivityEnableDriverApi)                                                                                      \
  X(cuptiActivityEnableAllSyncRecords)                                                                                 \
  X(cuptiEnableDomain)                                                                                                 \
  X(cuptiFinalize)                                                                                                     \
  X(cuptiActivitySetAttribute)                                                                                         \
  X(cuptiActivityEnableAndDump)

#define DECLARE_FN(name) static __typeof__(&name) p_##name;
CUPTI_REQUIRED(DECLARE_FN)
CUPTI_OPTIONAL(DECLARE_FN)

/* ---- configuration (environment) ------------------------------------- */

enum sampled_kinds {
  SAMPLED_ALL,      /* windows trace kernels and everything else */
  SAMPLED_NOKERNEL, /* windows trace everything except kernels */
  SAMPLED_NONE,     /* no windows at all: launch counting only */
};

/* GPUWHY_TRACE_API: which API calls are traced. Launch records give the
 * host side of launch overhead; each costs a record per kernel on a
 * launch-bound job, so the choice is left open for measuring it. */
enum api_set {
  API_ALL,      /* the calls of RUNTIME_KEEP and DRIVER_KEEP */
  API_NOLAUNCH, /* the same without the launch calls */
  API_RUNTIME,  /* RUNTIME_KEEP only */
  API_NONE,
};

/* GPUWHY_TRACE_WINDOW_END: what a sampled window's end leaves of CUPTI in
 * the process, and on which thread the work runs. */
enum window_end {
  END_DETACH_OWN = 1, /* cuptiFinalize at the exit of the tracer's own cuDriverGetVersion, on its thread */
  END_DETACH_PROGRAM, /* cuptiFinalize at the exit of the program's next CUDA call, on that thread */
  END_QUIET,          /* attached: every kind, callback domain and buffer of ours switched off or returned */
  END_KEEP,           /* attached: the window's kinds off, the subscriber released */
};

static struct {
  uint32_t mode;
  uint32_t window_ms, period_ms;
  uint32_t first_delay_ms; /* sampled: quiet time before the first window */
  enum sampled_kinds sampled_kinds;
  int count_launches;
  int nvtx, memory, graph;
  enum api_set api;               /* which runtime/driver API calls become records */
  CUpti_ActivityKind kernel_kind; /* CONCURRENT_KERNEL, or KERNEL when asked (serial) */
  int detach;                     /* sampled: CUPTI detached (cuptiFinalize) between windows, not kept attached */
  enum window_end window_end;     /* sampled: how a window ends (GPUWHY_TRACE_WINDOW_END) */
  uint32_t device_buffer_mb;      /* CUPTI's device-side timestamp buffer; 0: CUPTI's default (3.2 MB) */
  int api_by_callback;            /* full mode: API calls timed in CUPTI's callbacks, not API activity records */
} cfg;

/* ---- state ---------------------------------------------------------------- */

static atomic_int tracing_on;     /* records are converted and written */
static atomic_int stop_requested; /* the background thread should finish */
static atomic_int thread_done;
static atomic_int sigterm_flush_requested;
static atomic_int sigterm_flush_done;
static atomic_int finished; /* the final flush ran */
static pid_t init_pid;
static CUpti_SubscriberHandle subscriber;
/* Sampled mode takes CUPTI out of the process between windows. 1 while CUPTI
 * is set up (subscribed, buffer callbacks registered); any CUPTI call made
 * while it is 0 would set CUPTI up again half-way, so none is made. Written
 * by the background thread (and at init), read by the exit paths. */
static atomic_int cupti_attached;
/* The detach handshake: the background thread arms it, the next CUDA API
 * exit on any thread runs cuptiFinalize there (CUPTI's advice: at an API
 * exit nothing of CUPTI's is in flight on that thread). */
enum { DETACH_IDLE, DETACH_ARMED, DETACH_RUNNING, DETACH_DONE, DETACH_CANCELLED, DETACH_OWN_ARMED };
static atomic_int detach_state;
/* The detach on the tracer's own thread (END_DETACH_OWN): the tracer calls
 * cuDriverGetVersion itself, with CUPTI's callback on for that one function,
 * and its exit callback runs cuptiFinalize there. CUPTI asks for
 * cuptiFinalize at an API exit (cupti_activity.h); Kineto triggers its
 * teardown the same way from a thread of its own (pytorch/kineto#1554).
 * driver_get_version comes from the libcuda.so.1 already loaded (or
 * GPUWHY_TRACE_CUDA_DRIVER_LIB, for tests); own_trigger marks the tracer's
 * thread while it makes that call, so a program thread that happens to call
 * cuDriverGetVersion then returns at once. */
static CUresult (*driver_get_version)(int *);
static _Thread_local int own_trigger;
static atomic_uint_fast64_t finalize_start_ns; /* CLOCK_REALTIME when the last cuptiFinalize began */
/* CUDA graphs in this process: told by the Python hook when a capture begins
 * (gpuwhy_tracer_cuda_graphs_in_use) or seen in a window's kernel records
 * (graph ids). CUPTI taken out (cuptiFinalize) and put back while graphs
 * exist crashed graph replays on the H200 (Xid 31, "unspecified launch
 * failure", worked_case stage 3 under record --trace); PyTorch's profiler
 * keeps CUPTI in for the same reason. So: never detach once graphs are
 * known, and never re-attach after a detach once they are. */
static atomic_int graphs_in_use;
static atomic_int detached_once;
static atomic_uint_fast64_t finalize_ns; /* how long the last cuptiFinalize took */
/* Every change of what the tracer holds of CUPTI (subscribing, switching
 * kinds, flushing at a window's end, stepping aside) happens under this lock,
 * so that another client's arrival (coexist.c, on the client's thread) never
 * meets a half-opened window. Held for an edge's work only (microseconds),
 * never while waiting for the program. */
static pthread_mutex_t cupti_mutex = PTHREAD_MUTEX_INITIALIZER;
static int subscribed;        /* under cupti_mutex: our subscriber is held */
static int device_buffer_set; /* under cupti_mutex: the device buffer size was asked for once */
/* Another CUPTI client has CUPTI: the tracer calls nothing of CUPTI's
 * (no windows, no flush) until it comes back. */
static atomic_int aside;
static int aside_via_hook;                      /* under cupti_mutex: the arrival came through coexist.c */
static atomic_int other_left;                   /* the other client unsubscribed or finalized */
static atomic_int cupti_reset_by_other;         /* the other client ran cuptiFinalize: nothing of ours is left */
static CUpti_SubscriberHandle other_subscriber; /* under cupti_mutex */
static atomic_int hook_saw_client;              /* a client subscribed through coexist.c before we started */
static uint64_t aside_since_ns;                 /* under cupti_mutex */
static void *cupti_lib;                         /* libcupti, opened at start */
static pthread_t flusher_thread;
static int flusher_started;
static struct sigaction old_sigterm;
static uint32_t cupti_version;
static uint64_t trace_start_ns;

static atomic_uint_fast64_t runtime_launches, driver_launches;
static atomic_int api_callbacks_on; /* the callback path is switched on: API exits become ring records */
static atomic_uint_fast64_t buffers_refused;
static uint64_t cupti_dropped_total; /* under the output lock */
static uint64_t dropped_reported_refused, dropped_reported_cupti;

/* Activity buffers: a fixed pool handed to CUPTI and taken back. */
#define POOL_BUFFERS 8u
#define POOL_BUFFER_BYTES (4u << 20)
static unsigned char *pool[POOL_BUFFERS];
static atomic_uint pool_free_mask; /* bit i: pool[i] is free */

#define DEFAULT_WINDOW_MS 100u
#define DEFAULT_PERIOD_MS 5000u

/* The launch calls: kept as API records, and counted between windows
 * (sampled mode). */
/* clang-format off */
#define RUNTIME_LAUNCH_CBIDS                                                                                           \
  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,                                                                     \
  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,                                                                \
  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,                                                                 \
  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,                                                            \
  CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,                                                          \
  CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,                                                                     \
  CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000
#define DRIVER_LAUNCH_CBIDS                                                                                            \
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,                                                                              \
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,                                                                         \
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,                                                                            \
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,                                                                       \
  CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,                                                                               \
  CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz
/* clang-format on */

/* API records worth keeping: launches, copies, memsets, synchronisation,
 * allocation and graph launches. Everything else is noise for gpuwhy. */
static const CUpti_CallbackId RUNTIME_KEEP[] = {
    RUNTIME_LAUNCH_CBIDS,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
};
static const CUpti_CallbackId DRIVER_KEEP[] = {
    DRIVER_LAUNCH_CBIDS,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
};
/* Launch calls counted between windows (sampled mode). */
static const CUpti_CallbackId RUNTIME_LAUNCH[] = {RUNTIME_LAUNCH_CBIDS};
static const CUpti_CallbackId DRIVER_LAUNCH[] = {DRIVER_LAUNCH_CBIDS};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static int api_per_cbid; /* 1: CUPTI filters per cbid; 0: whole kinds, filtered here */

/* ---- small helpers ---------------------------------------------------------- */

static uint64_t now_ns(void) {
  uint64_t t = 0;
  if (p_cuptiGetTimestamp && p_cuptiGetTimestamp(&t) == CUPTI_SUCCESS && t)
    return t;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME (CUPTI's clock on Linux) without calling CUPTI: for the
 * timers around cuptiFinalize, after which a CUPTI call would set CUPTI up
 * again half-way. */
static uint64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *cupti_error(CUptiResult rc) {
  const char *s = NULL;
  if (p_cuptiGetResultString && p_cuptiGetResultString(rc, &s) == CUPTI_SUCCESS && s)
    return s;
  return "unknown CUPTI error";
}

/* One line on stderr and one NOTE record; write(2) directly, no stdio locks. */
static void say(uint32_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(uint32_t level, const char *fmt, ...) {
  char text[GW_WIRE_NOTE_MAX_BYTES];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  gwt_out_note(now_ns(), level, "%s", text);
  if (level >= GW_WIRE_NOTE_WARN) {
    char line[GW_WIRE_NOTE_MAX_BYTES + 32];
    int n = snprintf(line, sizeof line, "gpuwhy-tracer: %s\n", text);
    if (n > 0) {
      ssize_t ignored = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
      (void)ignored;
    }
  }
}

/* Warnings found before the output file exists; written once it does. */
#define PENDING_NOTES 4
static char pending_notes[PENDING_NOTES][256];
static int pending_count;

static void pending_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pending_note(const char *fmt, ...) {
  if (pending_count >= PENDING_NOTES)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pending_notes[pending_count++], sizeof pending_notes[0], fmt, ap);
  va_end(ap);
}

static uint32_t env_u32(const char *name, uint32_t fallback, uint32_t lo, uint32_t hi) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || !end || *end || v < lo || v > hi) {
    pending_note("%s=%s is not a number from %u to %u; using %u", name, s, lo, hi, fallback);
    return fallback;
  }
  return (uint32_t)v;
}

struct env_word {
  const char *word;
  int value;
};

/* The value of the word the variable names; unset or empty: fallback; any
 * other text: fallback, and a note listing the words. */
static int env_choice(const char *name, const struct env_word *words, size_t n, int fallback) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char known[160] = "";
  for (size_t i = 0; i < n; i++) {
    if (strcmp(s, words[i].word) == 0)
      return words[i].value;
    size_t used = strlen(known);
    snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", words[i].word);
  }
  const char *fallback_word = "";
  for (size_t i = 0; i < n && !*fallback_word; i++)
    if (words[i].value == fallback)
      fallback_word = words[i].word;
  pending_note("%s=%s is not one of %s; using %s", name, s, known, fallback_word);
  return fallback;
}

static int env_flag(const char *name, int fallback) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  return strcmp(s, "0") != 0;
}

/* ---- buffer pool and CUPTI buffer callbacks -------------------------------- */

/* Runs on any thread that needs a buffer, including application threads:
 * lock-free, never waits. An empty pool makes CUPTI drop (and count) records. */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = NULL;
  *size = 0;
  *max_records = 0;
  unsigned mask = atomic_load(&pool_free_mask);
  while (mask) {
    unsigned i = (unsigned)__builtin_ctz(mask);
    if (atomic_compare_exchange_weak(&pool_free_mask, &mask, mask & ~(1u << i))) {
      *buffer = pool[i];
      *size = POOL_BUFFER_BYTES;
      return;
    }
  }
  atomic_fetch_add_explicit(&buffers_refused, 1, memory_order_relaxed);
}

static void pool_release(const uint8_t *buffer) {
  for (unsigned i = 0; i < POOL_BUFFERS; i++)
    if (pool[i] == buffer) {
      atomic_fetch_or(&pool_free_mask, 1u << i);
      return;
    }
}

/* Writes a DROPPED record when the totals moved (call with the lock held). */
static void report_dropped_locked(void) {
  uint64_t refused = atomic_load(&buffers_refused);
  if (refused == dropped_reported_refused && cupti_dropped_total == dropped_reported_cupti)
    return;
  struct gw_wire_dropped w;
  gw_wire_dropped_init(&w, 0);
  w.t_ns = now_ns();
  w.cupti_dropped_records = cupti_dropped_total;
  w.buffers_refused = refused;
  gwt_out_put_locked(&w, sizeof w);
  dropped_reported_refused = refused;
  dropped_reported_cupti = cupti_dropped_total;
}

/* Runs on CUPTI's worker thread (or in a flushing thread). */
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
                                      size_t valid_size) {
  (void)size;
  if (atomic_load(&tracing_on) && valid_size > 0 && gwt_out_lock()) {
    CUpti_Activity *rec = NULL;
    while (p_cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS)
      gwt_convert_locked(rec);
    size_t dropped = 0;
    if (p_cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
      cupti_dropped_total += dropped;
    report_dropped_locked();
    gwt_out_flush_locked();
    gwt_out_unlock();
  }
  pool_release(buffer);
}

/* ---- launch counting --------------------------------------------------------- */

/* Runs cuptiFinalize here (an API exit) when the detach is still in the
 * armed state given, timed for the window's edge note. */
static void finalize_if_armed(int armed_state) {
  int armed = armed_state;
  if (!atomic_compare_exchange_strong(&detach_state, &armed, DETACH_RUNNING))
    return;
  uint64_t t0 = wall_ns();
  atomic_store(&finalize_start_ns, t0);
  p_cuptiFinalize();
  atomic_store(&finalize_ns, wall_ns() - t0);
  atomic_store(&detach_state, DETACH_DONE);
}

/* On every counted launch, in the application thread: one relaxed add. While
 * a detach is armed (whole API domains on, for a moment), the first API exit
 * takes CUPTI out of the process. */
static void CUPTIAPI on_api_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                     const void *cbdata) {
  (void)userdata, (void)cbid;
  const CUpti_CallbackData *info = cbdata;
  if (!info)
    return;
  int detach_now = atomic_load_explicit(&detach_state, memory_order_acquire);
  if (detach_now == DETACH_OWN_ARMED) {
    /* only the tracer's own call; a program thread returns here */
    if (own_trigger && info->callbackSite == CUPTI_API_EXIT)
      finalize_if_armed(DETACH_OWN_ARMED);
    return;
  }
  if (detach_now != DETACH_IDLE) {
    int armed = DETACH_ARMED;
    if (atomic_load(&graphs_in_use)) {
      atomic_compare_exchange_strong(&detach_state, &armed, DETACH_CANCELLED);
      return;
    }
    if (info->callbackSite == CUPTI_API_EXIT)
      finalize_if_armed(DETACH_ARMED);
    return;
  }
  if (atomic_load_explicit(&api_callbacks_on, memory_order_relaxed)) {
    /* Timestamps on CUPTI's clock (CLOCK_REALTIME on Linux, as
     * cupti_activity.h says); the start waits in the slot CUPTI keeps for the call. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    if (info->callbackSite == CUPTI_API_ENTER) {
      if (info->correlationData)
        *info->correlationData = t;
      return;
    }
    struct gw_wire_api w;
    gw_wire_api_init(&w, 0);
    w.start_ns = info->correlationData && *info->correlationData ? *info->correlationData : t;
    w.end_ns = gwt_sane_end(w.start_ns, t);
    w.cbid = cbid;
    w.domain = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? GW_WIRE_API_RUNTIME : GW_WIRE_API_DRIVER;
    w.tid = gwt_api_ring_tid();
    w.correlation = info->correlationId;
    int returned = 0; /* cudaError_t and CUresult are both int-sized enums */
    if (info->functionReturnValue)
      memcpy(&returned, info->functionReturnValue, sizeof returned);
    w.return_value = (uint32_t)returned;
    gwt_api_ring_put(&w);
    return;
  }
  if (info->callbackSite != CUPTI_API_ENTER)
    return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    atomic_fetch_add_explicit(&runtime_launches, 1, memory_order_relaxed);
  else if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    atomic_fetch_add_explicit(&driver_launches, 1, memory_order_relaxed);
}

/* ---- turning activity on and off ------------------------------------------- */

static uint32_t kinds_enabled; /* GW_WIRE_KINDS_* now on; background thread + init only */

static void enable_kind(CUpti_ActivityKind kind, uint32_t bit, int on, uint32_t *mask) {
  CUptiResult rc = on ? p_cuptiActivityEnable(kind) : p_cuptiActivityDisable(kind);
  if (rc == CUPTI_SUCCESS) {
    if (on)
      *mask |= bit;
  } else if (on) {
    say(GW_WIRE_NOTE_WARN, "activity kind %d could not be enabled: %s", (int)kind, cupti_error(rc));
  }
}

static int is_launch(const CUpti_CallbackId *launches, size_t n, CUpti_CallbackId cbid) {
  for (size_t i = 0; i < n; i++)
    if (launches[i] == cbid)
      return 1;
  return 0;
}

/* Whether API call cbid of a domain is traced under cfg.api. */
static int api_traced(int runtime_domain, CUpti_CallbackId cbid) {
  if (cfg.api == API_NONE || (cfg.api == API_RUNTIME && !runtime_domain))
    return 0;
  if (cfg.api == API_NOLAUNCH)
    return runtime_domain ? !is_launch(RUNTIME_LAUNCH, COUNT_OF(RUNTIME_LAUNCH), cbid)
                          : !is_launch(DRIVER_LAUNCH, COUNT_OF(DRIVER_LAUNCH), cbid);
  return 1;
}

/* The callback path: CUPTI calls on_api_callback at the enter and exit of
 * each kept function; 0 when CUPTI refused a switch. */
static int set_api_callbacks(int on) {
  int ok = 1;
  for (size_t i = 0; i < COUNT_OF(RUNTIME_KEEP); i++)
    if (api_traced(1, RUNTIME_KEEP[i]))
      ok &= p_cuptiEnableCallback((uint32_t)on, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, RUNTIME_KEEP[i]) ==
            CUPTI_SUCCESS;
  for (size_t i = 0; i < COUNT_OF(DRIVER_KEEP); i++)
    if (api_traced(0, DRIVER_KEEP[i]))
      ok &=
          p_cuptiEnableCallback((uint32_t)on, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, DRIVER_KEEP[i]) == CUPTI_SUCCESS;
  return ok;
}

static void set_api_tracing(int on, uint32_t *mask) {
  if (cfg.api == API_NONE)
    return;
  if (atomic_load(&api_callbacks_on) || (on && cfg.api_by_callback && cfg.mode == GW_WIRE_MODE_FULL)) {
    int ok = set_api_callbacks(on);
    atomic_store(&api_callbacks_on, on && ok);
    if (ok) {
      if (on)
        *mask |= GW_WIRE_KINDS_API;
      return;
    }
    if (on) {
      set_api_callbacks(0);
      cfg.api_by_callback = 0;
      say(GW_WIRE_NOTE_INFO, "API callbacks refused; tracing API calls with CUPTI's activity records instead");
    }
  }
  if (api_per_cbid) {
    int ok = 1;
    for (size_t i = 0; i < COUNT_OF(RUNTIME_KEEP); i++)
      if (api_traced(1, RUNTIME_KEEP[i]))
        ok &= p_cuptiActivityEnableRuntimeApi(RUNTIME_KEEP[i], (uint8_t)on) == CUPTI_SUCCESS;
    for (size_t i = 0; i < COUNT_OF(DRIVER_KEEP); i++)
      if (api_traced(0, DRIVER_KEEP[i]))
        ok &= p_cuptiActivityEnableDriverApi(DRIVER_KEEP[i], (uint8_t)on) == CUPTI_SUCCESS;
    if (ok) {
      if (on)
        *mask |= GW_WIRE_KINDS_API;
      return;
    }
    /* Fall back for good: whole kinds, filtered when converting. */
    api_per_cbid = 0;
    say(GW_WIRE_NOTE_INFO, "per-function API tracing refused; tracing all API calls and filtering them");
  }
  enable_kind(CUPTI_ACTIVITY_KIND_RUNTIME, GW_WIRE_KINDS_API, on, mask);
  if (cfg.api != API_RUNTIME)
    enable_kind(CUPTI_ACTIVITY_KIND_DRIVER, GW_WIRE_KINDS_API, on, mask);
}

/* Turns the configured activity kinds on or off; returns the mask now on. */
static uint32_t set_activity(int on, int with_kernels) {
  uint32_t mask = 0;
  if (with_kernels)
    enable_kind(cfg.kernel_kind, GW_WIRE_KINDS_KERNEL, on, &mask);
  enable_kind(CUPTI_ACTIVITY_KIND_MEMCPY, GW_WIRE_KINDS_MEMCPY, on, &mask);
  enable_kind(CUPTI_ACTIVITY_KIND_MEMSET, GW_WIRE_KINDS_MEMSET, on, &mask);
  enable_kind(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, GW_WIRE_KINDS_SYNC, on, &mask);
  enable_kind(CUPTI_ACTIVITY_KIND_OVERHEAD, GW_WIRE_KINDS_OVERHEAD, on, &mask);
  if (cfg.memory)
    enable_kind(CUPTI_ACTIVITY_KIND_MEMORY2, GW_WIRE_KINDS_MEMORY, on, &mask);
  if (cfg.graph)
    enable_kind(CUPTI_ACTIVITY_KIND_GRAPH_TRACE, GW_WIRE_KINDS_GRAPH, on, &mask);
  if (cfg.nvtx)
    enable_kind(CUPTI_ACTIVITY_KIND_MARKER, GW_WIRE_KINDS_MARKER, on, &mask);
  set_api_tracing(on, &mask);
  return mask;
}

/* ---- the background thread: windows, counts, periodic flush --------------- */

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void put_window(uint64_t start_ns, uint64_t end_ns, uint32_t kinds) {
  struct gw_wire_window w;
  gw_wire_window_init(&w, 0);
  w.start_ns = start_ns;
  w.end_ns = gwt_sane_end(start_ns, end_ns);
  w.mode = cfg.mode;
  w.kinds = kinds;
  gwt_out_put(&w, sizeof w);
}

static uint64_t count_period_start_ns;

static void put_launch_count(uint64_t end_ns) {
  if (!cfg.count_launches)
    return;
  struct gw_wire_launch_count w;
  gw_wire_launch_count_init(&w, 0);
  w.start_ns = count_period_start_ns;
  w.end_ns = gwt_sane_end(count_period_start_ns, end_ns);
  w.runtime_launches = atomic_exchange(&runtime_launches, 0);
  w.driver_launches = atomic_exchange(&driver_launches, 0);
  count_period_start_ns = w.end_ns;
  gwt_out_put(&w, sizeof w);
}

static atomic_uint_fast64_t window_start_ns; /* 0: no window open */

/* The callback path's records reach the file (tracer's thread, or the exit);
 * ring overflows count as dropped records. */
static void drain_api_rings(void) {
  if (!cfg.api_by_callback || cfg.mode != GW_WIRE_MODE_FULL || !gwt_out_lock())
    return;
  cupti_dropped_total += gwt_api_ring_drain_locked();
  report_dropped_locked();
  gwt_out_flush_locked();
  gwt_out_unlock();
}

/* Everything the end of the process needs: close the open window, force out
 * CUPTI's buffers, last counts. Runs once. */
static void finish_trace(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&finished, &expected, 1))
    return;
  pthread_mutex_lock(&cupti_mutex);
  uint64_t end_ns = now_ns();
  if (window_start_ns) {
    put_window(window_start_ns, end_ns, kinds_enabled);
    window_start_ns = 0;
  }
  /* Standing aside, CUPTI's buffers are the other client's: not flushed. */
  if (atomic_load(&cupti_attached) && !atomic_load(&aside) && !atomic_load(&cupti_reset_by_other))
    p_cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (atomic_load(&aside))
    gwt_out_note(end_ns, GW_WIRE_NOTE_INFO, "still standing aside at exit (since %.3f s)",
                 (double)(aside_since_ns - trace_start_ns) / 1e9);
  pthread_mutex_unlock(&cupti_mutex);
  drain_api_rings();
  put_launch_count(end_ns);
  if (gwt_out_lock()) {
    report_dropped_locked();
    gwt_out_flush_locked();
    gwt_out_unlock();
  }
  atomic_store(&tracing_on, 0);
}

/* Sleeps up to ms in short steps; returns 1 when the thread must stop. */
static int wait_or_stop(uint32_t ms) {
  uint64_t until = mono_ms() + ms;
  for (;;) {
    if (atomic_load(&stop_requested))
      return 1;
    if (atomic_load(&sigterm_flush_requested)) {
      finish_trace();
      atomic_store(&sigterm_flush_done, 1);
      return 1;
    }
    uint64_t now = mono_ms();
    if (now >= until)
      return 0;
    sleep_ms(until - now < 20 ? (uint32_t)(until - now) : 20);
  }
}

/* Subscribes and registers the buffer callbacks: at start, and in sampled
 * mode when a window opens after a detach. CUPTI_SUCCESS when CUPTI is set
 * up; else the CUPTI result, and why is filled. */
/* A larger device-side timestamp buffer for jobs that launch more than
 * CUPTI's default holds (about 100000 kernels) between two flushes, which
 * would otherwise lose timestamps. Set before the contexts are made: the
 * injection runs inside cuInit, before any; later attaches keep it. It made no difference to the cost
 * on the H200 storm (bench/RESULTS.md, run 8), so it stays off by default. */
static void set_device_buffer_size(void) {
  if (!cfg.device_buffer_mb || !p_cuptiActivitySetAttribute)
    return;
  size_t bytes = (size_t)cfg.device_buffer_mb << 20, size = sizeof bytes;
  CUptiResult rc = p_cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &bytes);
  if (rc != CUPTI_SUCCESS)
    say(GW_WIRE_NOTE_WARN, "CUPTI refused a device buffer of %u MB: %s", cfg.device_buffer_mb, cupti_error(rc));
}

static int enable_launch_counting(void);
static void disable_launch_counting(void);

static const char *const OTHER_CLIENTS = "torch.profiler, Nsight Systems or Compute, cuda-gdb, compute-sanitizer";

/* Holds our subscriber (call with cupti_mutex held). CUPTI_SUCCESS, or the
 * CUPTI result with why filled. */
static CUptiResult subscribe_locked(char *why, size_t why_cap) {
  if (subscribed)
    return CUPTI_SUCCESS;
  CUptiResult rc = p_cuptiSubscribe(&subscriber, on_api_callback, NULL);
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    snprintf(why, why_cap,
             "another CUPTI client (%s) %s CUPTI in this process, and this driver allows only one: gpuwhy stands "
             "aside (no tracing windows; the recorder's GPU counters go on) and comes back if it leaves",
             OTHER_CLIENTS, atomic_load(&tracing_on) ? "took" : "already holds");
    return rc;
  }
  if (rc != CUPTI_SUCCESS) {
    snprintf(why, why_cap, "cuptiSubscribe failed: %s (%d)", cupti_error(rc), (int)rc);
    return rc;
  }
  subscribed = 1;
  return CUPTI_SUCCESS;
}

static void unsubscribe_locked(void) {
  if (!subscribed)
    return;
  p_cuptiUnsubscribe(subscriber);
  subscriber = NULL;
  subscribed = 0;
}

/* Subscribes and registers the buffer callbacks: at start, when a sampled
 * window opens after a detach, and when coming back after another client.
 * Call with cupti_mutex held. */
static CUptiResult cupti_attach_locked(char *why, size_t why_cap) {
  if (atomic_exchange(&cupti_reset_by_other, 0)) {
    subscribed = 0; /* the other client's cuptiFinalize removed ours too */
    subscriber = NULL;
    atomic_store(&cupti_attached, 0);
  }
  CUptiResult rc = subscribe_locked(why, why_cap);
  if (rc != CUPTI_SUCCESS)
    return rc;
  if (!device_buffer_set)
    set_device_buffer_size(); /* first attach only: the contexts it sizes stay */
  device_buffer_set = 1;
  rc = p_cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (rc != CUPTI_SUCCESS) {
    snprintf(why, why_cap, "cuptiActivityRegisterCallbacks failed: %s (%d)", cupti_error(rc), (int)rc);
    unsubscribe_locked();
    return rc;
  }
  if (p_cuptiActivityEnableAllSyncRecords)
    p_cuptiActivityEnableAllSyncRecords(0); /* no records for queries of unfinished work */
  atomic_store(&cupti_attached, 1);
  return CUPTI_SUCCESS;
}

static void set_api_domains(uint32_t on) {
  p_cuptiEnableDomain(on, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  p_cuptiEnableDomain(on, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int traces_kernels(void) {
  return cfg.mode == GW_WIRE_MODE_FULL || cfg.sampled_kinds == SAMPLED_ALL;
}

/* The detach handshake after a step aside began: an armed detach is called
 * off (still attached), a running one is waited for (2-4 ms), a finished
 * one leaves nothing attached. Call with cupti_mutex held. */
static void settle_detach_locked(void) {
  int armed = DETACH_ARMED;
  if (atomic_compare_exchange_strong(&detach_state, &armed, DETACH_IDLE)) {
    set_api_domains(0);
    return;
  }
  while (atomic_load(&detach_state) == DETACH_RUNNING)
    sleep_ms(1);
  if (atomic_load(&detach_state) == DETACH_DONE) {
    subscriber = NULL;
    subscribed = 0;
    atomic_store(&cupti_attached, 0);
    atomic_store(&detach_state, DETACH_IDLE);
  }
}

/* Gives CUPTI to another client: the open window is closed and written, our
 * kinds and callbacks are switched off, our records so far are flushed into
 * our buffers (before the client registers its own), our subscriber is
 * released. From here on nothing of CUPTI's is called until we come back.
 * via_hook: the arrival came through coexist.c (so its leaving will too).
 * Call with cupti_mutex held. */
static void step_aside_locked(const char *what, int via_hook) {
  if (atomic_load(&aside))
    return;
  uint64_t t0 = mono_ns();
  atomic_store(&aside, 1);
  atomic_store(&other_left, 0);
  aside_via_hook = via_hook;
  aside_since_ns = now_ns();
  settle_detach_locked();
  if (atomic_load(&cupti_attached) && !atomic_load(&cupti_reset_by_other)) {
    if (window_start_ns) {
      set_activity(0, traces_kernels());
      put_window(window_start_ns, aside_since_ns, kinds_enabled);
      window_start_ns = 0;
      kinds_enabled = 0;
    }
    if (cfg.count_launches)
      disable_launch_counting();
    p_cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    unsubscribe_locked();
  }
  atomic_store(&cupti_attached, 0);
  say(GW_WIRE_NOTE_WARN, "stood aside at %.3f s: %s (stepping aside took %.0f us)",
      (double)(aside_since_ns - trace_start_ns) / 1e9, what, (double)(mono_ns() - t0) / 1e3);
}

/* Takes CUPTI back after the other client left (its leaving came through
 * coexist.c) or, without the hook, when a subscribe succeeds again. Returns
 * 1 when back. Call with cupti_mutex held. */
static int try_come_back_locked(void) {
  if (aside_via_hook && !atomic_load(&other_left))
    return 0;
  char why[768];
  if (cupti_attach_locked(why, sizeof why) != CUPTI_SUCCESS)
    return 0; /* still taken: try again at the next window */
  atomic_store(&aside, 0);
  uint64_t t = now_ns();
  say(GW_WIRE_NOTE_INFO, "came back at %.3f s: the other CUPTI client left after %.3f s",
      (double)(t - trace_start_ns) / 1e9, (double)(t - aside_since_ns) / 1e9);
  if (cfg.count_launches && enable_launch_counting() != 0) {
    disable_launch_counting();
    cfg.count_launches = 0;
  }
  if (cfg.mode == GW_WIRE_MODE_FULL) {
    window_start_ns = now_ns(); /* after the note: the window starts when tracing does */
    kinds_enabled = set_activity(1, 1);
  }
  return 1;
}

/* ---- hooks called by coexist.c on the client's thread ---------------------- */

void *gwt_cupti_symbol(const char *name) {
  void *fn = cupti_lib ? dlsym(cupti_lib, name) : NULL;
  if (!fn)
    fn = dlsym(RTLD_NEXT, name);
  if (!fn) {
    void *lib = dlopen("libcupti.so.13", RTLD_NOLOAD | RTLD_LAZY);
    if (lib) {
      fn = dlsym(lib, name);
      dlclose(lib);
    }
  }
  return fn;
}

/* Only the traced process itself, after start-up; never a forked child
 * (the lock may have been held by a thread the child does not have). */
static int hooks_live(void) {
  return init_pid != 0 && getpid() == init_pid && atomic_load(&tracing_on);
}

void gwt_client_arriving(const char *via) {
  if (!hooks_live())
    return;
  char what[512];
  snprintf(what, sizeof what,
           "another CUPTI client (%s) called %s, and this driver serves only one: gpuwhy releases CUPTI to it "
           "(no tracing windows; the recorder's GPU counters go on) and comes back when it leaves",
           OTHER_CLIENTS, via);
  pthread_mutex_lock(&cupti_mutex);
  step_aside_locked(what, 1);
  pthread_mutex_unlock(&cupti_mutex);
}

void gwt_client_subscribed(CUptiResult rc, CUpti_SubscriberHandle handle) {
  if (rc != CUPTI_SUCCESS) {
    /* CUPTI refused it too (a third tool holds CUPTI): nothing was taken
     * from us that a subscribe at the next window cannot tell. */
    if (hooks_live()) {
      pthread_mutex_lock(&cupti_mutex);
      aside_via_hook = 0;
      pthread_mutex_unlock(&cupti_mutex);
    }
    return;
  }
  atomic_store(&hook_saw_client, 1);
  if (init_pid == 0 || getpid() == init_pid) {
    pthread_mutex_lock(&cupti_mutex);
    other_subscriber = handle;
    pthread_mutex_unlock(&cupti_mutex);
  }
}

/* Leaving may happen inside a CUPTI callback (Kineto finalizes at an API
 * exit): only atomics here, the tracer's thread does the rest. */
void gwt_client_unsubscribed(CUpti_SubscriberHandle handle) {
  if (handle && handle == other_subscriber)
    atomic_store(&other_left, 1);
}

void gwt_client_finalized(void) {
  atomic_store(&cupti_reset_by_other, 1);
  atomic_store(&other_left, 1);
}

/* ---- window edges ------------------------------------------------------------- */

struct edge_times {
  uint64_t open_ns, close_ns, flush_ns; /* on the tracer's thread */
  uint64_t detach_ns;                   /* cuptiFinalize on the tracer's thread (END_DETACH_OWN) */
  uint64_t program_thread_ns;           /* on a program thread (END_DETACH_PROGRAM's cuptiFinalize) */
  uint64_t close_at_ns;                 /* CLOCK_REALTIME when the window's close began */
  uint64_t pause_at_ns;                 /* CLOCK_REALTIME when the program thread's time for us began */
};

static const char *window_end_word(void) {
  switch (cfg.window_end) {
  case END_DETACH_OWN:
    return "CUPTI detached on the tracer's thread";
  case END_DETACH_PROGRAM:
    return "CUPTI detached at the program's next CUDA call";
  case END_QUIET:
    return "CUPTI attached, every kind and callback off between windows";
  case END_KEEP:
    break;
  }
  return "kinds switched on the tracer's thread, CUPTI kept attached";
}

static void put_gw_overhead(uint32_t kind, uint64_t start_ns, uint64_t dur_ns) {
  struct gw_wire_overhead w;
  gw_wire_overhead_init(&w, 0);
  w.start_ns = start_ns;
  w.end_ns = start_ns + dur_ns;
  w.overhead_kind = kind;
  w.object_kind = (uint32_t)cfg.window_end;
  gwt_out_put(&w, sizeof w);
}

/* One NOTE per window: what its edges cost and where; and two OVERHEAD
 * records of gpuwhy's own kinds (table trace_overhead): the program thread's
 * time for us (zero-length when none) and the tracer thread's. bench/tracer/edges.py
 * reads them back (p50, p99, max). */
static void put_edge_note(const struct edge_times *e) {
  gwt_out_note(now_ns(), GW_WIRE_NOTE_INFO,
               "window edges: open_ns=%llu close_ns=%llu flush_ns=%llu detach_ns=%llu program_thread_ns=%llu (%s)",
               (unsigned long long)e->open_ns, (unsigned long long)e->close_ns, (unsigned long long)e->flush_ns,
               (unsigned long long)e->detach_ns, (unsigned long long)e->program_thread_ns, window_end_word());
  put_gw_overhead(GW_WIRE_OVERHEAD_GW_PROGRAM_PAUSE, e->pause_at_ns ? e->pause_at_ns : e->close_at_ns,
                  e->program_thread_ns);
  put_gw_overhead(GW_WIRE_OVERHEAD_GW_TRACER_EDGE, e->close_at_ns,
                  e->open_ns + e->close_ns + e->flush_ns + e->detach_ns);
}

/* Opens a sampled window. 0: open; 1: no window (standing aside); -1: no
 * more windows. */
static int open_window(int with_kernels, struct edge_times *e) {
  char why[768];
  pthread_mutex_lock(&cupti_mutex);
  if (atomic_load(&aside) && !try_come_back_locked()) {
    pthread_mutex_unlock(&cupti_mutex);
    return 1;
  }
  if (!atomic_load(&cupti_attached) && atomic_load(&detached_once) && atomic_load(&graphs_in_use)) {
    say(GW_WIRE_NOTE_INFO, "CUDA graphs appeared after CUPTI was taken out of the process: no more trace windows "
                           "(putting CUPTI back in while graphs exist crashes graph replays); the recorder's GPU "
                           "counters go on");
    pthread_mutex_unlock(&cupti_mutex);
    return -1;
  }
  uint64_t t0 = mono_ns();
  CUptiResult rc = CUPTI_SUCCESS;
  if (!atomic_load(&cupti_attached) || atomic_load(&cupti_reset_by_other))
    rc = cupti_attach_locked(why, sizeof why);
  else if (!subscribed)
    rc = subscribe_locked(why, sizeof why); /* held through the window: a client arriving now gets a clear refusal */
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    step_aside_locked(why, atomic_load(&hook_saw_client) && !atomic_load(&other_left));
    pthread_mutex_unlock(&cupti_mutex);
    return 1;
  }
  if (rc != CUPTI_SUCCESS) {
    say(GW_WIRE_NOTE_WARN, "%s; no more sampling windows", why);
    pthread_mutex_unlock(&cupti_mutex);
    return -1;
  }
  window_start_ns = now_ns();
  kinds_enabled = set_activity(1, with_kernels);
  e->open_ns = mono_ns() - t0;
  pthread_mutex_unlock(&cupti_mutex);
  return 0;
}

/* From now on the windows work as with GPUWHY_TRACE_WINDOW_END=keep: kinds switched
 * on and off, the subscriber released between windows. */
static void stay_attached_for_graphs_locked(void) {
  cfg.detach = 0;
  cfg.window_end = END_KEEP;
  if (!cfg.count_launches)
    unsubscribe_locked();
  say(GW_WIRE_NOTE_INFO, "CUDA graphs in use: CUPTI stays in the process between windows from now on (taking it out "
                         "and back in while graphs exist crashes graph replays)");
}

/* After a cuptiFinalize: nothing of ours is left in CUPTI. Call with
 * cupti_mutex held. */
static void note_detached_locked(void) {
  subscriber = NULL;
  subscribed = 0;
  atomic_store(&cupti_attached, 0);
  atomic_store(&detach_state, DETACH_IDLE);
  atomic_store(&detached_once, 1);
}

/* END_DETACH_OWN: CUPTI's callback on for cuDriverGetVersion only, and the
 * tracer's thread calls it; its exit callback runs cuptiFinalize on this
 * thread (on_api_callback). The program's threads run none of our code; a
 * launch of theirs may still wait inside CUDA while CUPTI takes itself out
 * (bench/tracer/edge_stall.py measures that from the program's side).
 * 1: detached. 0: CUPTI made no callback for the call (or refused it): from
 * now on the detach runs at the program's next CUDA call instead, with a
 * NOTE. Call with cupti_mutex held, after the flush. */
static int detach_on_own_thread_locked(struct edge_times *e) {
  if (!driver_get_version || p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                                   CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion) != CUPTI_SUCCESS) {
    cfg.window_end = END_DETACH_PROGRAM;
    say(GW_WIRE_NOTE_INFO, "%s: CUPTI is detached at the program's next CUDA call instead",
        driver_get_version ? "CUPTI refused a callback on cuDriverGetVersion" : "cuDriverGetVersion was not found");
    return 0;
  }
  atomic_store_explicit(&detach_state, DETACH_OWN_ARMED, memory_order_release);
  int version = 0;
  own_trigger = 1;
  driver_get_version(&version);
  own_trigger = 0;
  int own = DETACH_OWN_ARMED;
  if (atomic_compare_exchange_strong(&detach_state, &own, DETACH_IDLE)) {
    /* No callback came: still attached. */
    p_cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion);
    cfg.window_end = END_DETACH_PROGRAM;
    say(GW_WIRE_NOTE_INFO, "CUPTI made no callback for the tracer's own cuDriverGetVersion: CUPTI is detached at the "
                           "program's next CUDA call instead");
    return 0;
  }
  /* DONE: the callback ran on this thread, inside the call. */
  note_detached_locked();
  e->detach_ns = atomic_load(&finalize_ns);
  return 1;
}

/* Takes CUPTI out of the process after a window (GPUWHY_TRACE_WINDOW_END=
 * detach_own or detach).
 * Closing the window was not enough on the H200: the storm's steps after the
 * first window ran 9-120% slower than before it, even with windows that
 * traced no kernels (scripts/h200/call_tracer_next.sh): CUPTI keeps its hooks
 * once it has traced. Every record is flushed first; then detach_own calls
 * cuDriverGetVersion on this thread (detach_on_own_thread_locked), or
 * detach switches whole API domains on so that the next API exit on any
 * thread runs cuptiFinalize (on_api_callback), 2.2-3.8 ms on that thread. Returns 1
 * when the thread must stop instead. */
static int cupti_detach(struct edge_times *e) {
  sleep_ms(20); /* kernels launched in the window finish, so their records are complete */
  pthread_mutex_lock(&cupti_mutex);
  if (atomic_load(&aside) || !atomic_load(&cupti_attached)) {
    pthread_mutex_unlock(&cupti_mutex);
    return 0;
  }
  uint64_t t0 = mono_ns();
  p_cuptiActivityFlushAll(0);
  p_cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  e->flush_ns = mono_ns() - t0;
  if (atomic_load(&graphs_in_use) || gwt_convert_saw_graph()) {
    atomic_store(&graphs_in_use, 1);
    stay_attached_for_graphs_locked();
    pthread_mutex_unlock(&cupti_mutex);
    return 0;
  }
  if (cfg.window_end == END_DETACH_OWN && detach_on_own_thread_locked(e)) {
    pthread_mutex_unlock(&cupti_mutex);
    return 0;
  }
  if (p_cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      p_cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    set_api_domains(0);
    cfg.detach = 0;
    say(GW_WIRE_NOTE_WARN, "CUPTI refused API callbacks: it stays in the process between windows");
    pthread_mutex_unlock(&cupti_mutex);
    return 0;
  }
  atomic_store_explicit(&detach_state, DETACH_ARMED, memory_order_release);
  pthread_mutex_unlock(&cupti_mutex);
  /* The program's next CUDA call does it: at once in a training loop; a
   * program busy elsewhere is polled every 1 ms, then every 20 ms. Another
   * client arriving meanwhile settles the handshake itself (step aside). */
  unsigned waited_ms = 0;
  while (atomic_load(&detach_state) != DETACH_DONE && atomic_load(&detach_state) != DETACH_CANCELLED &&
         !atomic_load(&aside)) {
    if (atomic_load(&stop_requested) || atomic_load(&sigterm_flush_requested)) {
      int armed = DETACH_ARMED;
      pthread_mutex_lock(&cupti_mutex);
      int called_off = atomic_compare_exchange_strong(&detach_state, &armed, DETACH_IDLE);
      if (called_off)
        set_api_domains(0);
      pthread_mutex_unlock(&cupti_mutex);
      if (called_off)
        return 1; /* still attached: the exit flush goes through CUPTI */
    }
    uint32_t step_ms = waited_ms < 20 ? 1 : 20;
    sleep_ms(step_ms);
    waited_ms += step_ms;
  }
  pthread_mutex_lock(&cupti_mutex);
  if (atomic_load(&detach_state) == DETACH_DONE) {
    note_detached_locked();
    e->program_thread_ns = atomic_load(&finalize_ns);
    e->pause_at_ns = atomic_load(&finalize_start_ns);
  } else if (atomic_load(&detach_state) == DETACH_CANCELLED) {
    /* A graph capture began while the detach was armed. */
    atomic_store(&detach_state, DETACH_IDLE);
    set_api_domains(0);
    stay_attached_for_graphs_locked();
  }
  pthread_mutex_unlock(&cupti_mutex);
  return 0;
}

/* END_QUIET: beyond the window's kinds, what else of ours CUPTI could keep
 * on between windows: the DEVICE kind (enabled once at start) and every
 * callback domain of our subscriber (none is on by design; switched off
 * explicitly so that no per-call CUPTI dispatch of ours can remain). The
 * buffers come back with a forced flush after the settle wait. Launch
 * counting keeps its callbacks. Call with cupti_mutex held. */
static void quiet_everything_locked(void) {
  p_cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DEVICE);
  if (!subscribed || cfg.count_launches || !p_cuptiEnableDomain)
    return;
  for (int d = CUPTI_CB_DOMAIN_DRIVER_API; d < CUPTI_CB_DOMAIN_SIZE; d++)
    p_cuptiEnableDomain(0, subscriber, (CUpti_CallbackDomain)d);
}

/* Closes a sampled window. Returns 1 when the thread must stop. */
static int close_window(int with_kernels, struct edge_times *e) {
  pthread_mutex_lock(&cupti_mutex);
  if (atomic_load(&aside) || !window_start_ns) {
    pthread_mutex_unlock(&cupti_mutex); /* a client arrived: the step aside closed it */
    return 0;
  }
  uint64_t t0 = mono_ns();
  e->close_at_ns = wall_ns();
  set_activity(0, with_kernels);
  put_window(window_start_ns, now_ns(), kinds_enabled);
  window_start_ns = 0;
  kinds_enabled = 0;
  if (!cfg.detach && cfg.window_end == END_QUIET)
    quiet_everything_locked();
  /* Between windows nothing of ours is held, so that a client arriving
   * then (and, without the hook, unseen) gets CUPTI as if we were not here. */
  if (!cfg.detach && !cfg.count_launches)
    unsubscribe_locked();
  e->close_ns = mono_ns() - t0;
  pthread_mutex_unlock(&cupti_mutex);
  if (cfg.detach)
    return cupti_detach(e);
  /* The records reach the file from the tracer's thread: kernels launched in
   * the window finish first, then the buffers CUPTI completed come back
   * (quiet: every buffer, complete or not, so CUPTI holds none of ours). */
  sleep_ms(20);
  pthread_mutex_lock(&cupti_mutex);
  if (!atomic_load(&aside) && atomic_load(&cupti_attached)) {
    uint64_t t1 = mono_ns();
    p_cuptiActivityFlushAll(0);
    if (cfg.window_end == END_QUIET)
      p_cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    e->flush_ns = mono_ns() - t1;
  }
  pthread_mutex_unlock(&cupti_mutex);
  return 0;
}

static void *flusher_main(void *arg) {
  (void)arg;
  if (cfg.mode == GW_WIRE_MODE_FULL) {
    /* Data reaches the file about once a second for the live view; while
     * standing aside, every 100 ms the thread looks for the other client's
     * leaving (an atomic read, or without the hook a subscribe). */
    for (unsigned tick = 1; !wait_or_stop(100); tick++) {
      drain_api_rings();
      if (!atomic_load(&aside) && tick % 10)
        continue;
      pthread_mutex_lock(&cupti_mutex);
      if (atomic_load(&aside))
        try_come_back_locked();
      else if (atomic_load(&cupti_attached))
        p_cuptiActivityFlushAll(0);
      pthread_mutex_unlock(&cupti_mutex);
    }
  } else {
    int with_windows = cfg.sampled_kinds != SAMPLED_NONE;
    int with_kernels = cfg.sampled_kinds == SAMPLED_ALL;
    uint32_t rest_ms = cfg.period_ms - cfg.window_ms;
    if (cfg.first_delay_ms && wait_or_stop(cfg.first_delay_ms)) {
      atomic_store(&thread_done, 1);
      return NULL;
    }
    for (;;) {
      if (with_windows) {
        struct edge_times e;
        memset(&e, 0, sizeof e);
        int opened = open_window(with_kernels, &e);
        if (opened < 0)
          break;
        if (wait_or_stop(cfg.window_ms))
          break; /* the exit closes the open window */
        if (opened == 0) {
          if (close_window(with_kernels, &e) != 0) {
            wait_or_stop(0); /* the SIGTERM flush, when that is why */
            break;
          }
          if (!atomic_load(&aside))
            put_edge_note(&e);
        }
      } else if (wait_or_stop(cfg.window_ms)) {
        break;
      }
      if (wait_or_stop(rest_ms))
        break;
      put_launch_count(now_ns());
    }
  }
  atomic_store(&thread_done, 1);
  return NULL;
}

/* ---- process end ------------------------------------------------------------- */

static void at_exit(void) {
  if (getpid() != init_pid || !atomic_load(&tracing_on))
    return;
  atomic_store(&stop_requested, 1);
  /* Wait a little for the thread to leave; never hang the exit on it. */
  for (int i = 0; i < 100 && flusher_started && !atomic_load(&thread_done); i++)
    sleep_ms(10);
  finish_trace();
}

/* SIGTERM with the default action kills the process without atexit: ask the
 * background thread to flush (a normal thread, not this handler, calls
 * CUPTI), wait up to 2 s, then let the signal do what it would have done. */
static void on_sigterm(int sig, siginfo_t *info, void *uctx) {
  int default_action = !(old_sigterm.sa_flags & SA_SIGINFO) && old_sigterm.sa_handler == SIG_DFL;
  if (getpid() == init_pid && default_action && atomic_load(&tracing_on) && flusher_started &&
      !atomic_load(&thread_done)) {
    atomic_store(&sigterm_flush_requested, 1);
    for (int i = 0; i < 200 && !atomic_load(&sigterm_flush_done); i++) {
      struct timespec ts = {0, 10 * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  if (old_sigterm.sa_flags & SA_SIGINFO) {
    if (old_sigterm.sa_sigaction)
      old_sigterm.sa_sigaction(sig, info, uctx);
    return;
  }
  if (old_sigterm.sa_handler == SIG_IGN)
    return;
  if (old_sigterm.sa_handler == SIG_DFL) {
    sigaction(SIGTERM, &old_sigterm, NULL);
    raise(sig); /* delivered with the default action once this handler returns */
    return;
  }
  old_sigterm.sa_handler(sig);
}

static void in_forked_child(void) {
  /* CUDA does not survive fork; the child writes nothing and counts nothing. */
  atomic_store(&tracing_on, 0);
  gwt_out_forget_in_child();
}

/* ---- start-up ------------------------------------------------------------------ */

/* Opens libcupti. A process that already loaded a copy (torch's wheel) gets
 * that same copy by its SONAME. GPUWHY_TRACE_CUPTI_LIB names an exact file. */
static int load_cupti(char *why, size_t why_cap) {
  const char *forced = getenv("GPUWHY_TRACE_CUPTI_LIB");
  const char *names[] = {"libcupti.so.13", "libcupti.so"};
  if (forced && *forced) {
    cupti_lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (size_t i = 0; i < COUNT_OF(names) && !cupti_lib; i++)
      cupti_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (!cupti_lib) {
    const char *e = dlerror();
    snprintf(why, why_cap, "cannot load %s (%s); set LD_LIBRARY_PATH to the CUDA or torch lib folder",
             forced && *forced ? forced : "libcupti.so.13", e ? e : "not found");
    return -1;
  }
#define RESOLVE_REQUIRED(name)                                                                                         \
  p_##name = (__typeof__(p_##name))dlsym(cupti_lib, #name);                                                            \
  if (!p_##name) {                                                                                                     \
    snprintf(why, why_cap, "libcupti lacks %s", #name);                                                                \
    return -1;                                                                                                         \
  }
#define RESOLVE_OPTIONAL(name) p_##name = (__typeof__(p_##name))dlsym(cupti_lib, #name);
  CUPTI_REQUIRED(RESOLVE_REQUIRED)
  CUPTI_OPTIONAL(RESOLVE_OPTIONAL)
  return 0;
}

static void read_config(void) {
  static const struct env_word mode_words[] = {{"sampled", GW_WIRE_MODE_SAMPLED}, {"full", GW_WIRE_MODE_FULL}};
  cfg.mode = (uint32_t)env_choice("GPUWHY_TRACE_MODE", mode_words, COUNT_OF(mode_words), GW_WIRE_MODE_SAMPLED);
  /* A 2% duty cycle: kernel tracing slows a launch-bound job by about half
   * while a window is open (bench/RESULTS.md), so the always-on mode stays
   * near 1% on the worst case. */
  cfg.window_ms = env_u32("GPUWHY_TRACE_WINDOW_MS", DEFAULT_WINDOW_MS, 1, 600000);
  cfg.period_ms = env_u32("GPUWHY_TRACE_PERIOD_MS", DEFAULT_PERIOD_MS, 2, 3600000);
  if (cfg.window_ms >= cfg.period_ms) {
    pending_note("GPUWHY_TRACE_WINDOW_MS=%u is not shorter than GPUWHY_TRACE_PERIOD_MS=%u; using %u and %u",
                 cfg.window_ms, cfg.period_ms, DEFAULT_WINDOW_MS, DEFAULT_PERIOD_MS);
    cfg.window_ms = DEFAULT_WINDOW_MS;
    cfg.period_ms = DEFAULT_PERIOD_MS;
  }
  /* A window open while the program loads its CUDA modules leaves CUPTI's
   * kernel instrumentation in those modules after it closes: on the H200 a
   * transformer training step ran 13.99 and 11.82 ms outside the windows
   * against 11.17 and 10.16 ms when the first window waited one period
   * (scripts/h200/call_sampler_tracer.sh). So the first window opens one
   * period after start, when the warm-up has loaded the modules. */
  cfg.first_delay_ms = env_u32("GPUWHY_TRACE_FIRST_DELAY_MS", cfg.period_ms, 0, 3600000);
  static const struct env_word sampled_words[] = {
      {"kernel", SAMPLED_ALL}, {"all", SAMPLED_ALL}, {"nokernel", SAMPLED_NOKERNEL}, {"none", SAMPLED_NONE}};
  cfg.sampled_kinds =
      (enum sampled_kinds)env_choice("GPUWHY_TRACE_SAMPLED_KIND", sampled_words, COUNT_OF(sampled_words), SAMPLED_ALL);
  /* Off by default: on the H200 the launch callback alone cost about as much
   * as the kernel windows on a 1 us-kernel storm (bench/RESULTS.md); the
   * window statistics, scaled by the duty cycle, give the launch rate. */
  cfg.count_launches = env_flag("GPUWHY_TRACE_COUNT_LAUNCHES", 0);
  cfg.nvtx = env_flag("GPUWHY_TRACE_NVTX", 0);
  cfg.memory = env_flag("GPUWHY_TRACE_MEMORY", 1);
  cfg.graph = env_flag("GPUWHY_TRACE_GRAPH", 0);
  static const struct env_word api_words[] = {
      {"all", API_ALL}, {"nolaunch", API_NOLAUNCH}, {"runtime", API_RUNTIME}, {"none", API_NONE}};
  cfg.api = (enum api_set)env_choice("GPUWHY_TRACE_API", api_words, COUNT_OF(api_words), API_ALL);
  /* How a sampled window ends (enum window_end), GPUWHY_TRACE_WINDOW_END; the
   * older GPUWHY_TRACE_DETACH=1 / 0 still names detach / keep. Kept attached,
   * CUPTI slows every later launch (H200: the storm's steps outside windows
   * 5.83 ms against 3.70 ms detached; the transformer step 13.3 against
   * 10.2 ms), so CUPTI leaves between windows. The default is detach_own since
   * an H200 run (bench/RESULTS.md, "The tracer's cost"): no time of
   * ours on a program thread (detach: p50 1.8 ms in cuptiFinalize there), the
   * storm's launches around the window end waited p50 0.39 ms against 1.87 ms
   * with detach, steps outside windows as fast as with detach, and
   * torch.profiler got all its kernels beside it. */
  int detach_word = env_flag("GPUWHY_TRACE_DETACH", 1) ? END_DETACH_PROGRAM : END_KEEP;
  static const struct env_word end_words[] = {
      {"detach_own", END_DETACH_OWN}, {"detach", END_DETACH_PROGRAM}, {"quiet", END_QUIET}, {"keep", END_KEEP}};
  const char *detach_env = getenv("GPUWHY_TRACE_DETACH");
  cfg.window_end = (enum window_end)env_choice("GPUWHY_TRACE_WINDOW_END", end_words, COUNT_OF(end_words),
                                               detach_env && *detach_env ? detach_word : END_DETACH_OWN);
  cfg.detach = cfg.window_end == END_DETACH_OWN || cfg.window_end == END_DETACH_PROGRAM;
  cfg.device_buffer_mb = env_u32("GPUWHY_TRACE_DEVICE_BUFFER_MB", 0, 0, 1024);
  /* callback: full mode takes the API calls from CUPTI's enter and exit
   * callbacks into per-thread rings (api_ring.c) instead of CUPTI's API
   * activity records, which were most of full mode's cost on a training
   * step (+41% with them, +13.5% without, bench/RESULTS.md run 8). */
  static const struct env_word path_words[] = {{"activity", 0}, {"callback", 1}};
  cfg.api_by_callback = env_choice("GPUWHY_TRACE_API_PATH", path_words, COUNT_OF(path_words), 0);
  /* serial: CUPTI's KERNEL kind, which runs kernels one at a time but adds no
   * code to them; for measuring what CONCURRENT_KERNEL's instrumentation costs. */
  static const struct env_word kernel_words[] = {{"concurrent", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
                                                 {"serial", CUPTI_ACTIVITY_KIND_KERNEL}};
  cfg.kernel_kind = (CUpti_ActivityKind)env_choice("GPUWHY_TRACE_KERNEL_KIND", kernel_words, COUNT_OF(kernel_words),
                                                   CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}

static void build_keep_bitmaps(void) {
  for (size_t i = 0; i < COUNT_OF(RUNTIME_KEEP); i++)
    if (api_traced(1, RUNTIME_KEEP[i]))
      gwt_convert_keep_api(1, RUNTIME_KEEP[i]);
  for (size_t i = 0; i < COUNT_OF(DRIVER_KEEP); i++)
    if (api_traced(0, DRIVER_KEEP[i]))
      gwt_convert_keep_api(0, DRIVER_KEEP[i]);
}

/* Callbacks on the launch functions only: the counter between windows. */
static int enable_launch_counting(void) {
  for (size_t i = 0; i < COUNT_OF(RUNTIME_LAUNCH); i++)
    if (p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, RUNTIME_LAUNCH[i]) != CUPTI_SUCCESS)
      return -1;
  for (size_t i = 0; i < COUNT_OF(DRIVER_LAUNCH); i++)
    if (p_cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, DRIVER_LAUNCH[i]) != CUPTI_SUCCESS)
      return -1;
  return 0;
}

static void disable_launch_counting(void) {
  for (size_t i = 0; i < COUNT_OF(RUNTIME_LAUNCH); i++)
    p_cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, RUNTIME_LAUNCH[i]);
  for (size_t i = 0; i < COUNT_OF(DRIVER_LAUNCH); i++)
    p_cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, DRIVER_LAUNCH[i]);
}

/* cuDriverGetVersion from the libcuda.so.1 that loaded us (never loading
 * one; PyTorch loads it RTLD_LOCAL, so dlsym(RTLD_DEFAULT) may not see it),
 * or from GPUWHY_TRACE_CUDA_DRIVER_LIB (tests: the fake libcupti plays one).
 * Not found: the detach falls back to the program's call (a NOTE). */
static void find_driver_get_version(void) {
  const char *forced = getenv("GPUWHY_TRACE_CUDA_DRIVER_LIB");
  void *driver =
      forced && *forced ? dlopen(forced, RTLD_NOW | RTLD_NOLOAD) : dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver) /* the handle stays open: the function is called at every window's end */
    driver_get_version = (CUresult(*)(int *))dlsym(driver, "cuDriverGetVersion");
}

/* The CUPTI setup that can fail; 0 when tracing runs, else why is filled. */
static int start_tracing(char *why, size_t why_cap) {
  if (cupti_version < 130000 || cupti_version >= 140000) {
    snprintf(why, why_cap, "libcupti reports API version %u; this tracer reads the record layouts of CUPTI 13 only",
             cupti_version);
    return -1;
  }
  if (cfg.nvtx && cupti_version <= 130000) {
    say(GW_WIRE_NOTE_WARN, "NVTX ranges stay off: CUPTI %u can crash as NVTX injection (fixed after 13.0.0)",
        cupti_version);
    cfg.nvtx = 0;
  }
  for (unsigned i = 0; i < POOL_BUFFERS; i++) {
    pool[i] = aligned_alloc(64, POOL_BUFFER_BYTES);
    if (!pool[i]) {
      snprintf(why, why_cap, "no memory for %u activity buffers of %u bytes", POOL_BUFFERS, POOL_BUFFER_BYTES);
      for (unsigned j = 0; j < i; j++)
        free(pool[j]);
      return -1;
    }
  }
  atomic_store(&pool_free_mask, (1u << POOL_BUFFERS) - 1u);
  /* On failure the pool stays allocated: CUPTI may hold a pointer to it. */
  pthread_mutex_lock(&cupti_mutex);
  CUptiResult rc = cupti_attach_locked(why, why_cap);
  pthread_mutex_unlock(&cupti_mutex);
  /* Another client holds CUPTI already: stand aside from the start. */
  int taken = rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  if (rc != CUPTI_SUCCESS && !taken)
    return -1;
  /* Detaching needs cuptiFinalize and whole-domain callbacks; launch counting
   * needs callbacks all the time, and NVTX goes through libcupti as its
   * injection, which would set CUPTI up again between windows. */
  if (cfg.mode != GW_WIRE_MODE_SAMPLED || cfg.count_launches || cfg.nvtx || !p_cuptiFinalize || !p_cuptiEnableDomain ||
      gwt_pm_sampling_requested(cupti_lib))
    cfg.detach = 0;
  if (!cfg.detach && (cfg.window_end == END_DETACH_OWN || cfg.window_end == END_DETACH_PROGRAM))
    cfg.window_end = END_KEEP;
  if (cfg.window_end == END_DETACH_OWN)
    find_driver_get_version();
  build_keep_bitmaps();
  /* One DEVICE record per GPU (its SM count and per-SM limits, for the
   * occupancy of each kernel's launch configuration). CUPTI emits them when
   * the driver starts, so the ones already made are dumped. */
  if (!p_cuptiActivityEnableAndDump || p_cuptiActivityEnableAndDump(CUPTI_ACTIVITY_KIND_DEVICE) != CUPTI_SUCCESS)
    p_cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE);
  /* Per-function API switches took effect only when set during CUDA's start:
   * on the H200 a sampled window opened 2 s later got 0 API records for
   * 171525 kernels, whole kinds 104089 for 104062 (scripts/h200/diag_api.sh).
   * So sampled windows take whole kinds, filtered when converting.
   * GPUWHY_TRACE_API_PER_CALL=0 does the same in full mode. */
  api_per_cbid = p_cuptiActivityEnableRuntimeApi && p_cuptiActivityEnableDriverApi && cfg.mode == GW_WIRE_MODE_FULL &&
                 env_flag("GPUWHY_TRACE_API_PER_CALL", 1);
  atomic_store(&tracing_on, 1);
  count_period_start_ns = now_ns();
  if (taken) {
    pthread_mutex_lock(&cupti_mutex);
    step_aside_locked(why, atomic_load(&hook_saw_client));
    pthread_mutex_unlock(&cupti_mutex);
    if (cfg.mode == GW_WIRE_MODE_FULL)
      cfg.count_launches = 0;
    return 0;
  }

  if (cfg.mode == GW_WIRE_MODE_SAMPLED && cfg.count_launches && enable_launch_counting() != 0) {
    disable_launch_counting();
    cfg.count_launches = 0;
    say(GW_WIRE_NOTE_WARN, "launch counting callbacks refused; sampled statistics cannot be scaled");
  }
  if (cfg.mode == GW_WIRE_MODE_FULL) {
    cfg.count_launches = 0; /* API records count launches exactly */
    window_start_ns = trace_start_ns;
    kinds_enabled = set_activity(1, 1);
  } else if (!cfg.detach && !cfg.count_launches) {
    /* Sampled and kept attached: the subscriber is held inside windows only. */
    pthread_mutex_lock(&cupti_mutex);
    unsubscribe_locked();
    pthread_mutex_unlock(&cupti_mutex);
  }
  return 0;
}

static void install_exit_hooks(void) {
  atexit(at_exit);
  pthread_atfork(NULL, NULL, in_forked_child);
  if (env_flag("GPUWHY_TRACE_SIGTERM", 1) && sigaction(SIGTERM, NULL, &old_sigterm) == 0 &&
      ((old_sigterm.sa_flags & SA_SIGINFO) || old_sigterm.sa_handler != SIG_IGN)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigterm;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }
  /* The thread takes no signals: they stay with the application's threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  flusher_started = pthread_create(&flusher_thread, NULL, flusher_main, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (flusher_started)
    pthread_detach(flusher_thread);
  else
    say(GW_WIRE_NOTE_WARN, "no background thread: %s",
        cfg.mode == GW_WIRE_MODE_FULL ? "records reach the file only at exit" : "no sampling windows will open");
}

/* Called by the Python start-up hook (through ctypes) when the program
 * begins a CUDA graph capture; cheap and safe from any thread. */
GWT_EXPORT void gpuwhy_tracer_cuda_graphs_in_use(void) {
  atomic_store(&graphs_in_use, 1);
}

GWT_EXPORT int InitializeInjection(void) {
  static atomic_int called;
  if (atomic_exchange(&called, 1))
    return 1;
  const char *dir = getenv("GPUWHY_TRACE_DIR");
  if (!dir || !*dir)
    return 1; /* not asked to trace */
  init_pid = getpid();
  read_config();

  char why[768] = "";
  int loaded = load_cupti(why, sizeof why) == 0;
  if (loaded && p_cuptiGetVersion(&cupti_version) != CUPTI_SUCCESS)
    cupti_version = 0;
  trace_start_ns = now_ns();

  struct gw_wire_file_header h;
  gw_wire_file_header_init(&h, (uint32_t)init_pid, trace_start_ns, cupti_version, cfg.mode, cfg.window_ms,
                           cfg.period_ms);
  char open_why[512];
  if (gwt_out_open(dir, &h, open_why, sizeof open_why) != 0) {
    char line[600];
    int n = snprintf(line, sizeof line, "gpuwhy-tracer: %s; tracing is off\n", open_why);
    if (n > 0) {
      ssize_t ignored = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
      (void)ignored;
    }
    return 1;
  }
  for (int i = 0; i < pending_count; i++)
    say(GW_WIRE_NOTE_WARN, "%s", pending_notes[i]);
  if (!loaded || start_tracing(why, sizeof why) != 0) {
    say(GW_WIRE_NOTE_ERROR, "%s; tracing is off, the program runs on", why);
    return 1;
  }
  install_exit_hooks();
  gwt_pm_sampling_start(cupti_lib);
  if (cfg.mode == GW_WIRE_MODE_FULL)
    say(GW_WIRE_NOTE_INFO, "tracing every kernel (full mode), CUPTI %u", cupti_version);
  else
    say(GW_WIRE_NOTE_INFO,
        "tracing %u ms every %u ms (sampled mode, windows: %s, launch counting %s, CUPTI %s between windows), "
        "CUPTI %u",
        cfg.window_ms, cfg.period_ms,
        cfg.sampled_kinds == SAMPLED_ALL        ? "all kinds"
        : cfg.sampled_kinds == SAMPLED_NOKERNEL ? "no kernels"
                                                : "none",
        cfg.count_launches ? "on" : "off", cfg.detach ? "detached" : "attached", cupti_version);
  return 1;
}
