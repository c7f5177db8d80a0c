/* CUPTI PM sampling (cupti_pmsampling.h, CUPTI 12.6+), opt-in with
 * GPUWHY_TRACE_PM_SAMPLING=1 (record --pm-sampling): SM active cycles and
 * elapsed cycles, averaged over the SMs, sampled by the GPU itself every
 * GPUWHY_TRACE_PM_INTERVAL_MS (default 10) and shipped as PM_SAMPLE records.
 * Their ratio is the share of SM cycles with a warp resident: GPM's SM
 * activity, on GPUs from Turing on.
 *
 * Its own thread: waits GPUWHY_TRACE_PM_DELAY_MS (default 2000), then until
 * the program has made a device's primary context (the device it works on,
 * see pick_device), makes it current on this thread (the documented
 * sequence sets up where a context is current, after it was made: NVIDIA's
 * pm_sampling sample, CUPTI's tutorial, Kineto), sets the sampler up (the
 * call sequence of cupti_pmsampling.h), then decodes the hardware buffer
 * every 100 ms. Everything fails open: a refusal is one NOTE and the program
 * runs on. GPUWHY_TRACE_PM_VERBOSE=1 writes each CUPTI call to stderr before
 * making it, so that a crash names the call it came in. The tracer keeps
 * CUPTI attached while PM sampling runs (cuptiFinalize between sampled
 * windows would take the sampler's state away under it).
 *
 * The end is where the first versions went wrong (the H200 run of
 * 2026-12-01: 1058 samples, then "malloc(): unsorted double linked list
 * corrupted" as the program exited, while pm_probe, which stops before main
 * returns, ran clean). They stopped the sampler from an exit handler
 * registered when CUDA loaded the tracer, so every exit handler registered
 * later ran first (whatever CUDA, CUPTI, whose profiler is set up 2 s later
 * on this thread, and torch registered after that; which ones is what
 * 0179f52:scripts/h200/plans/pmcost2.sh logs); the sampler thread went on decoding
 * during them, and the teardown then called CUPTI, freed the images CUPTI
 * keeps (even when Disable failed) and released the context. Now the
 * sampler stops as early as the exit allows: from Python's atexit through
 * the start-up hook (gpuwhy_tracer_pm_stop), else from an exit handler
 * registered once the sampler runs, so that it runs before everything
 * registered until then;
 * the wait for the thread is bounded; the images are freed only after
 * CUPTI let them go (Disable and host Deinitialize succeeded) and never at
 * exit; the context retained here is released only when sampling ends
 * before the exit (at exit our release could be the last one and destroy
 * the context under libraries whose exit handlers come later). */
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
  X(cuDeviceGetCount)                                                                                                  \
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
/* The longest an exit waits for the sampler thread: its teardown took 47 ms
 * on the H200 (Stop 1.8 ms, Disable 45 ms, pm_probe); a hung CUPTI call
 * must not hang the program's exit. */
#define STOP_WAIT_MS 2000u

/* GPUWHY_TRACE_PM_EXIT_AS_BEFORE, for the H200 run that tells which of the
 * first versions' exit steps broke the heap (0179f52:scripts/h200/plans/pmcost2.sh);
 * a comma list: order (stop only from the exit handler registered at
 * CUDA's start), free (free the images whatever CUPTI answered, also at
 * exit), release (release the context at exit too). */
enum { AS_BEFORE_ORDER = 1, AS_BEFORE_FREE = 2, AS_BEFORE_RELEASE = 4 };

static struct {
  uint32_t device, interval_ms, delay_ms;
  int device_forced; /* GPUWHY_TRACE_PM_DEVICE given */
  int local_rank;    /* LOCAL_RANK (torchrun and others), -1 when unset */
  int verbose;
  unsigned as_before; /* AS_BEFORE_* bits */
  pid_t pid;          /* the process that started the thread (not a fork child) */
  pthread_t thread;
  atomic_int started; /* the thread exists and nobody has stopped it yet */
  atomic_int stop;
  atomic_int at_exit; /* the stop comes from the program's exit */
  int running;        /* Start succeeded, no Stop yet */
  uint64_t samples, decodes;
  /* The sampler thread's own CPU time (its whole cost on the host): at the
   * end of set-up, and the monotonic clock then, so that the stop note can
   * split set-up from the steady cost per second of sampling. */
  uint64_t setup_cpu_ns, sampling_since_mono_ns;
  const char *chosen_by; /* why this device, for the note */
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

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void) {
  return clock_ns(CLOCK_REALTIME);
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

/* Makes the call fn(...) through its looked-up pointer, named on stderr
 * first (GPUWHY_TRACE_PM_VERBOSE) so that a crash names the call it came in;
 * its value is the call's. */
#define NAMED_CALL(fn, ...) (step(#fn), q_##fn(__VA_ARGS__))

/* One step of set_up: on failure a note, and set_up gives up. */
#define CALL(fn, params)                                                                                               \
  do {                                                                                                                 \
    CUptiResult rc_ = NAMED_CALL(fn, params);                                                                          \
    if (rc_ != CUPTI_SUCCESS) {                                                                                        \
      refused(#fn, rc_);                                                                                               \
      return -1;                                                                                                       \
    }                                                                                                                  \
  } while (0)

/* An image of the size CUPTI asked for, or set_up gives up. A size of 0
 * still gets a buffer: calloc(1, 0) may answer NULL, which would read as
 * out of memory. */
#define ALLOC_IMAGE(ptr, bytes)                                                                                        \
  do {                                                                                                                 \
    if (!((ptr) = calloc(1, (bytes) ? (bytes) : 1)))                                                                   \
      return -1;                                                                                                       \
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
  ALLOC_IMAGE(pm.avail_image, avail.counterAvailabilityImageSize);
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
  ALLOC_IMAGE(pm.config_image, size.configImageSize);
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
  ALLOC_IMAGE(pm.counter_data, pm.counter_data_bytes);
  if (init_counter_data() != 0)
    return -1;
  CUpti_PmSampling_Start_Params start = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE,
                                         .pPmSamplingObject = pm.sampler};
  CALL(cuptiPmSamplingStart, &start);
  pm.running = 1;
  pm.setup_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  pm.sampling_since_mono_ns = clock_ns(CLOCK_MONOTONIC);
  gwt_out_note(now_ns(), GW_WIRE_NOTE_INFO, "PM sampling on: device %u (%s, %s), every %u ms", pm.device,
               chip.pChipName ? chip.pChipName : "?", pm.chosen_by, pm.interval_ms);
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
    pm.decodes++;
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
      gw_wire_pm_sample_init(&w, 0);
      w.start_ns = si.startTimestamp;
      w.end_ns = si.endTimestamp < si.startTimestamp ? si.startTimestamp : si.endTimestamp;
      w.device = pm.device;
      w.sm_cycles_active_avg = values[0];
      w.sm_cycles_elapsed_avg = values[1];
      gwt_out_put(&w, sizeof w);
      pm.samples++;
    }
    if (init_counter_data() != 0)
      return -1;
    if (dec.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
      return 0;
  }
}

/* The documented end: Stop, a last decode, Disable, host Deinitialize,
 * each step only when the one before succeeded (what CUPTI still holds is
 * left to it otherwise). CUPTI keeps the config image until Disable
 * (Kineto keeps it as long for that reason, pytorch/kineto#1532), so the
 * images are freed only once Disable and Deinitialize succeeded, and not at
 * exit: the process's end frees them after every exit handler, CUPTI's
 * included. No cuptiProfilerDeInitialize: another CUPTI client in the
 * process may still use the profiler (a double deinitialise is reported to
 * crash). One NOTE says how it ended. */
static void tear_down(void) {
  int at_exit = atomic_load(&pm.at_exit);
  /* read before the teardown's own calls, on this thread (tear_down runs on
   * the sampler thread only) */
  uint64_t cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID), mono_ns = clock_ns(CLOCK_MONOTONIC);
  int stop_rc = -1, disable_rc = -1, host_rc = -1; /* -1: not called */
  if (pm.sampler && pm.running) {
    CUpti_PmSampling_Stop_Params stop = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE,
                                         .pPmSamplingObject = pm.sampler};
    stop_rc = (int)NAMED_CALL(cuptiPmSamplingStop, &stop);
    pm.running = 0;
    if (stop_rc == CUPTI_SUCCESS && pm.counter_data)
      drain();
  }
  if (pm.sampler) {
    CUpti_PmSampling_Disable_Params dis = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
                                           .pPmSamplingObject = pm.sampler};
    disable_rc = (int)NAMED_CALL(cuptiPmSamplingDisable, &dis);
    if (disable_rc == CUPTI_SUCCESS)
      pm.sampler = NULL;
  }
  if (pm.host && !pm.sampler) {
    CUpti_Profiler_Host_Deinitialize_Params hd = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
                                                  .pHostObject = pm.host};
    host_rc = (int)NAMED_CALL(cuptiProfilerHostDeinitialize, &hd);
    if (host_rc == CUPTI_SUCCESS)
      pm.host = NULL;
  }
  if ((!pm.sampler && !pm.host && !at_exit) || (pm.as_before & AS_BEFORE_FREE)) {
    free(pm.counter_data);
    free(pm.config_image);
    free(pm.avail_image);
    pm.counter_data = pm.config_image = pm.avail_image = NULL;
  }
  if (pm.ctx && (!at_exit || (pm.as_before & AS_BEFORE_RELEASE))) {
    NAMED_CALL(cuDevicePrimaryCtxRelease, pm.cu_device);
    pm.ctx = NULL;
  }
  if (stop_rc != -1 || disable_rc != -1) {
    double sampled_s = pm.sampling_since_mono_ns && mono_ns > pm.sampling_since_mono_ns
                           ? (double)(mono_ns - pm.sampling_since_mono_ns) / 1e9
                           : 0.0;
    double steady_cpu_ms = cpu_ns > pm.setup_cpu_ns ? (double)(cpu_ns - pm.setup_cpu_ns) / 1e6 : 0.0;
    gwt_out_note(now_ns(), GW_WIRE_NOTE_INFO,
                 "PM sampling stopped %s: %llu samples in %llu decodes; Stop %d, Disable %d, host deinitialise %d "
                 "(0 is success, -1 not called); sampler thread CPU %.1f ms to set up, then %.2f ms per second over "
                 "%.1f s",
                 at_exit ? "at exit" : "early", (unsigned long long)pm.samples, (unsigned long long)pm.decodes, stop_rc,
                 disable_rc, host_rc, (double)pm.setup_cpu_ns / 1e6, sampled_s > 0 ? steady_cpu_ms / sampled_s : 0.0,
                 sampled_s);
  }
}

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* The device this process works on, once the program has made a context
 * on it: GPUWHY_TRACE_PM_DEVICE when given; else the one device whose
 * primary context is active; with several active, LOCAL_RANK's (a torchrun
 * rank works on cuda:LOCAL_RANK by convention, and may also have touched
 * device 0), else the lowest. -1 while no context exists, -2 when the
 * driver has no such device. Sets pm.device and pm.chosen_by. */
static int pick_device(void) {
  int count = 0;
  if (q_cuDeviceGetCount(&count) != CUDA_SUCCESS || count <= 0)
    return -2;
  if (pm.device_forced && pm.device >= (uint32_t)count)
    return -2;
  int first = -1, active_count = 0;
  for (int d = 0; d < count; d++) {
    CUdevice dev;
    unsigned flags = 0;
    int active = 0;
    if ((pm.device_forced && (uint32_t)d != pm.device) || q_cuDeviceGet(&dev, d) != CUDA_SUCCESS ||
        q_cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS || !active)
      continue;
    active_count++;
    if (first < 0)
      first = d;
    if (!pm.device_forced && d == pm.local_rank) {
      pm.device = (uint32_t)d;
      pm.chosen_by = "the device of LOCAL_RANK";
      return 0;
    }
  }
  if (first < 0)
    return -1;
  pm.device = (uint32_t)first;
  pm.chosen_by = pm.device_forced    ? "GPUWHY_TRACE_PM_DEVICE"
                 : active_count == 1 ? "the device of the program's CUDA context"
                                     : "the lowest of several devices with a context";
  return 0;
}

/* Waits until the program has made a context on its device, then retains
 * it and makes it current here. 0 when it is current; -1 when asked to stop
 * first or the driver refused. */
static int wait_for_context(void) {
  for (;;) {
    int picked = pick_device();
    if (picked == 0)
      break;
    if (picked == -2) {
      gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: no CUDA device %s in this process",
                   pm.device_forced ? "of that number (GPUWHY_TRACE_PM_DEVICE)" : "at all");
      return -1;
    }
    if (atomic_load(&pm.stop))
      return -1;
    sleep_ms(CONTEXT_POLL_MS);
  }
  if (NAMED_CALL(cuDeviceGet, &pm.cu_device, (int)pm.device) != CUDA_SUCCESS) {
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: no CUDA device %u in this process", pm.device);
    return -1;
  }
  if (NAMED_CALL(cuDevicePrimaryCtxRetain, &pm.ctx, pm.cu_device) != CUDA_SUCCESS) {
    pm.ctx = NULL;
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: the device's context could not be retained");
    return -1;
  }
  if (NAMED_CALL(cuCtxSetCurrent, pm.ctx) != CUDA_SUCCESS) {
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: the device's context could not be made current");
    return -1;
  }
  return 0;
}

/* Sleeps ms in 10 ms steps; 1 when asked to stop meanwhile. */
static int wait_or_stop(uint32_t ms) {
  for (uint32_t waited = 0; waited < ms; waited += 10) {
    if (atomic_load(&pm.stop))
      return 1;
    sleep_ms(ms - waited < 10 ? ms - waited : 10);
  }
  return atomic_load(&pm.stop);
}

static void stop_at_exit(void) {
  if (atomic_load(&pm.started))
    step("stop: from an exit handler");
  gwt_pm_sampling_stop();
}

static void *pm_main(void *arg) {
  (void)arg;
  if (!wait_or_stop(pm.delay_ms) && wait_for_context() == 0 && set_up() == 0) {
    /* Exit handlers run last registered first: this one runs before every
     * handler CUDA, CUPTI (whose profiler set_up just initialised) and the
     * program registered so far, while all of them still work. */
    if (!(pm.as_before & AS_BEFORE_ORDER))
      atexit(stop_at_exit);
    while (!wait_or_stop(DECODE_EVERY_MS) && drain() == 0) {
    }
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
  if (!on || strcmp(on, "1") != 0 || !cupti_lib || pm.pid)
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
  pm.device_forced = env_u32("GPUWHY_TRACE_PM_DEVICE", UINT32_MAX, 0, 1023) != UINT32_MAX;
  pm.device = pm.device_forced ? env_u32("GPUWHY_TRACE_PM_DEVICE", 0, 0, 1023) : 0;
  pm.local_rank = (int)env_u32("LOCAL_RANK", UINT32_MAX, 0, 1023);
  const char *before = getenv("GPUWHY_TRACE_PM_EXIT_AS_BEFORE");
  if (before) {
    pm.as_before = (strstr(before, "order") ? AS_BEFORE_ORDER : 0u) | (strstr(before, "free") ? AS_BEFORE_FREE : 0u) |
                   (strstr(before, "release") ? AS_BEFORE_RELEASE : 0u);
    if (pm.as_before)
      gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling ends as the first versions did (%s): for the H200 test",
                   before);
  }
  /* 10 ms: a hundred samples a second, far finer than GPM's 1 s windows,
   * few enough that decoding every 100 ms stays cheap. */
  pm.interval_ms = env_u32("GPUWHY_TRACE_PM_INTERVAL_MS", 10, 1, 10000);
  pm.delay_ms = env_u32("GPUWHY_TRACE_PM_DELAY_MS", 2000, 0, 3600000);
  sigset_t all, old;
  sigfillset(&all);
  /* The fallback, registered before the thread can reach CUPTI: after the
   * tracer's own exit handler, so it runs before it, while the file is open. */
  atexit(stop_at_exit);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pm.pid = getpid();
  atomic_store(&pm.started, 1);
  if (pthread_create(&pm.thread, NULL, pm_main, NULL) != 0) {
    atomic_store(&pm.started, 0);
    gwt_out_note(now_ns(), GW_WIRE_NOTE_WARN, "PM sampling off: no thread for it");
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Idempotent: the first call stops the thread (waiting at most
 * STOP_WAIT_MS), later ones and a forked child's do nothing. */
void gwt_pm_sampling_stop(void) {
  if (getpid() != pm.pid || !atomic_exchange(&pm.started, 0))
    return;
  atomic_store(&pm.at_exit, 1);
  atomic_store(&pm.stop, 1);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += STOP_WAIT_MS / 1000;
  if (pthread_timedjoin_np(pm.thread, NULL, &until) != 0) {
    /* Left running: nothing it uses is freed, and the exit goes on. */
    static const char line[] = "gpuwhy-tracer: the PM sampling thread did not stop within 2 s; exiting without it\n";
    ssize_t ignored = write(STDERR_FILENO, line, sizeof line - 1);
    (void)ignored;
  }
}

/* Called by the Python start-up hook from Python's atexit, before the
 * interpreter and then the C exit handlers tear anything down. */
__attribute__((visibility("default"))) void gpuwhy_tracer_pm_stop(void) {
  if (pm.as_before & AS_BEFORE_ORDER)
    return;
  if (atomic_load(&pm.started))
    step("stop: from Python's atexit (the start-up hook)");
  gwt_pm_sampling_stop();
}
