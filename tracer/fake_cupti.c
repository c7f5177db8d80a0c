/* A stand-in for libcupti, for tests on machines without a GPU. It exports
 * the functions the tracer resolves, with CUPTI 13's record layouts, and is
 * scripted through the environment:
 *   FAKE_CUPTI_VERSION       what cuptiGetVersion returns (default 130001)
 *   FAKE_CUPTI_SUBSCRIBE_RC  what cuptiSubscribe returns (default 0)
 *   FAKE_CUPTI_KERNELS       kernel records each flush produces (default 3)
 *   FAKE_CUPTI_HOLD_BUFFERS  buffers each flush asks for and never hands back
 *                            (default 0): the tracer's pool runs dry
 *   FAKE_CUPTI_RESUBSCRIBE_RC  what cuptiSubscribe returns after a
 *                            cuptiFinalize (default 0; 39: another client
 *                            took CUPTI while the tracer was detached)
 *   FAKE_CUPTI_MAX_DEVICE_BUFFER_MB  the largest device buffer
 *                            cuptiActivitySetAttribute accepts (default 256)
 *   FAKE_CUPTI_BUSY_MS       another client holds CUPTI for this long after
 *                            the library loads: cuptiSubscribe returns 39
 * As with CUDA 13.0's CUPTI, one subscriber at a time: a second
 * cuptiSubscribe returns 39 until the first unsubscribes. An enabled
 * activity kind stays on until disabled, and every flush delivers records of
 * the kinds on (or switched off since the last flush) to whichever buffer
 * callbacks were registered last, so a client whose kinds someone else
 * switched off, or whose callbacks someone replaced, sees it.
 * Every flush asks the tracer for a buffer, fills it with kernel, memcpy,
 * sync and API records and hands it back, as CUPTI's worker would.
 * fake_cupti_api_call() plays one CUDA API call of the program (enter and
 * exit callbacks for the enabled domains) and marks its thread as the
 * program's; fake_cupti_finalize_count() says how often cuptiFinalize ran,
 * fake_cupti_program_thread_calls() how many CUPTI calls that change CUPTI's
 * state (subscribe, enable, disable, flush, finalize...) ran on a program
 * thread, and fake_cupti_program_thread_finalizes() how many of them were
 * cuptiFinalize. cuDriverGetVersion plays the driver's: the exit callback
 * of the DRIVER domain when that function's callback is on, on the calling
 * thread (the tracer's own detach trigger). Of PM sampling it has cuptiPmSamplingEnable
 * only (a refusing stub): a libcupti with PM sampling to the tracer's first
 * look, without the rest of the API. Built with fake_cupti_pm.c and
 * FAKE_CUPTI_WITH_PM_SAMPLING (libcupti-fake-pm.so) it has all of it. */
#include <cupti.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static CUpti_BuffersCallbackRequestFunc request_fn;
static CUpti_BuffersCallbackCompleteFunc complete_fn;
/* Set when a kind is enabled, consumed by the next flush: records "happen"
 * while a kind is on and are delivered later, as with the real CUPTI. */
static int pending_kinds[64];
static int enabled_kinds[64];
static uintptr_t subscriber_handle; /* the one held; 0: none */
static uintptr_t handles_given;
static uint64_t loaded_ns;
static uint32_t next_correlation = 1;
/* Set by the tracer's background thread, read by the program's thread. */
static _Atomic(CUpti_CallbackFunc) subscriber_fn;
static void *_Atomic subscriber_data;
static atomic_int domain_on[CUPTI_CB_DOMAIN_SIZE];
static atomic_int launch_callback_on; /* cuptiEnableCallback on cudaLaunchKernel */
static atomic_int finalize_count;
static atomic_int driver_version_callback_on; /* cuptiEnableCallback on cuDriverGetVersion */
/* Which thread made which call: the program's threads are those that made
 * a CUDA call (fake_cupti_api_call). */
static _Thread_local int program_thread;
static atomic_int program_thread_calls, program_thread_finalizes;

/* A CUPTI call that changes CUPTI's state: counted when a program thread makes it. */
static void state_call(int is_finalize) {
  if (!program_thread)
    return;
  atomic_fetch_add(&program_thread_calls, 1);
  if (is_finalize)
    atomic_fetch_add(&program_thread_finalizes, 1);
}

/* Also used by fake_cupti_pm.c, in the library built from both. */
__attribute__((visibility("hidden"))) unsigned env_unsigned(const char *name, unsigned fallback);
__attribute__((visibility("hidden"))) uint64_t realtime_ns(void);

unsigned env_unsigned(const char *name, unsigned fallback) {
  const char *s = getenv(name);
  return s && *s ? (unsigned)strtoul(s, NULL, 10) : fallback;
}

uint64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((constructor)) static void fake_loaded(void) {
  loaded_ns = realtime_ns();
}

FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t *version) {
  *version = env_unsigned("FAKE_CUPTI_VERSION", 130001);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str) {
  *str = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                                                  : "fake CUPTI error";
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                       void *userdata) {
  state_call(0);
  *subscriber = NULL;
  CUptiResult rc = (CUptiResult)(finalize_count ? env_unsigned("FAKE_CUPTI_RESUBSCRIBE_RC", 0)
                                                : env_unsigned("FAKE_CUPTI_SUBSCRIBE_RC", 0));
  if (rc == CUPTI_SUCCESS &&
      (subscriber_handle || realtime_ns() - loaded_ns < env_unsigned("FAKE_CUPTI_BUSY_MS", 0) * 1000000ull))
    rc = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  if (rc == CUPTI_SUCCESS) {
    subscriber_handle = ++handles_given;
    *subscriber = (CUpti_SubscriberHandle)subscriber_handle;
    subscriber_fn = callback;
    subscriber_data = userdata;
  }
  return rc;
}

FAKE_EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                          CUpti_CallbackDomain domain) {
  state_call(0);
  (void)subscriber;
  if ((unsigned)domain >= CUPTI_CB_DOMAIN_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  domain_on[domain] = enable != 0;
  return CUPTI_SUCCESS;
}

/* CUPTI leaves the process: nothing of the tracer's is called any more. */
FAKE_EXPORT CUptiResult cuptiFinalize(void) {
  state_call(1);
  finalize_count++;
  subscriber_fn = NULL;
  subscriber_handle = 0;
  launch_callback_on = 0;
  driver_version_callback_on = 0;
  memset(enabled_kinds, 0, sizeof enabled_kinds);
  request_fn = NULL;
  complete_fn = NULL;
  for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; d++)
    domain_on[d] = 0;
  memset(pending_kinds, 0, sizeof pending_kinds);
  return CUPTI_SUCCESS;
}

#ifndef FAKE_CUPTI_WITH_PM_SAMPLING /* libcupti-fake-pm.so has the whole API (fake_cupti_pm.c) */
FAKE_EXPORT CUptiResult cuptiPmSamplingEnable(void *params) {
  (void)params;
  return CUPTI_ERROR_NOT_SUPPORTED;
}
#endif

FAKE_EXPORT int fake_cupti_finalize_count(void) {
  return finalize_count;
}

/* How many activity kinds are on now (any kind, DEVICE included). */
FAKE_EXPORT int fake_cupti_kinds_on(void) {
  int n = 0;
  for (int k = 0; k < 64; k++)
    n += enabled_kinds[k] != 0;
  return n;
}

FAKE_EXPORT int fake_cupti_program_thread_calls(void) {
  return program_thread_calls;
}

FAKE_EXPORT int fake_cupti_program_thread_finalizes(void) {
  return program_thread_finalizes;
}

/* One CUDA call as CUPTI sees it: the enter and exit callbacks of its
 * domain on the calling thread, while that domain or that one callback is on. */
static void play_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
                      const atomic_int *callback_on) {
  CUpti_CallbackData info;
  memset(&info, 0, sizeof info);
  info.functionName = name;
  uint64_t correlation_data = 0; /* CUPTI's per-call slot, kept from enter to exit */
  int returned = 0;
  info.correlationData = &correlation_data;
  info.correlationId = next_correlation++;
  info.functionReturnValue = &returned;
  for (int site = CUPTI_API_ENTER; site <= CUPTI_API_EXIT; site++) {
    CUpti_CallbackFunc fn = subscriber_fn;
    if (!fn || !(domain_on[domain] || *callback_on))
      return;
    info.callbackSite = (CUpti_ApiCallbackSite)site;
    fn(subscriber_data, domain, cbid, &info);
  }
}

/* The driver's cuDriverGetVersion (the tracer's own detach trigger). */
FAKE_EXPORT CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  play_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, "cuDriverGetVersion",
            &driver_version_callback_on);
  return CUDA_SUCCESS;
}

/* One cudaLaunchKernel of the program; its thread becomes a program thread. */
FAKE_EXPORT void fake_cupti_api_call(void) {
  program_thread = 1;
  play_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
            &launch_callback_on);
}

FAKE_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  state_call(0);
  if ((uintptr_t)subscriber != subscriber_handle || !subscriber_handle)
    return CUPTI_ERROR_INVALID_PARAMETER;
  subscriber_handle = 0;
  subscriber_fn = NULL;
  launch_callback_on = 0;
  driver_version_callback_on = 0;
  for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; d++)
    domain_on[d] = 0;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                            CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  state_call(0);
  if ((uintptr_t)subscriber != subscriber_handle || !subscriber_handle)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
    launch_callback_on = enable != 0;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion)
    driver_version_callback_on = enable != 0;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                       CUpti_BuffersCallbackCompleteFunc done) {
  state_call(0);
  request_fn = req;
  complete_fn = done;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *value_size, void *value) {
  state_call(0);
  if (attr != CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE || !value_size || *value_size != sizeof(size_t) || !value)
    return CUPTI_ERROR_INVALID_PARAMETER;
  size_t bytes;
  memcpy(&bytes, value, sizeof bytes);
  return bytes > ((size_t)env_unsigned("FAKE_CUPTI_MAX_DEVICE_BUFFER_MB", 256) << 20) ? CUPTI_ERROR_INVALID_PARAMETER
                                                                                      : CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  state_call(0);
  if ((unsigned)kind < 64)
    pending_kinds[kind] = enabled_kinds[kind] = 1;
  return CUPTI_SUCCESS;
}

/* Device records come once, as the real CUPTI dumps the ones it made when
 * the driver started. */
FAKE_EXPORT CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind kind) {
  return cuptiActivityEnable(kind);
}

FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  state_call(0);
  if ((unsigned)kind < 64)
    enabled_kinds[kind] = 0; /* what happened while it was on still comes with the next flush */
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  (void)cbid, (void)enable;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  (void)cbid, (void)enable;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityEnableAllSyncRecords(uint8_t enable) {
  (void)enable;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiGetTimestamp(uint64_t *timestamp) {
  *timestamp = realtime_ns();
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream_id, size_t *dropped) {
  (void)context, (void)stream_id;
  *dropped = 0;
  return CUPTI_SUCCESS;
}

static size_t record_size(const CUpti_Activity *r) {
  switch (r->kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return sizeof(CUpti_ActivityKernel10);
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return sizeof(CUpti_ActivityMemcpy6);
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    return sizeof(CUpti_ActivitySynchronization2);
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return sizeof(CUpti_ActivityAPI);
  case CUPTI_ACTIVITY_KIND_DEVICE:
    return sizeof(CUpti_ActivityDevice5);
  default:
    return 0;
  }
}

/* Records are packed back to back, each padded to 8 bytes. */
FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid_bytes, CUpti_Activity **record) {
  uint8_t *next = buffer;
  if (*record) {
    size_t n = record_size(*record);
    if (!n)
      return CUPTI_ERROR_INVALID_KIND;
    next = (uint8_t *)*record + ((n + 7) & ~(size_t)7);
  }
  if ((size_t)(next - buffer) + sizeof(CUpti_Activity) > valid_bytes)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = (CUpti_Activity *)next;
  return CUPTI_SUCCESS;
}

/* 1 when kind has records for this flush; an enabled kind is pending again
 * for the next one, since its activity goes on while it stays enabled. */
static int take_pending(CUpti_ActivityKind kind) {
  if (!pending_kinds[kind])
    return 0;
  pending_kinds[kind] = enabled_kinds[kind];
  return 1;
}

static size_t append(uint8_t *buf, size_t used, size_t cap, const void *rec, size_t n) {
  size_t padded = (n + 7) & ~(size_t)7;
  if (used + padded > cap)
    return used;
  memset(buf + used, 0, padded);
  memcpy(buf + used, rec, n);
  return used + padded;
}

FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  state_call(0);
  (void)flag;
  if (!request_fn || !complete_fn)
    return CUPTI_SUCCESS;
  uint8_t *buf = NULL;
  size_t cap = 0, max_records = 0;
  /* Buffers kept as a CUPTI with many contexts or streams would keep them. */
  for (unsigned held = env_unsigned("FAKE_CUPTI_HOLD_BUFFERS", 0); held > 0; held--)
    request_fn(&buf, &cap, &max_records);
  request_fn(&buf, &cap, &max_records);
  if (!buf)
    return CUPTI_SUCCESS;
  size_t used = 0;
  uint64_t t = realtime_ns() - 1000000;
  if (pending_kinds[CUPTI_ACTIVITY_KIND_DEVICE]) {
    pending_kinds[CUPTI_ACTIVITY_KIND_DEVICE] = 0;
    /* An H200's limits (CUDA 13 deviceQuery): 132 SMs of compute capability
     * 9.0, 64 warps, 32 blocks, 65536 registers and 228 KiB shared memory
     * per SM. */
    CUpti_ActivityDevice5 d;
    memset(&d, 0, sizeof d);
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.id = 0;
    d.numMultiprocessors = 132;
    d.maxWarpsPerMultiprocessor = 64;
    d.maxBlocksPerMultiprocessor = 32;
    d.maxRegistersPerMultiprocessor = 65536;
    d.maxRegistersPerBlock = 65536;
    d.maxSharedMemoryPerMultiprocessor = 233472;
    d.maxSharedMemoryPerBlock = 49152;
    d.maxThreadsPerBlock = 1024;
    d.numThreadsPerWarp = 32;
    d.computeCapabilityMajor = 9;
    d.computeCapabilityMinor = 0;
    d.coreClockRate = 1980000;
    d.name = "NVIDIA H200";
    used = append(buf, used, cap, &d, sizeof d);
  }
  if (take_pending(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    unsigned kernels = env_unsigned("FAKE_CUPTI_KERNELS", 3);
    for (unsigned i = 0; i < kernels; i++) {
      CUpti_ActivityKernel10 k;
      memset(&k, 0, sizeof k);
      k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k.start = t + i * 2000;
      k.end = k.start + 1000;
      k.deviceId = 0;
      k.streamId = 7;
      k.gridX = 64, k.gridY = 1, k.gridZ = 1;
      k.blockX = 128, k.blockY = 1, k.blockZ = 1;
      k.registersPerThread = 40;
      k.staticSharedMemory = 4096;
      k.dynamicSharedMemory = 8192;
      k.correlationId = next_correlation++;
      k.name = (i % 3 == 2) ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : (i % 2 ? "_Z3barv" : "_Z3fooi");
      used = append(buf, used, cap, &k, sizeof k);
    }
  }
  if (take_pending(CUPTI_ACTIVITY_KIND_MEMCPY)) {
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.bytes = 1 << 20;
    m.start = t;
    m.end = t + 50000;
    m.correlationId = next_correlation++;
    used = append(buf, used, cap, &m, sizeof m);
  }
  if (take_pending(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)) {
    CUpti_ActivitySynchronization2 s;
    memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    s.start = t + 100;
    s.end = t + 50; /* end before start: CUPTI oddities must not break the file */
    used = append(buf, used, cap, &s, sizeof s);
  }
  /* The runtime kind is never enabled as a whole by the tracer (it asks per
   * function), so emit one kept and one filtered API record regardless. */
  CUpti_ActivityAPI a;
  memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a.start = t;
  a.end = t + 3000;
  a.threadId = 1234;
  used = append(buf, used, cap, &a, sizeof a);
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020; /* noise: filtered out */
  used = append(buf, used, cap, &a, sizeof a);
  complete_fn(NULL, 0, buf, cap, used);
  return CUPTI_SUCCESS;
}
