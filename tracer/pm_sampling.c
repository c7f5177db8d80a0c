/* CUPTI PM sampling (cupti_pmsampling.h, CUPTI 12.6+), opt-in with
 * GPUWHY_TRACE_PM_SAMPLING=1 (record --pm-sampling): SM active cycles and
 * elapsed cycles, averaged over the SMs, sampled by the GPU itself every
 * GPUWHY_TRACE_PM_INTERVAL_MS (default 10) and shipped as PM_SAMPLE records.
 * Their ratio is the share of SM cycles with a warp resident: GPM's SM
 * activity, on GPUs from Turing on.
 *
 * Its own thread: waits GPUWHY_TRACE_PM_DELAY_MS (default 2000, so CUDA has
 * a context), sets the sampler up (the call sequence of cupti_pmsampling.h),
 * then decodes the hardware buffer every 100 ms. Everything fails open: a
 * refusal is one NOTE and the program runs on. Built on the documented API
 * only; not yet run on a GPU. */
#include "pm_sampling.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracer_out.h"
#include "wire.h"
#include "wire_encode.h"

#define PM_FUNCS(X)                                                                                                    \
  X(cuptiProfilerInitialize)                                                                                           \
  X(cuptiDeviceGetChipName)                                                                                            \
  X(cuptiPmSamplingGetCounterAvailability)                                                                             \
  X(cuptiProfilerHostInitialize)                                                                                       \
  X(cuptiProfilerHostDeinitialize)                                                                                     \
  X(cuptiProfilerHostConfigAddMetrics)                                                                                 \
  X(cuptiProfilerHostGetConfigImageSize)                                                                               \
  X(cuptiProfilerHostGetConfigImage)                                                                                   \
  X(cuptiProfilerHostEvaluateToGpuValues)                                                                              \
  X(cuptiPmSamplingEnable)                                                                                             \
  X(cuptiPmSamplingDisable)                                                                                            \
  X(cuptiPmSamplingSetConfig)                                                                                          \
  X(cuptiPmSamplingGetCounterDataSize)                                                                                 \
  X(cuptiPmSamplingCounterDataImageInitialize)                                                                         \
  X(cuptiPmSamplingStart)                                                                                              \
  X(cuptiPmSamplingStop)                                                                                               \
  X(cuptiPmSamplingDecodeData)                                                                                         \
  X(cuptiPmSamplingGetCounterDataInfo)                                                                                 \
  X(cuptiPmSamplingCounterDataGetSampleInfo)                                                                           \
  X(cuptiGetResultString)

#define DECLARE_PM(name) static __typeof__(&name) q_##name;
PM_FUNCS(DECLARE_PM)

/* Averages over the SMs: cycles with a warp resident, and all cycles. */
static const char *METRICS[] = {"sm__cycles_active.avg", "sm__cycles_elapsed.avg"};
#define NMETRICS (sizeof METRICS / sizeof METRICS[0])
#define MAX_SAMPLES_PER_DECODE 512u
#define HW_BUFFER_BYTES (64u << 20)
#define DECODE_EVERY_MS 100u

static struct {
  uint32_t device, interval_ms, delay_ms;
  pthread_t thread;
  int started;
  atomic_int stop;
  CUpti_Profiler_Host_Object *host;
  CUpti_PmSampling_Object *sampler;
  uint8_t *counter_data;
  size_t counter_data_bytes;
} pm;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *err_text(CUptiResult rc) {
  const char *s = NULL;
  if (q_cuptiGetResultString)
    q_cuptiGetResultString(rc, &s);
  return s ? s : "unknown CUPTI error";
}

/* One failed step: a note, and on refused privileges the driver setting. */
static void refused(const char *what, CUptiResult rc) {
  if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN,
                 "PM sampling off: %s: %s (%d): the driver restricts GPU performance counters to administrators "
                 "(NVreg_RestrictProfilingToAdminUsers=1); run as root or with CAP_PERFMON, or load the driver "
                 "with NVreg_RestrictProfilingToAdminUsers=0",
                 what, err_text(rc), (int)rc);
  else
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: %s: %s (%d); the program runs on", what, err_text(rc),
                 (int)rc);
}

#define CALL(fn, params)                                                                                               \
  do {                                                                                                                 \
    CUptiResult rc_ = q_##fn(params);                                                                                  \
    if (rc_ != CUPTI_SUCCESS) {                                                                                        \
      refused(#fn, rc_);                                                                                               \
      return -1;                                                                                                       \
    }                                                                                                                  \
  } while (0)

static int init_counter_data(void) {
  CUpti_PmSampling_CounterDataImage_Initialize_Params p = {
      .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
      .pPmSamplingObject = pm.sampler,
      .counterDataSize = pm.counter_data_bytes,
      .pCounterData = pm.counter_data};
  CALL(cuptiPmSamplingCounterDataImageInitialize, &p);
  return 0;
}

static int set_up(void) {
  CUpti_Profiler_Initialize_Params init = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CALL(cuptiProfilerInitialize, &init);
  CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
                                          .deviceIndex = pm.device};
  CALL(cuptiDeviceGetChipName, &chip);
  CUpti_PmSampling_GetCounterAvailability_Params avail = {
      .structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE, .deviceIndex = pm.device};
  CALL(cuptiPmSamplingGetCounterAvailability, &avail);
  uint8_t *avail_image = calloc(1, avail.counterAvailabilityImageSize ? avail.counterAvailabilityImageSize : 1);
  if (!avail_image)
    return -1;
  avail.pCounterAvailabilityImage = avail_image;
  CUptiResult rc = q_cuptiPmSamplingGetCounterAvailability(&avail);
  if (rc != CUPTI_SUCCESS) {
    free(avail_image);
    refused("cuptiPmSamplingGetCounterAvailability", rc);
    return -1;
  }
  CUpti_Profiler_Host_Initialize_Params host = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
                                                .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
                                                .pChipName = chip.pChipName,
                                                .pCounterAvailabilityImage = avail_image};
  rc = q_cuptiProfilerHostInitialize(&host);
  free(avail_image);
  if (rc != CUPTI_SUCCESS) {
    refused("cuptiProfilerHostInitialize", rc);
    return -1;
  }
  pm.host = host.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize =
                                                         CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
                                                     .pHostObject = pm.host,
                                                     .ppMetricNames = METRICS,
                                                     .numMetrics = NMETRICS};
  CALL(cuptiProfilerHostConfigAddMetrics, &add);
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {
      .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, .pHostObject = pm.host};
  CALL(cuptiProfilerHostGetConfigImageSize, &size);
  uint8_t *config = calloc(1, size.configImageSize ? size.configImageSize : 1);
  if (!config)
    return -1;
  CUpti_Profiler_Host_GetConfigImage_Params image = {.structSize =
                                                         CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
                                                     .pHostObject = pm.host,
                                                     .configImageSize = size.configImageSize,
                                                     .pConfigImage = config};
  rc = q_cuptiProfilerHostGetConfigImage(&image);
  if (rc != CUPTI_SUCCESS) {
    free(config);
    refused("cuptiProfilerHostGetConfigImage", rc);
    return -1;
  }
  CUpti_PmSampling_Enable_Params enable = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE,
                                           .deviceIndex = pm.device};
  rc = q_cuptiPmSamplingEnable(&enable);
  if (rc != CUPTI_SUCCESS) {
    free(config);
    refused("cuptiPmSamplingEnable", rc);
    return -1;
  }
  pm.sampler = enable.pPmSamplingObject;
  /* A fixed time base (GA10x and newer); older GPUs refuse it, then the
   * sampler stays off rather than sample in variable SYSCLK units. */
  CUpti_PmSampling_SetConfig_Params set = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
                                           .pPmSamplingObject = pm.sampler,
                                           .configSize = size.configImageSize,
                                           .pConfig = config,
                                           .hardwareBufferSize = HW_BUFFER_BYTES,
                                           .samplingInterval = (uint64_t)pm.interval_ms * 1000000ull,
                                           .triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
                                           .hwBufferAppendMode =
                                               CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST};
  rc = q_cuptiPmSamplingSetConfig(&set);
  free(config);
  if (rc != CUPTI_SUCCESS) {
    refused("cuptiPmSamplingSetConfig", rc);
    return -1;
  }
  CUpti_PmSampling_GetCounterDataSize_Params cds = {.structSize =
                                                        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE,
                                                    .pPmSamplingObject = pm.sampler,
                                                    .pMetricNames = METRICS,
                                                    .numMetrics = NMETRICS,
                                                    .maxSamples = MAX_SAMPLES_PER_DECODE};
  CALL(cuptiPmSamplingGetCounterDataSize, &cds);
  pm.counter_data_bytes = cds.counterDataSize;
  pm.counter_data = calloc(1, pm.counter_data_bytes ? pm.counter_data_bytes : 1);
  if (!pm.counter_data || init_counter_data() != 0)
    return -1;
  CUpti_PmSampling_Start_Params start = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE,
                                         .pPmSamplingObject = pm.sampler};
  CALL(cuptiPmSamplingStart, &start);
  gwt_out_note(now_ns(), GW_WIRE_NOTE_INFO, "PM sampling on: device %u (%s), every %u ms", pm.device,
               chip.pChipName ? chip.pChipName : "?", pm.interval_ms);
  return 0;
}

/* Decodes what the hardware buffer holds and writes one record a sample. */
static int drain(void) {
  for (;;) {
    CUpti_PmSampling_DecodeData_Params dec = {.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE,
                                              .pPmSamplingObject = pm.sampler,
                                              .pCounterDataImage = pm.counter_data,
                                              .counterDataImageSize = pm.counter_data_bytes};
    CALL(cuptiPmSamplingDecodeData, &dec);
    if (dec.overflow)
      gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling: the hardware buffer overflowed; samples were lost");
    CUpti_PmSampling_GetCounterDataInfo_Params info = {.structSize =
                                                           CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE,
                                                       .pCounterDataImage = pm.counter_data,
                                                       .counterDataImageSize = pm.counter_data_bytes};
    CALL(cuptiPmSamplingGetCounterDataInfo, &info);
    for (size_t i = 0; i < info.numCompletedSamples; i++) {
      CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
          .structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE,
          .pPmSamplingObject = pm.sampler,
          .pCounterDataImage = pm.counter_data,
          .counterDataImageSize = pm.counter_data_bytes,
          .sampleIndex = i};
      CALL(cuptiPmSamplingCounterDataGetSampleInfo, &si);
      double values[NMETRICS] = {0};
      CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
          .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
          .pHostObject = pm.host,
          .pCounterDataImage = pm.counter_data,
          .counterDataImageSize = pm.counter_data_bytes,
          .rangeIndex = i,
          .ppMetricNames = METRICS,
          .numMetrics = NMETRICS,
          .pMetricValues = values};
      CALL(cuptiProfilerHostEvaluateToGpuValues, &ev);
      struct gw_wire_pm_sample w;
      GW_WIRE_REC_INIT(&w, GW_WIRE_PM_SAMPLE, 0);
      w.start_ns = si.startTimestamp;
      w.end_ns = si.endTimestamp < si.startTimestamp ? si.startTimestamp : si.endTimestamp;
      w.device = pm.device;
      w.sm_cycles_active_avg = values[0];
      w.sm_cycles_elapsed_avg = values[1];
      gwt_out_put(&w, sizeof w);
    }
    if (init_counter_data() != 0)
      return -1;
    if (dec.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
      return 0;
  }
}

static void tear_down(void) {
  if (pm.sampler) {
    CUpti_PmSampling_Stop_Params stop = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE,
                                         .pPmSamplingObject = pm.sampler};
    if (q_cuptiPmSamplingStop(&stop) == CUPTI_SUCCESS)
      drain();
    CUpti_PmSampling_Disable_Params dis = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
                                           .pPmSamplingObject = pm.sampler};
    q_cuptiPmSamplingDisable(&dis);
    pm.sampler = NULL;
  }
  if (pm.host) {
    CUpti_Profiler_Host_Deinitialize_Params hd = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
                                                  .pHostObject = pm.host};
    q_cuptiProfilerHostDeinitialize(&hd);
    pm.host = NULL;
  }
  free(pm.counter_data);
  pm.counter_data = NULL;
}

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void *pm_main(void *arg) {
  (void)arg;
  for (uint32_t waited = 0; waited < pm.delay_ms && !atomic_load(&pm.stop); waited += 10)
    sleep_ms(10);
  if (atomic_load(&pm.stop) || set_up() != 0) {
    tear_down();
    return NULL;
  }
  while (!atomic_load(&pm.stop)) {
    sleep_ms(DECODE_EVERY_MS);
    if (drain() != 0)
      break;
  }
  tear_down();
  return NULL;
}

static uint32_t env_u32(const char *name, uint32_t fallback, uint32_t lo, uint32_t hi) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char *end = NULL;
  unsigned long v = strtoul(s, &end, 10);
  return end && *end == '\0' && v >= lo && v <= hi ? (uint32_t)v : fallback;
}

void gwt_pm_sampling_start(void *cupti_lib) {
  const char *on = getenv("GPUWHY_TRACE_PM_SAMPLING");
  if (!on || strcmp(on, "1") != 0 || !cupti_lib || pm.started)
    return;
#define RESOLVE_PM(name) q_##name = (__typeof__(q_##name))dlsym(cupti_lib, #name);
  PM_FUNCS(RESOLVE_PM)
#define MISSING_PM(name)                                                                                               \
  if (!q_##name) {                                                                                                     \
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: libcupti lacks %s (CUPTI 12.6 or newer needed)",       \
                 #name);                                                                                               \
    return;                                                                                                            \
  }
  PM_FUNCS(MISSING_PM)
  pm.device = env_u32("GPUWHY_TRACE_PM_DEVICE", 0, 0, 1023);
  /* 10 ms: a hundred samples a second, far finer than GPM's 1 s windows,
   * few enough that decoding every 100 ms stays cheap. */
  pm.interval_ms = env_u32("GPUWHY_TRACE_PM_INTERVAL_MS", 10, 1, 10000);
  pm.delay_ms = env_u32("GPUWHY_TRACE_PM_DELAY_MS", 2000, 0, 3600000);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pm.started = pthread_create(&pm.thread, NULL, pm_main, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!pm.started)
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: no thread for it");
  else
    atexit(gwt_pm_sampling_stop); /* after the tracer's own: runs first, while the file is open */
}

void gwt_pm_sampling_stop(void) {
  if (!pm.started)
    return;
  atomic_store(&pm.stop, 1);
  pthread_join(pm.thread, NULL);
  pm.started = 0;
}
