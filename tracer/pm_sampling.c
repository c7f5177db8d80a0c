/* CUPTI PM sampling (cupti_pmsampling.h, CUPTI 12.6+), opt-in with
 * GPUWHY_TRACE_PM_SAMPLING=1 (record --pm-sampling): SM active cycles and
 * elapsed cycles, averaged over the SMs, sampled by the GPU itself every
 * GPUWHY_TRACE_PM_INTERVAL_MS (default 10) and shipped as PM_SAMPLE records.
 * Their ratio is the share of SM cycles with a warp resident: GPM's SM
 * activity, on GPUs from Turing on.
 *
 * Its own thread: waits GPUWHY_TRACE_PM_DELAY_MS (default 2000), then until
 * the device's primary context exists, makes it current on this thread (the
 * documented sequence sets up where a context is current, after it was
 * made: NVIDIA's pm_sampling sample, CUPTI's tutorial, Kineto), sets the
 * sampler up (the call sequence of cupti_pmsampling.h), then decodes the hardware buffer
 * every 100 ms. Everything fails open: a refusal is one NOTE and the program
 * runs on. GPUWHY_TRACE_PM_VERBOSE=1 writes each CUPTI call to stderr before
 * making it, so that a crash names the call it came in. The tracer keeps
 * CUPTI attached while PM sampling runs (cuptiFinalize between sampled
 * windows would take the sampler's state away under it). Built on the
 * documented API; on the H200 (CUDA 13.0) the version before these changes
 * crashed the traced program (bench/RESULTS.md), this one is not yet run
 * there (tracer/tools/pm_probe.c and scripts/h200/plans/pmprobe.sh). */
#include "pm_sampling.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
  X(cuptiProfilerHostGetNumOfPasses)                                                                                   \
  X(cuptiProfilerDeviceSupported)                                                                                      \
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

/* The driver calls that find the device's context; libcuda is loaded (it
 * loaded the tracer). */
#define DRIVER_FUNCS(X)                                                                                                \
  X(cuDeviceGet)                                                                                                       \
  X(cuDevicePrimaryCtxGetState)                                                                                        \
  X(cuDevicePrimaryCtxRetain)                                                                                          \
  X(cuDevicePrimaryCtxRelease)                                                                                         \
  X(cuCtxSetCurrent)
DRIVER_FUNCS(DECLARE_PM)

/* Averages over the SMs: cycles with a warp resident, and all cycles. */
static const char *METRICS[] = {"sm__cycles_active.avg", "sm__cycles_elapsed.avg"};
#define NMETRICS (sizeof METRICS / sizeof METRICS[0])
#define MAX_SAMPLES_PER_DECODE 512u
#define HW_BUFFER_BYTES (64u << 20)
#define DECODE_EVERY_MS 100u
#define CONTEXT_POLL_MS 100u /* how often to look for the program's context */

static struct {
  uint32_t device, interval_ms, delay_ms;
  int verbose;
  pthread_t thread;
  int started;
  atomic_int stop;
  CUdevice cu_device;
  CUcontext ctx; /* the primary context, retained while we sample */
  CUpti_Profiler_Host_Object *host;
  CUpti_PmSampling_Object *sampler;
  /* Kept to the end, as NVIDIA's sample keeps them: the host object and
   * the sampler were made from them. */
  uint8_t *avail_image, *config_image;
  uint8_t *counter_data;
  size_t counter_data_bytes;
} pm;

/* GPUWHY_TRACE_PM_VERBOSE=1: the call about to be made, on stderr, so that
 * the last line before a crash names it. */
static void step(const char *what) {
  if (!pm.verbose)
    return;
  char line[160];
  int n = snprintf(line, sizeof line, "gpuwhy-tracer pm: %s\n", what);
  if (n > 0) {
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)ignored;
  }
}

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
    step(#fn);                                                                                                         \
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

/* Why the device cannot be sampled, from cuptiProfilerDeviceSupported. */
static int device_supported(void) {
  CUpti_Profiler_DeviceSupported_Params sup = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
                                               .cuDevice = pm.cu_device,
                                               .api = CUPTI_PROFILER_PM_SAMPLING};
  CALL(cuptiProfilerDeviceSupported, &sup);
  if (sup.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return 0;
  gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN,
               "PM sampling off: device %u cannot be sampled (CUPTI: architecture %d, SLI %d, vGPU %d, confidential "
               "compute %d, CMP %d, WSL %d; 3 is supported)",
               pm.device, (int)sup.architecture, (int)sup.sli, (int)sup.vGpu, (int)sup.confidentialCompute,
               (int)sup.cmp, (int)sup.wsl);
  return -1;
}

/* The documented order: profiler, chip, counter availability (size, then
 * data), host object with that image, metrics, config image and its pass
 * count, Enable, SetConfig, counter data image, Start. Runs with the
 * program's context current on this thread. */
static int set_up(void) {
  CUpti_Profiler_Initialize_Params init = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CALL(cuptiProfilerInitialize, &init);
  if (device_supported() != 0)
    return -1;
  CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
                                          .deviceIndex = pm.device};
  CALL(cuptiDeviceGetChipName, &chip);
  CUpti_PmSampling_GetCounterAvailability_Params avail = {
      .structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE, .deviceIndex = pm.device};
  CALL(cuptiPmSamplingGetCounterAvailability, &avail);
  pm.avail_image = calloc(1, avail.counterAvailabilityImageSize ? avail.counterAvailabilityImageSize : 1);
  if (!pm.avail_image)
    return -1;
  avail.pCounterAvailabilityImage = pm.avail_image;
  CALL(cuptiPmSamplingGetCounterAvailability, &avail);
  CUpti_Profiler_Host_Initialize_Params host = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
                                                .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
                                                .pChipName = chip.pChipName,
                                                .pCounterAvailabilityImage = pm.avail_image};
  CALL(cuptiProfilerHostInitialize, &host);
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
  pm.config_image = calloc(1, size.configImageSize ? size.configImageSize : 1);
  if (!pm.config_image)
    return -1;
  CUpti_Profiler_Host_GetConfigImage_Params image = {.structSize =
                                                         CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
                                                     .pHostObject = pm.host,
                                                     .configImageSize = size.configImageSize,
                                                     .pConfigImage = pm.config_image};
  CALL(cuptiProfilerHostGetConfigImage, &image);
  /* PM sampling collects in one pass or not at all (SetConfig would refuse). */
  CUpti_Profiler_Host_GetNumOfPasses_Params passes = {.structSize =
                                                          CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
                                                      .configImageSize = size.configImageSize,
                                                      .pConfigImage = pm.config_image};
  CALL(cuptiProfilerHostGetNumOfPasses, &passes);
  if (passes.numOfPasses != 1) {
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: the metrics need %zu passes, PM sampling takes one",
                 passes.numOfPasses);
    return -1;
  }
  CUpti_PmSampling_Enable_Params enable = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE,
                                           .deviceIndex = pm.device};
  CALL(cuptiPmSamplingEnable, &enable);
  pm.sampler = enable.pPmSamplingObject;
  /* A fixed time base (GA10x and newer); older GPUs refuse it, then the
   * sampler stays off rather than sample in variable SYSCLK units. The
   * newest records win when the buffer fills (Ampere and newer, as Kineto
   * does): with KEEP_OLDEST an overflow fails the decode and ends sampling. */
  CUpti_PmSampling_SetConfig_Params set = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
                                           .pPmSamplingObject = pm.sampler,
                                           .configSize = size.configImageSize,
                                           .pConfig = pm.config_image,
                                           .hardwareBufferSize = HW_BUFFER_BYTES,
                                           .samplingInterval = (uint64_t)pm.interval_ms * 1000000ull,
                                           .triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
                                           .hwBufferAppendMode =
                                               CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST};
  CALL(cuptiPmSamplingSetConfig, &set);
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
    step("cuptiPmSamplingStop");
    if (q_cuptiPmSamplingStop(&stop) == CUPTI_SUCCESS && pm.counter_data)
      drain();
    CUpti_PmSampling_Disable_Params dis = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
                                           .pPmSamplingObject = pm.sampler};
    step("cuptiPmSamplingDisable");
    q_cuptiPmSamplingDisable(&dis);
    pm.sampler = NULL;
  }
  if (pm.host) {
    CUpti_Profiler_Host_Deinitialize_Params hd = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
                                                  .pHostObject = pm.host};
    step("cuptiProfilerHostDeinitialize");
    q_cuptiProfilerHostDeinitialize(&hd);
    pm.host = NULL;
  }
  /* No cuptiProfilerDeInitialize: another CUPTI client in the process may
   * still use the profiler (a double deinitialise is reported to crash). */
  free(pm.counter_data);
  free(pm.config_image);
  free(pm.avail_image);
  pm.counter_data = pm.config_image = pm.avail_image = NULL;
  if (pm.ctx) {
    step("cuDevicePrimaryCtxRelease");
    q_cuDevicePrimaryCtxRelease(pm.cu_device);
    pm.ctx = NULL;
  }
}

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Waits until the program has made the device's primary context, then
 * retains it and makes it current here. 0 when it is current; -1 when
 * asked to stop first or the driver refused. */
static int wait_for_context(void) {
  step("cuDeviceGet");
  if (q_cuDeviceGet(&pm.cu_device, (int)pm.device) != CUDA_SUCCESS) {
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: no CUDA device %u in this process", pm.device);
    return -1;
  }
  for (;;) {
    unsigned flags = 0;
    int active = 0;
    if (q_cuDevicePrimaryCtxGetState(pm.cu_device, &flags, &active) == CUDA_SUCCESS && active)
      break;
    if (atomic_load(&pm.stop))
      return -1;
    sleep_ms(CONTEXT_POLL_MS);
  }
  step("cuDevicePrimaryCtxRetain");
  if (q_cuDevicePrimaryCtxRetain(&pm.ctx, pm.cu_device) != CUDA_SUCCESS) {
    pm.ctx = NULL;
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: the device's context could not be retained");
    return -1;
  }
  step("cuCtxSetCurrent");
  if (q_cuCtxSetCurrent(pm.ctx) != CUDA_SUCCESS) {
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: the device's context could not be made current");
    return -1;
  }
  return 0;
}

static void *pm_main(void *arg) {
  (void)arg;
  for (uint32_t waited = 0; waited < pm.delay_ms && !atomic_load(&pm.stop); waited += 10)
    sleep_ms(10);
  if (atomic_load(&pm.stop) || wait_for_context() != 0 || set_up() != 0) {
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

int gwt_pm_sampling_requested(void *cupti_lib) {
  const char *on = getenv("GPUWHY_TRACE_PM_SAMPLING");
  return on && strcmp(on, "1") == 0 && cupti_lib && dlsym(cupti_lib, "cuptiPmSamplingEnable");
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
  /* PyTorch loads the driver library with RTLD_LOCAL: its symbols are not
   * global (on the H200 dlsym(RTLD_DEFAULT, "cuDeviceGet") found nothing).
   * The process has it loaded already; take a handle to that copy. */
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!driver)
    driver = RTLD_DEFAULT;
#define RESOLVE_DRIVER(name) q_##name = (__typeof__(q_##name))dlsym(driver, #name);
  DRIVER_FUNCS(RESOLVE_DRIVER)
#define MISSING_DRIVER(name)                                                                                           \
  if (!q_##name) {                                                                                                     \
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: the CUDA driver's %s was not found", #name);           \
    return;                                                                                                            \
  }
  DRIVER_FUNCS(MISSING_DRIVER)
  pm.verbose = getenv("GPUWHY_TRACE_PM_VERBOSE") && strcmp(getenv("GPUWHY_TRACE_PM_VERBOSE"), "1") == 0;
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
