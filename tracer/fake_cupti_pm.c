/* CUPTI PM sampling and the few CUDA driver calls the tracer's sampler
 * makes, for a second fake libcupti (libcupti-fake-pm.so, fake_cupti.c plus
 * this file) on which tracer/pm_sampling.c runs without a GPU. It behaves
 * as the real API does where a client's mistake would corrupt memory, so
 * that a sanitizer build of the tracer sees the mistake:
 *   - the config image given to cuptiPmSamplingSetConfig is not copied: it
 *     is read again at Start, every decode, Stop and Disable (Kineto's
 *     CuptiPMSamplingApi keeps it until Disable because CUPTI keeps the
 *     pConfig pointer; freeing it earlier hung or crashed there,
 *     pytorch/kineto#1532);
 *   - the counter data image is written over its whole size, the size
 *     cuptiPmSamplingGetCounterDataSize gave, at initialisation and decode;
 *   - the sampler and host objects are heap objects freed by Disable and
 *     Deinitialize, so a call with a stale one is a use after free;
 *   - the PM state is torn down by an exit handler registered at the first
 *     cuptiProfilerInitialize, as a library's state made on first use is
 *     destroyed by a handler registered then: at exit it disables a sampler
 *     still enabled and frees it. Exit handlers run last registered first,
 *     so a client that stops its sampler in a handler registered before its
 *     first cuptiProfilerInitialize (the tracer's first version, at CUDA's
 *     start) meets a freed sampler.
 * Samples "happen" every sampling interval of wall time while started; each
 * carries sm__cycles_elapsed.avg = interval_ns * 1.98 (a 1.98 GHz clock)
 * and sm__cycles_active.avg = FAKE_PM_ACTIVE_PCT percent of it (default 50).
 * Driver side: FAKE_CUDA_DEVICES devices (default 1); the primary contexts
 * of the devices in the bit mask FAKE_CUDA_ACTIVE_MASK (default 1: device 0)
 * are active. The exit teardown says on
 * stderr when it found a sampler still enabled. */
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

#define AVAILABILITY_IMAGE_BYTES 9184u /* what the H200 reported (pm_probe) */
#define CONFIG_IMAGE_BYTES 1344u       /* the same, for two metrics */
#define MAX_METRICS 8u
#define IMAGE_MAGIC 0x4657504du

struct host_object {
  uint32_t magic;
  size_t metrics;
};

struct sampler_object {
  uint32_t magic;
  size_t device;
  const uint8_t *config; /* the caller's, not copied */
  size_t config_bytes;
  uint8_t config_sum; /* what the config held at SetConfig */
  uint64_t interval_ns;
  int started;
  uint64_t next_sample_ns; /* start of the next sample not yet decoded */
};

/* The counter data image: this header, then capacity samples. */
struct image_header {
  uint32_t magic;
  uint32_t metrics;
  uint32_t capacity;
  uint32_t count;
};
struct image_sample {
  uint64_t start_ns, end_ns;
  double values[]; /* metrics of them */
};

static pthread_mutex_t pm_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct sampler_object *enabled; /* one sampler per process (one device here) */
static int profiler_initialized, exit_handler_registered;
static atomic_int retained_contexts;

/* From fake_cupti.c, built into the same library. */
__attribute__((visibility("hidden"))) unsigned env_unsigned(const char *name, unsigned fallback);
__attribute__((visibility("hidden"))) uint64_t realtime_ns(void);

static size_t sample_bytes(size_t metrics) {
  return sizeof(struct image_sample) + metrics * sizeof(double);
}

/* Reads every byte of the retained config image, as the real sampler uses
 * it; 0 when it still holds what SetConfig saw. */
static int config_intact(const struct sampler_object *s) {
  uint8_t sum = 0;
  for (size_t i = 0; i < s->config_bytes; i++)
    sum = (uint8_t)(sum + s->config[i]);
  return sum == s->config_sum ? 0 : -1;
}

static CUptiResult check_sampler(const struct sampler_object *s) {
  if (!s || s->magic != IMAGE_MAGIC) /* a freed one is caught by the sanitizer first */
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (s->config && config_intact(s) != 0)
    return CUPTI_ERROR_INVALID_OPERATION;
  return CUPTI_SUCCESS;
}

/* The library's PM state destroyed at exit: a sampler still enabled is
 * disabled and freed under whoever holds it. */
static void pm_state_at_exit(void) {
  pthread_mutex_lock(&pm_mutex);
  if (enabled) {
    static const char line[] = "fake-cupti: a PM sampler still enabled at exit was freed under its client\n";
    ssize_t ignored = write(STDERR_FILENO, line, sizeof line - 1);
    (void)ignored;
    config_intact(enabled);
    memset(enabled, 0, sizeof *enabled);
    free(enabled);
    enabled = NULL;
  }
  profiler_initialized = 0;
  pthread_mutex_unlock(&pm_mutex);
}

FAKE_EXPORT CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Initialize_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock(&pm_mutex);
  profiler_initialized = 1;
  int first = !exit_handler_registered;
  exit_handler_registered = 1;
  pthread_mutex_unlock(&pm_mutex);
  if (first)
    atexit(pm_state_at_exit);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->isSupported = p->architecture = p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl =
      CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p) {
  if (!p || p->structSize < CUpti_Device_GetChipName_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingGetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!p->pCounterAvailabilityImage) {
    p->counterAvailabilityImageSize = AVAILABILITY_IMAGE_BYTES;
    return CUPTI_SUCCESS;
  }
  if (p->counterAvailabilityImageSize < AVAILABILITY_IMAGE_BYTES)
    return CUPTI_ERROR_INVALID_PARAMETER;
  memset(p->pCounterAvailabilityImage, 0xa5, AVAILABILITY_IMAGE_BYTES);
  return CUPTI_SUCCESS;
}

/* The host object copies what it needs of the availability image (Kineto
 * frees that image right after this call). */
FAKE_EXPORT CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE || !p->pChipName)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (p->pCounterAvailabilityImage && p->pCounterAvailabilityImage[AVAILABILITY_IMAGE_BYTES - 1] != 0xa5)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct host_object *h = calloc(1, sizeof *h);
  if (!h)
    return CUPTI_ERROR_OUT_OF_MEMORY;
  h->magic = IMAGE_MAGIC;
  p->pHostObject = (CUpti_Profiler_Host_Object *)h;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE || !p->pHostObject)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct host_object *h = (struct host_object *)p->pHostObject;
  if (h->magic != IMAGE_MAGIC)
    return CUPTI_ERROR_INVALID_PARAMETER;
  h->magic = 0;
  free(h);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE || !p->pHostObject)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct host_object *h = (struct host_object *)p->pHostObject;
  if (h->magic != IMAGE_MAGIC || p->numMetrics == 0 || h->metrics + p->numMetrics > MAX_METRICS)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < p->numMetrics; i++)
    if (!p->ppMetricNames[i] || strncmp(p->ppMetricNames[i], "sm__", 4) != 0)
      return CUPTI_ERROR_INVALID_METRIC_NAME;
  h->metrics += p->numMetrics;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE || !p->pHostObject)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->configImageSize = CONFIG_IMAGE_BYTES;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE || !p->pHostObject ||
      p->configImageSize < CONFIG_IMAGE_BYTES || !p->pConfigImage)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < CONFIG_IMAGE_BYTES; i++)
    p->pConfigImage[i] = (uint8_t)(i * 7u + 3u);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p) {
  if (!p || p->structSize < CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE || !p->pConfigImage ||
      p->configImageSize < CONFIG_IMAGE_BYTES)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->numOfPasses = env_unsigned("FAKE_PM_PASSES", 1);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_Enable_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (env_unsigned("FAKE_PM_ENABLE_RC", 0))
    return (CUptiResult)env_unsigned("FAKE_PM_ENABLE_RC", 0);
  pthread_mutex_lock(&pm_mutex);
  CUptiResult rc = CUPTI_SUCCESS;
  if (!profiler_initialized)
    rc = CUPTI_ERROR_NOT_INITIALIZED;
  else if (enabled)
    rc = CUPTI_ERROR_INVALID_OPERATION; /* documented: a second Enable on a device */
  else if (!(enabled = calloc(1, sizeof *enabled)))
    rc = CUPTI_ERROR_OUT_OF_MEMORY;
  if (rc == CUPTI_SUCCESS) {
    enabled->magic = IMAGE_MAGIC;
    enabled->device = p->deviceIndex;
    p->pPmSamplingObject = (CUpti_PmSampling_Object *)enabled;
  }
  pthread_mutex_unlock(&pm_mutex);
  return rc;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_Disable_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct sampler_object *s = (struct sampler_object *)p->pPmSamplingObject;
  CUptiResult rc = check_sampler(s);
  if (rc != CUPTI_SUCCESS)
    return rc;
  pthread_mutex_lock(&pm_mutex);
  if (enabled == s)
    enabled = NULL;
  pthread_mutex_unlock(&pm_mutex);
  memset(s, 0, sizeof *s);
  free(s);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE || !p->pConfig ||
      p->configSize < CONFIG_IMAGE_BYTES || p->samplingInterval == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct sampler_object *s = (struct sampler_object *)p->pPmSamplingObject;
  CUptiResult rc = check_sampler(s);
  if (rc != CUPTI_SUCCESS)
    return rc;
  s->config = p->pConfig;
  s->config_bytes = p->configSize;
  s->config_sum = 0;
  for (size_t i = 0; i < p->configSize; i++)
    s->config_sum = (uint8_t)(s->config_sum + p->pConfig[i]);
  s->interval_ns = p->triggerMode == CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL ? p->samplingInterval
                                                                                      : p->samplingInterval / 2;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE || p->numMetrics == 0 ||
      p->numMetrics > MAX_METRICS || p->maxSamples == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  CUptiResult rc = check_sampler((struct sampler_object *)p->pPmSamplingObject);
  if (rc != CUPTI_SUCCESS)
    return rc;
  p->counterDataSize = sizeof(struct image_header) + (size_t)p->maxSamples * sample_bytes(p->numMetrics);
  return CUPTI_SUCCESS;
}

/* The whole image is written: a caller that allocated less than the size it
 * was given is caught here. */
FAKE_EXPORT CUptiResult
cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE || !p->pCounterData ||
      p->counterDataSize < sizeof(struct image_header))
    return CUPTI_ERROR_INVALID_PARAMETER;
  CUptiResult rc = check_sampler((struct sampler_object *)p->pPmSamplingObject);
  if (rc != CUPTI_SUCCESS)
    return rc;
  memset(p->pCounterData, 0, p->counterDataSize);
  /* Two metrics, as the tracer asks for; capacity from the size given. */
  struct image_header h = {IMAGE_MAGIC, 2, 0, 0};
  h.capacity = (uint32_t)((p->counterDataSize - sizeof h) / sample_bytes(h.metrics));
  memcpy(p->pCounterData, &h, sizeof h);
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingStart(CUpti_PmSampling_Start_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_Start_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct sampler_object *s = (struct sampler_object *)p->pPmSamplingObject;
  CUptiResult rc = check_sampler(s);
  if (rc != CUPTI_SUCCESS)
    return rc;
  if (s->started || !s->config)
    return CUPTI_ERROR_INVALID_OPERATION;
  s->started = 1;
  s->next_sample_ns = realtime_ns();
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_Stop_Params_STRUCT_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct sampler_object *s = (struct sampler_object *)p->pPmSamplingObject;
  CUptiResult rc = check_sampler(s);
  if (rc != CUPTI_SUCCESS)
    return rc;
  if (!s->started)
    return CUPTI_ERROR_INVALID_OPERATION;
  s->started = 0;
  return CUPTI_SUCCESS;
}

/* Moves the samples completed since the last decode into the image, as many
 * as fit; COUNTER_DATA_FULL when more are waiting. */
FAKE_EXPORT CUptiResult cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params *p) {
  if (!p || p->structSize < CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE || !p->pCounterDataImage)
    return CUPTI_ERROR_INVALID_PARAMETER;
  struct sampler_object *s = (struct sampler_object *)p->pPmSamplingObject;
  CUptiResult rc = check_sampler(s);
  if (rc != CUPTI_SUCCESS)
    return rc;
  struct image_header h;
  memcpy(&h, p->pCounterDataImage, sizeof h);
  if (h.magic != IMAGE_MAGIC || sizeof h + (size_t)h.capacity * sample_bytes(h.metrics) > p->counterDataImageSize)
    return CUPTI_ERROR_INVALID_PARAMETER;
  uint64_t now = realtime_ns();
  p->overflow = 0;
  p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
  double active_share = env_unsigned("FAKE_PM_ACTIVE_PCT", 50) / 100.0;
  while (s->next_sample_ns && s->next_sample_ns + s->interval_ns <= now) {
    if (h.count == h.capacity) {
      p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
      break;
    }
    uint8_t *at = p->pCounterDataImage + sizeof h + (size_t)h.count * sample_bytes(h.metrics);
    struct image_sample *smp = (struct image_sample *)at;
    smp->start_ns = s->next_sample_ns;
    smp->end_ns = s->next_sample_ns + s->interval_ns;
    double elapsed_cycles = (double)s->interval_ns * 1.98;
    smp->values[0] = elapsed_cycles * active_share;
    smp->values[1] = elapsed_cycles;
    s->next_sample_ns += s->interval_ns;
    h.count++;
  }
  if (!s->started && p->decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS)
    s->next_sample_ns = 0; /* stopped: what is left was decoded */
  memcpy(p->pCounterDataImage, &h, sizeof h);
  return CUPTI_SUCCESS;
}

static CUptiResult image_header_of(const uint8_t *image, size_t bytes, struct image_header *h) {
  if (!image || bytes < sizeof *h)
    return CUPTI_ERROR_INVALID_PARAMETER;
  memcpy(h, image, sizeof *h);
  return h->magic == IMAGE_MAGIC ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p) {
  struct image_header h;
  if (!p || p->structSize < CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE ||
      image_header_of(p->pCounterDataImage, p->counterDataImageSize, &h) != CUPTI_SUCCESS)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->numTotalSamples = h.capacity;
  p->numPopulatedSamples = p->numCompletedSamples = h.count;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p) {
  struct image_header h;
  if (!p || p->structSize < CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE ||
      image_header_of(p->pCounterDataImage, p->counterDataImageSize, &h) != CUPTI_SUCCESS || p->sampleIndex >= h.count)
    return CUPTI_ERROR_INVALID_PARAMETER;
  CUptiResult rc = check_sampler((const struct sampler_object *)p->pPmSamplingObject);
  if (rc != CUPTI_SUCCESS)
    return rc;
  const struct image_sample *smp =
      (const struct image_sample *)(p->pCounterDataImage + sizeof h + p->sampleIndex * sample_bytes(h.metrics));
  p->startTimestamp = smp->start_ns;
  p->endTimestamp = smp->end_ns;
  return CUPTI_SUCCESS;
}

FAKE_EXPORT CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p) {
  struct image_header h;
  if (!p || p->structSize < CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE || !p->pHostObject ||
      image_header_of(p->pCounterDataImage, p->counterDataImageSize, &h) != CUPTI_SUCCESS || p->rangeIndex >= h.count ||
      p->numMetrics == 0 || p->numMetrics > h.metrics || !p->pMetricValues)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (((const struct host_object *)p->pHostObject)->magic != IMAGE_MAGIC)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const struct image_sample *smp =
      (const struct image_sample *)(p->pCounterDataImage + sizeof h + p->rangeIndex * sample_bytes(h.metrics));
  for (size_t m = 0; m < p->numMetrics; m++)
    p->pMetricValues[m] = smp->values[m];
  return CUPTI_SUCCESS;
}

/* ---- the CUDA driver calls of the sampler -------------------------------- */

/* cuda.h renames it to the _v2 symbol; the tracer looks the plain name up. */
#undef cuDevicePrimaryCtxRelease

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  *count = (int)env_unsigned("FAKE_CUDA_DEVICES", 1);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= (int)env_unsigned("FAKE_CUDA_DEVICES", 1))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int *flags, int *active) {
  *flags = 0;
  *active = device >= 0 && device < 32 && (env_unsigned("FAKE_CUDA_ACTIVE_MASK", 1) >> device & 1u);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device) {
  *ctx = (CUcontext)(uintptr_t)(0x1000u + (unsigned)device);
  atomic_fetch_add(&retained_contexts, 1);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  (void)device;
  atomic_fetch_sub(&retained_contexts, 1);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  (void)ctx;
  return CUDA_SUCCESS;
}
