/* pm_probe: the documented CUPTI PM sampling sequence on a tiny workload
 * launched through the CUDA driver API (no torch, no nvcc: the kernel is
 * PTX), with one line per call (status, time), to learn on a GPU what
 * tracer/pm_sampling.c meets there (issue 22: the traced programs exited
 * with SIGSEGV under record --pm-sampling on the H200).
 *
 * The order follows cupti_pmsampling.h and NVIDIA's pm_sampling sample:
 * profiler initialise, chip name, counter availability (size, then data),
 * host object with that image, metrics, config image and its pass count,
 * Enable on the device, SetConfig, counter data image, Start; a second
 * thread decodes (Decode, GetCounterDataInfo, per sample GetSampleInfo and
 * EvaluateToGpuValues, image re-initialised) while the main thread launches
 * kernels; then Stop, join, a last decode, Disable, host deinitialise.
 *
 * Options choose where that differs from what the tracer does, so that one
 * run a variant bisects the crash:
 *   --ctx first|later      the context exists before PM sampling is set up
 *                          (documented) or is made after (the tracer's
 *                          2 s timer may fire before the program's)
 *   --setup main|thread    set up on the thread with the context current
 *                          (documented) or on a fresh thread without one
 *                          (as the tracer's PM thread)
 *   --activity 0|1         also CUPTI activity records (kernels, devices), as
 *                          the tracer collects beside PM sampling
 *   --finalize-ms N        cuptiFinalize N ms into the run (the tracer's
 *                          sampled mode detaches so between windows)
 *   --trigger time|sysclk  --interval N (ns, or sys clocks)
 *   --buffer-mb N  --max-samples N  --append oldest|latest
 *   --metrics a,b,...      --seconds S  --decode-ms N  --device N
 *   --deinit 0|1           cuptiProfilerDeInitialize at the end
 * A fatal signal prints the step it came in and a backtrace; exit 139.
 * Build: cc -std=gnu11 -O1 -g -I$CUDA/include -Itracer/c_include
 *   tracer/tools/pm_probe.c -L<libcupti dir> -lcupti -lcuda -lpthread -rdynamic */
#define _GNU_SOURCE
#include <cuda.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
  const char *ctx, *setup, *trigger, *append, *metrics;
  int activity, finalize_ms, device, max_samples, decode_ms, deinit;
  double seconds;
  uint64_t interval;
  size_t buffer_mb;
} opt = {"first", "main", "time",   "latest", "sm__cycles_active.avg,sm__cycles_elapsed.avg", 0, 0, 0, 512, 100,
         0,       4.0,    10000000, 64};

static volatile const char *current_step = "start";
static struct timespec t0;
static const char *metric_names[16];
static size_t nmetrics;

static double ms_since_start(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
}

static void on_fatal(int sig) {
  char line[256];
  int n = snprintf(line, sizeof line, "pm_probe: FATAL signal %d (%s) during step %s at %.1f ms\n", sig, strsignal(sig),
                   (const char *)current_step, ms_since_start());
  if (n > 0)
    (void)!write(2, line, (size_t)n);
  void *frames[64];
  int nf = backtrace(frames, 64);
  backtrace_symbols_fd(frames, nf, 2);
  _exit(128 + sig);
}

static const char *cupti_text(CUptiResult rc) {
  const char *s = NULL;
  cuptiGetResultString(rc, &s);
  return s ? s : "?";
}

/* Runs one CUPTI call, names it as the current step, prints its status. */
#define CUPTI(call, ...)                                                                                               \
  ({                                                                                                                   \
    current_step = #call;                                                                                              \
    double a_ = ms_since_start();                                                                                      \
    CUptiResult rc_ = call(__VA_ARGS__);                                                                               \
    printf("[%9.1f ms] %-44s -> %d %s (%.2f ms)\n", a_, #call, (int)rc_, rc_ ? cupti_text(rc_) : "ok",                 \
           ms_since_start() - a_);                                                                                     \
    fflush(stdout);                                                                                                    \
    rc_;                                                                                                               \
  })
#define CU(call, ...)                                                                                                  \
  ({                                                                                                                   \
    current_step = #call;                                                                                              \
    CUresult r_ = call(__VA_ARGS__);                                                                                   \
    if (r_ != CUDA_SUCCESS) {                                                                                          \
      const char *e_ = NULL;                                                                                           \
      cuGetErrorString(r_, &e_);                                                                                       \
      printf("[%9.1f ms] %-44s -> %d %s\n", ms_since_start(), #call, (int)r_, e_ ? e_ : "?");                          \
      fflush(stdout);                                                                                                  \
    }                                                                                                                  \
    r_;                                                                                                                \
  })

/* A spin loop per thread, then one store: enough work to keep SMs busy. */
static const char PTX[] = ".version 7.0\n"
                          ".target sm_70\n"
                          ".address_size 64\n"
                          ".visible .entry spin(.param .u64 out, .param .u32 iters)\n"
                          "{\n"
                          "  .reg .pred %p;\n"
                          "  .reg .b32 %r<9>;\n"
                          "  .reg .b64 %rd<4>;\n"
                          "  ld.param.u64 %rd1, [out];\n"
                          "  ld.param.u32 %r1, [iters];\n"
                          "  mov.u32 %r2, %tid.x;\n"
                          "  mov.u32 %r3, 0;\n"
                          "  mov.u32 %r4, 0;\n"
                          "LOOP:\n"
                          "  add.u32 %r3, %r3, %r2;\n"
                          "  xor.b32 %r3, %r3, %r4;\n"
                          "  add.u32 %r4, %r4, 1;\n"
                          "  setp.lt.u32 %p, %r4, %r1;\n"
                          "  @%p bra LOOP;\n"
                          "  mov.u32 %r5, %ctaid.x;\n"
                          "  mov.u32 %r6, %ntid.x;\n"
                          "  mad.lo.u32 %r7, %r5, %r6, %r2;\n"
                          "  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  mul.wide.u32 %rd3, %r7, 4;\n"
                          "  add.u64 %rd2, %rd2, %rd3;\n"
                          "  st.global.u32 [%rd2], %r3;\n"
                          "  ret;\n"
                          "}\n";

static struct {
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CUdeviceptr out;
  int sms;
} work;

static struct {
  CUpti_Profiler_Host_Object *host;
  CUpti_PmSampling_Object *sampler;
  uint8_t *avail, *config, *data;
  size_t avail_bytes, config_bytes, data_bytes;
  const char *chip;
  int ok;
} pm;

static atomic_int stop_decoding;
static long decoded_samples, decodes;
static double sum_by_metric[16];

static int make_context(CUdevice dev) {
  if (CU(cuDevicePrimaryCtxRetain, &work.ctx, dev) || CU(cuCtxSetCurrent, work.ctx))
    return -1;
  CU(cuDeviceGetAttribute, &work.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  if (CU(cuModuleLoadData, &work.mod, PTX) || CU(cuModuleGetFunction, &work.fn, work.mod, "spin"))
    return -1;
  size_t threads = (size_t)work.sms * 4 * 256;
  if (CU(cuMemAlloc, &work.out, threads * 4))
    return -1;
  printf("[%9.1f ms] context ready: %d SMs\n", ms_since_start(), work.sms);
  return 0;
}

static int launch(unsigned iters) {
  void *args[] = {&work.out, &iters};
  return CU(cuLaunchKernel, work.fn, (unsigned)work.sms * 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL) ? -1 : 0;
}

/* Everything before Start, in the documented order. */
static void *set_up(void *arg) {
  (void)arg;
  CUpti_Profiler_Initialize_Params init = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (CUPTI(cuptiProfilerInitialize, &init))
    return NULL;
  CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
                                          .deviceIndex = (size_t)opt.device};
  if (CUPTI(cuptiDeviceGetChipName, &chip))
    return NULL;
  pm.chip = chip.pChipName;
  printf("             chip %s\n", pm.chip ? pm.chip : "?");
  CUpti_PmSampling_GetCounterAvailability_Params av = {
      .structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE, .deviceIndex = (size_t)opt.device};
  if (CUPTI(cuptiPmSamplingGetCounterAvailability, &av))
    return NULL;
  pm.avail_bytes = av.counterAvailabilityImageSize;
  printf("             counter availability image: %zu bytes\n", pm.avail_bytes);
  pm.avail = calloc(1, pm.avail_bytes ? pm.avail_bytes : 1);
  av.pCounterAvailabilityImage = pm.avail;
  if (CUPTI(cuptiPmSamplingGetCounterAvailability, &av))
    return NULL;
  CUpti_Profiler_Host_Initialize_Params host = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
                                                .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
                                                .pChipName = pm.chip,
                                                .pCounterAvailabilityImage = pm.avail};
  if (CUPTI(cuptiProfilerHostInitialize, &host))
    return NULL;
  pm.host = host.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize =
                                                         CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
                                                     .pHostObject = pm.host,
                                                     .ppMetricNames = metric_names,
                                                     .numMetrics = nmetrics};
  if (CUPTI(cuptiProfilerHostConfigAddMetrics, &add))
    return NULL;
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {
      .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, .pHostObject = pm.host};
  if (CUPTI(cuptiProfilerHostGetConfigImageSize, &size))
    return NULL;
  pm.config_bytes = size.configImageSize;
  pm.config = calloc(1, pm.config_bytes ? pm.config_bytes : 1);
  printf("             config image: %zu bytes\n", pm.config_bytes);
  CUpti_Profiler_Host_GetConfigImage_Params image = {.structSize =
                                                         CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
                                                     .pHostObject = pm.host,
                                                     .configImageSize = pm.config_bytes,
                                                     .pConfigImage = pm.config};
  if (CUPTI(cuptiProfilerHostGetConfigImage, &image))
    return NULL;
  CUpti_Profiler_Host_GetNumOfPasses_Params passes = {.structSize =
                                                          CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
                                                      .configImageSize = pm.config_bytes,
                                                      .pConfigImage = pm.config};
  if (CUPTI(cuptiProfilerHostGetNumOfPasses, &passes))
    return NULL;
  printf("             passes: %zu (PM sampling needs 1)\n", passes.numOfPasses);
  CUpti_PmSampling_Enable_Params en = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE,
                                       .deviceIndex = (size_t)opt.device};
  if (CUPTI(cuptiPmSamplingEnable, &en))
    return NULL;
  pm.sampler = en.pPmSamplingObject;
  CUpti_PmSampling_SetConfig_Params set = {
      .structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
      .pPmSamplingObject = pm.sampler,
      .configSize = pm.config_bytes,
      .pConfig = pm.config,
      .hardwareBufferSize = opt.buffer_mb << 20,
      .samplingInterval = opt.interval,
      .triggerMode = strcmp(opt.trigger, "sysclk") == 0 ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL
                                                        : CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
      .hwBufferAppendMode = strcmp(opt.append, "oldest") == 0
                                ? CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST
                                : CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST};
  if (CUPTI(cuptiPmSamplingSetConfig, &set))
    return NULL;
  CUpti_PmSampling_GetCounterDataSize_Params cds = {.structSize =
                                                        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE,
                                                    .pPmSamplingObject = pm.sampler,
                                                    .pMetricNames = metric_names,
                                                    .numMetrics = nmetrics,
                                                    .maxSamples = (uint32_t)opt.max_samples};
  if (CUPTI(cuptiPmSamplingGetCounterDataSize, &cds))
    return NULL;
  pm.data_bytes = cds.counterDataSize;
  pm.data = calloc(1, pm.data_bytes ? pm.data_bytes : 1);
  printf("             counter data image: %zu bytes for %d samples\n", pm.data_bytes, opt.max_samples);
  CUpti_PmSampling_CounterDataImage_Initialize_Params ini = {
      .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
      .pPmSamplingObject = pm.sampler,
      .counterDataSize = pm.data_bytes,
      .pCounterData = pm.data};
  if (CUPTI(cuptiPmSamplingCounterDataImageInitialize, &ini))
    return NULL;
  CUpti_PmSampling_Start_Params start = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE,
                                         .pPmSamplingObject = pm.sampler};
  if (CUPTI(cuptiPmSamplingStart, &start))
    return NULL;
  pm.ok = 1;
  return NULL;
}

/* One decode pass; prints the first samples of the run. Returns 1 when the
 * hardware buffer may hold more (the image filled up), -1 on failure. */
static int decode_once(int verbose) {
  CUpti_PmSampling_DecodeData_Params dec = {.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE,
                                            .pPmSamplingObject = pm.sampler,
                                            .pCounterDataImage = pm.data,
                                            .counterDataImageSize = pm.data_bytes};
  CUptiResult rc = verbose ? CUPTI(cuptiPmSamplingDecodeData, &dec) : cuptiPmSamplingDecodeData(&dec);
  if (rc != CUPTI_SUCCESS) {
    if (!verbose)
      printf("[%9.1f ms] cuptiPmSamplingDecodeData -> %d %s\n", ms_since_start(), (int)rc, cupti_text(rc));
    return -1;
  }
  CUpti_PmSampling_GetCounterDataInfo_Params info = {.structSize =
                                                         CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE,
                                                     .pCounterDataImage = pm.data,
                                                     .counterDataImageSize = pm.data_bytes};
  current_step = "cuptiPmSamplingGetCounterDataInfo";
  if ((rc = cuptiPmSamplingGetCounterDataInfo(&info)) != CUPTI_SUCCESS) {
    printf("[%9.1f ms] cuptiPmSamplingGetCounterDataInfo -> %d %s\n", ms_since_start(), (int)rc, cupti_text(rc));
    return -1;
  }
  decodes++;
  if (verbose || decodes <= 3)
    printf("[%9.1f ms] decode %ld: stop reason %d, overflow %d, %zu completed samples\n", ms_since_start(), decodes,
           (int)dec.decodeStopReason, (int)dec.overflow, info.numCompletedSamples);
  for (size_t i = 0; i < info.numCompletedSamples; i++) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
        .structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE,
        .pPmSamplingObject = pm.sampler,
        .pCounterDataImage = pm.data,
        .counterDataImageSize = pm.data_bytes,
        .sampleIndex = i};
    current_step = "cuptiPmSamplingCounterDataGetSampleInfo";
    if ((rc = cuptiPmSamplingCounterDataGetSampleInfo(&si)) != CUPTI_SUCCESS) {
      printf("[%9.1f ms] GetSampleInfo(%zu) -> %d %s\n", ms_since_start(), i, (int)rc, cupti_text(rc));
      return -1;
    }
    double v[16] = {0};
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {.structSize =
                                                             CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
                                                         .pHostObject = pm.host,
                                                         .pCounterDataImage = pm.data,
                                                         .counterDataImageSize = pm.data_bytes,
                                                         .rangeIndex = i,
                                                         .ppMetricNames = metric_names,
                                                         .numMetrics = nmetrics,
                                                         .pMetricValues = v};
    current_step = "cuptiProfilerHostEvaluateToGpuValues";
    if ((rc = cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS) {
      printf("[%9.1f ms] EvaluateToGpuValues(%zu) -> %d %s\n", ms_since_start(), i, (int)rc, cupti_text(rc));
      return -1;
    }
    for (size_t m = 0; m < nmetrics; m++)
      sum_by_metric[m] += v[m];
    if (decoded_samples++ < 3) {
      printf("             sample %ld: %llu..%llu ns (%.3f ms)", decoded_samples, (unsigned long long)si.startTimestamp,
             (unsigned long long)si.endTimestamp, (double)(si.endTimestamp - si.startTimestamp) / 1e6);
      for (size_t m = 0; m < nmetrics; m++)
        printf(" %s=%g", metric_names[m], v[m]);
      printf("\n");
    }
  }
  CUpti_PmSampling_CounterDataImage_Initialize_Params ini = {
      .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
      .pPmSamplingObject = pm.sampler,
      .counterDataSize = pm.data_bytes,
      .pCounterData = pm.data};
  current_step = "cuptiPmSamplingCounterDataImageInitialize (reset)";
  if ((rc = cuptiPmSamplingCounterDataImageInitialize(&ini)) != CUPTI_SUCCESS) {
    printf("[%9.1f ms] image reset -> %d %s\n", ms_since_start(), (int)rc, cupti_text(rc));
    return -1;
  }
  fflush(stdout);
  return dec.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
}

static void *decode_loop(void *arg) {
  (void)arg;
  while (!atomic_load(&stop_decoding)) {
    struct timespec ts = {opt.decode_ms / 1000, (long)(opt.decode_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    int more;
    while ((more = decode_once(0)) == 1) {
    }
    if (more < 0)
      return NULL;
  }
  return NULL;
}

/* Activity buffers, as the tracer keeps them: 4 MiB each, records counted. */
static atomic_long activity_records;
static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
  *size = 4u << 20;
  *buf = aligned_alloc(8, *size);
  *max_records = 0;
}
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
  (void)ctx, (void)stream, (void)size;
  CUpti_Activity *rec = NULL;
  while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
    atomic_fetch_add(&activity_records, 1);
  free(buf);
}

static void parse_args(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--ctx"))
      opt.ctx = v;
    else if (!strcmp(k, "--setup"))
      opt.setup = v;
    else if (!strcmp(k, "--activity"))
      opt.activity = atoi(v);
    else if (!strcmp(k, "--finalize-ms"))
      opt.finalize_ms = atoi(v);
    else if (!strcmp(k, "--trigger"))
      opt.trigger = v;
    else if (!strcmp(k, "--interval"))
      opt.interval = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--buffer-mb"))
      opt.buffer_mb = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--max-samples"))
      opt.max_samples = atoi(v);
    else if (!strcmp(k, "--append"))
      opt.append = v;
    else if (!strcmp(k, "--metrics"))
      opt.metrics = v;
    else if (!strcmp(k, "--seconds"))
      opt.seconds = atof(v);
    else if (!strcmp(k, "--decode-ms"))
      opt.decode_ms = atoi(v);
    else if (!strcmp(k, "--device"))
      opt.device = atoi(v);
    else if (!strcmp(k, "--deinit"))
      opt.deinit = atoi(v);
    else {
      fprintf(stderr, "pm_probe: unknown option %s (see the comment at the top of tracer/tools/pm_probe.c)\n", k);
      exit(2);
    }
  }
  static char list[512];
  snprintf(list, sizeof list, "%s", opt.metrics);
  for (char *save = NULL, *m = strtok_r(list, ",", &save); m && nmetrics < 16; m = strtok_r(NULL, ",", &save))
    metric_names[nmetrics++] = m;
}

int main(int argc, char **argv) {
  clock_gettime(CLOCK_MONOTONIC, &t0);
  parse_args(argc, argv);
  signal(SIGSEGV, on_fatal);
  signal(SIGBUS, on_fatal);
  signal(SIGABRT, on_fatal);
  signal(SIGILL, on_fatal);
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint32_t cupti_version = 0;
  cuptiGetVersion(&cupti_version);
  printf("pm_probe: ctx=%s setup=%s activity=%d finalize_ms=%d trigger=%s interval=%llu buffer=%zu MiB "
         "max_samples=%d append=%s metrics=%s seconds=%.1f decode_ms=%d device=%d; CUPTI API %u\n",
         opt.ctx, opt.setup, opt.activity, opt.finalize_ms, opt.trigger, (unsigned long long)opt.interval,
         opt.buffer_mb, opt.max_samples, opt.append, opt.metrics, opt.seconds, opt.decode_ms, opt.device,
         cupti_version);
  if (CU(cuInit, 0))
    return 1;
  CUdevice dev;
  if (CU(cuDeviceGet, &dev, opt.device))
    return 1;
  char name[128] = "?";
  int major = 0, minor = 0, driver = 0;
  cuDeviceGetName(name, sizeof name, dev);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  cuDriverGetVersion(&driver);
  printf("             device %d: %s, CC %d.%d, driver API %d\n", opt.device, name, major, minor, driver);
  CUpti_Profiler_DeviceSupported_Params sup = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
                                               .cuDevice = dev,
                                               .api = CUPTI_PROFILER_PM_SAMPLING};
  if (CUPTI(cuptiProfilerDeviceSupported, &sup) == CUPTI_SUCCESS)
    printf("             supported %d (3 yes): architecture %d, sli %d, vGPU %d, confidential compute %d, cmp %d, "
           "wsl %d\n",
           sup.isSupported, sup.architecture, sup.sli, sup.vGpu, sup.confidentialCompute, sup.cmp, sup.wsl);
  if (opt.activity) {
    CUPTI(cuptiActivityRegisterCallbacks, buffer_requested, buffer_completed);
    CUPTI(cuptiActivityEnable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    CUPTI(cuptiActivityEnable, CUPTI_ACTIVITY_KIND_DEVICE);
  }
  int ctx_first = strcmp(opt.ctx, "later") != 0;
  if (ctx_first && (make_context(dev) != 0 || launch(1000) != 0 || CU(cuCtxSynchronize)))
    return 1;
  if (strcmp(opt.setup, "thread") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, set_up, NULL);
    pthread_join(t, NULL);
  } else {
    set_up(NULL);
  }
  if (!ctx_first && make_context(dev) != 0)
    return 1;
  if (!pm.ok)
    printf("pm_probe: PM sampling not started; the workload runs without it\n");
  pthread_t decoder;
  int decoding = pm.ok && pthread_create(&decoder, NULL, decode_loop, NULL) == 0;
  long launches = 0;
  int finalized = 0;
  current_step = "workload (kernel launches on the main thread)";
  while (ms_since_start() < opt.seconds * 1e3) {
    if (launch(20000) != 0)
      break;
    if (++launches % 20 == 0 && CU(cuCtxSynchronize))
      break;
    if (opt.finalize_ms > 0 && !finalized && ms_since_start() >= opt.finalize_ms) {
      if (opt.activity)
        CUPTI(cuptiActivityFlushAll, 1);
      CUPTI(cuptiFinalize);
      finalized = 1;
      current_step = "workload after cuptiFinalize";
    }
  }
  CU(cuCtxSynchronize);
  printf("[%9.1f ms] workload done: %ld launches\n", ms_since_start(), launches);
  if (pm.ok) {
    CUpti_PmSampling_Stop_Params stop = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE,
                                         .pPmSamplingObject = pm.sampler};
    CUPTI(cuptiPmSamplingStop, &stop);
  }
  atomic_store(&stop_decoding, 1);
  if (decoding)
    pthread_join(decoder, NULL);
  if (pm.ok) {
    current_step = "last decode";
    while (decode_once(1) == 1) {
    }
  }
  if (pm.sampler) {
    CUpti_PmSampling_Disable_Params dis = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
                                           .pPmSamplingObject = pm.sampler};
    CUPTI(cuptiPmSamplingDisable, &dis);
  }
  if (pm.host) {
    CUpti_Profiler_Host_Deinitialize_Params hd = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
                                                  .pHostObject = pm.host};
    CUPTI(cuptiProfilerHostDeinitialize, &hd);
  }
  if (opt.deinit) {
    CUpti_Profiler_DeInitialize_Params d = {.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
    CUPTI(cuptiProfilerDeInitialize, &d);
  }
  if (opt.activity && !finalized)
    CUPTI(cuptiActivityFlushAll, 1);
  printf("pm_probe: %ld samples in %ld decodes", decoded_samples, decodes);
  for (size_t m = 0; m < nmetrics && decoded_samples; m++)
    printf(", mean %s %g", metric_names[m], sum_by_metric[m] / (double)decoded_samples);
  if (nmetrics >= 2 && sum_by_metric[1] > 0)
    printf(", SM active share %.3f", sum_by_metric[0] / sum_by_metric[1]);
  printf("; %ld activity records\n", (long)atomic_load(&activity_records));
  printf("PROBE %s\n", pm.ok ? "OK" : "NO-PM");
  return 0;
}
