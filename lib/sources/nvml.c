/* GPU source: NVML loaded with dlopen. We declare only the NVML types we use
 * (layouts and values as in NVIDIA's nvml.h: see nvml_abi.h), ask for the
 * versioned symbol names, and treat every symbol but the core five as
 * optional: a missing symbol or NOT_SUPPORTED leaves its metric invalid. */
#include "nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

#include "clock_reasons.h"
#include "nvml_abi.h"

/* Every symbol we look up: required ones first. */
#define NVML_REQUIRED_SYMBOLS(X)                                                                                       \
  X(nvmlInit_v2, (void))                                                                                               \
  X(nvmlShutdown, (void))                                                                                              \
  X(nvmlDeviceGetCount_v2, (unsigned *))                                                                               \
  X(nvmlDeviceGetHandleByIndex_v2, (unsigned, nvmlDevice_t *))

#define NVML_OPTIONAL_SYMBOLS(X)                                                                                       \
  X(nvmlSystemGetDriverVersion, (char *, unsigned))                                                                    \
  X(nvmlSystemGetNVMLVersion, (char *, unsigned))                                                                      \
  X(nvmlSystemGetCudaDriverVersion_v2, (int *))                                                                        \
  X(nvmlSystemGetCudaDriverVersion, (int *))                                                                           \
  X(nvmlDeviceGetName, (nvmlDevice_t, char *, unsigned))                                                               \
  X(nvmlDeviceGetUUID, (nvmlDevice_t, char *, unsigned))                                                               \
  X(nvmlDeviceGetPciInfo_v3, (nvmlDevice_t, nvmlPciInfo_t *))                                                          \
  X(nvmlDeviceGetMemoryInfo, (nvmlDevice_t, nvmlMemory_t *))                                                           \
  X(nvmlDeviceGetMemoryInfo_v2, (nvmlDevice_t, nvmlMemory_v2_t *))                                                     \
  X(nvmlDeviceGetPowerManagementDefaultLimit, (nvmlDevice_t, unsigned *))                                              \
  X(nvmlDeviceGetPowerManagementLimitConstraints, (nvmlDevice_t, unsigned *, unsigned *))                              \
  X(nvmlDeviceGetMaxClockInfo, (nvmlDevice_t, int, unsigned *))                                                        \
  X(nvmlDeviceGetGpuMaxPcieLinkGeneration, (nvmlDevice_t, unsigned *))                                                 \
  X(nvmlDeviceGetMaxPcieLinkGeneration, (nvmlDevice_t, unsigned *))                                                    \
  X(nvmlDeviceGetMaxPcieLinkWidth, (nvmlDevice_t, unsigned *))                                                         \
  X(nvmlDeviceGetTemperatureThreshold, (nvmlDevice_t, int, unsigned *))                                                \
  X(nvmlDeviceGetMigMode, (nvmlDevice_t, unsigned *, unsigned *))                                                      \
  X(nvmlDeviceGetPersistenceMode, (nvmlDevice_t, int *))                                                               \
  X(nvmlDeviceGetComputeMode, (nvmlDevice_t, int *))                                                                   \
  X(nvmlDeviceGetEccMode, (nvmlDevice_t, int *, int *))                                                                \
  X(nvmlDeviceGetSupportedClocksEventReasons, (nvmlDevice_t, unsigned long long *))                                    \
  X(nvmlDeviceGetSupportedClocksThrottleReasons, (nvmlDevice_t, unsigned long long *))                                 \
  X(nvmlDeviceGetSamples, (nvmlDevice_t, int, unsigned long long, int *, unsigned *, nvmlSample_t *))                  \
  X(nvmlDeviceGetUtilizationRates, (nvmlDevice_t, nvmlUtilization_t *))                                                \
  X(nvmlDeviceGetPowerUsage, (nvmlDevice_t, unsigned *))                                                               \
  X(nvmlDeviceGetTotalEnergyConsumption, (nvmlDevice_t, unsigned long long *))                                         \
  X(nvmlDeviceGetPerformanceState, (nvmlDevice_t, int *))                                                              \
  X(nvmlDeviceGetClockInfo, (nvmlDevice_t, int, unsigned *))                                                           \
  X(nvmlDeviceGetCurrentClocksEventReasons, (nvmlDevice_t, unsigned long long *))                                      \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, (nvmlDevice_t, unsigned long long *))                                   \
  X(nvmlDeviceGetPcieThroughput, (nvmlDevice_t, int, unsigned *))                                                      \
  X(nvmlDeviceGetEnforcedPowerLimit, (nvmlDevice_t, unsigned *))                                                       \
  X(nvmlDeviceGetTemperatureV, (nvmlDevice_t, nvmlTemperature_v1_t *))                                                 \
  X(nvmlDeviceGetTemperature, (nvmlDevice_t, int, unsigned *))                                                         \
  X(nvmlDeviceGetFieldValues, (nvmlDevice_t, int, nvmlFieldValue_t *))                                                 \
  X(nvmlDeviceGetCurrPcieLinkGeneration, (nvmlDevice_t, unsigned *))                                                   \
  X(nvmlDeviceGetCurrPcieLinkWidth, (nvmlDevice_t, unsigned *))                                                        \
  X(nvmlDeviceGetPcieReplayCounter, (nvmlDevice_t, unsigned *))                                                        \
  X(nvmlDeviceGetTotalEccErrors, (nvmlDevice_t, int, int, unsigned long long *))                                       \
  X(nvmlDeviceGetRemappedRows, (nvmlDevice_t, unsigned *, unsigned *, unsigned *, unsigned *))                         \
  X(nvmlDeviceGetComputeRunningProcesses_v3, (nvmlDevice_t, unsigned *, nvmlProcessInfo_t *))                          \
  X(nvmlDeviceGetGraphicsRunningProcesses_v3, (nvmlDevice_t, unsigned *, nvmlProcessInfo_t *))                         \
  X(nvmlDeviceGetProcessUtilization, (nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned *, unsigned long long)) \
  X(nvmlGpmQueryDeviceSupport, (nvmlDevice_t, nvmlGpmSupport_t *))                                                     \
  X(nvmlGpmSampleAlloc, (nvmlGpmSample_t *))                                                                           \
  X(nvmlGpmSampleFree, (nvmlGpmSample_t))                                                                              \
  X(nvmlGpmSampleGet, (nvmlDevice_t, nvmlGpmSample_t))                                                                 \
  X(nvmlGpmMetricsGet, (nvmlGpmMetricsGet_t *))

struct nvml_api {
  const char *(*nvmlErrorString)(nvmlReturn_t);
#define X(name, args) nvmlReturn_t(*name) args;
  NVML_REQUIRED_SYMBOLS(X)
  NVML_OPTIONAL_SYMBOLS(X)
#undef X
};

/* ---- per-GPU state ---- */

/* One bit per NVML call: set once the call said it cannot work on this GPU,
 * so we stop paying for it every tick. */
enum nvml_call {
  C_SAMPLES_GPU,
  C_SAMPLES_MEM,
  C_UTIL_RATES,
  C_MEM_V2,
  C_MEM_V1,
  C_POWER,
  C_ENERGY,
  C_PSTATE,
  C_SM_CLOCK,
  C_MEM_CLOCK,
  C_REASONS_EVENT,
  C_REASONS_THROTTLE,
  C_PCIE_TX,
  C_PCIE_RX,
  C_GPM_SAMPLE,
  C_GPM_METRICS,
  C_POWER_LIMIT,
  C_TEMP_V,
  C_TEMP,
  C_FIELDS,
  C_PCIE_GEN,
  C_PCIE_WIDTH,
  C_PCIE_REPLAY,
  C_ECC_SBE,
  C_ECC_DBE,
  C_REMAP,
  C_PROCS_COMPUTE,
  C_PROCS_GRAPHICS,
  C_PROC_UTIL,
};

#define GPM_RING 3
#define GPM_MIN_WINDOW_NS 100000000LL  /* GPM needs samples >100 ms apart */
#define UTIL_POINT_READ_NS 300000000LL /* faster ticks read utilization point-wise */
#define GPM_TICK_SLACK_NS 20000000LL   /* a tick may come this early and still close a window */
#define MIB 1048576.0

struct gpm_slot {
  nvmlGpmSample_t sample;
  int64_t t_ns;
  int filled;
};

struct nvml_gpu {
  nvmlDevice_t dev;
  char pci_bus_id[32];
  uint64_t unsupported; /* bit (1 << enum nvml_call) */
  int lost;             /* the driver said GPU_IS_LOST, or no handle */
  int lost_reported;    /* the gpu_lost event went out */
  nvmlReturn_t info_rc; /* what the last static-fact call returned */
  char lost_why[160];

  unsigned long long util_last_seen_us[2]; /* GPU_UTIL, MEM_UTIL */
  double util_last_pct[2];                 /* the value those samples gave */
  int64_t util_last_t_ns;                  /* tick of the last utilization read */

  int gpm_supported;
  struct gpm_slot gpm[GPM_RING];
  unsigned gpm_next;
  uint32_t gpm_metric_unsupported; /* bit per entry of gpm_map */
  uint32_t field_unsupported;      /* bit per entry of slow_fields */

  int have_reasons;
  unsigned long long last_reasons;

  unsigned long long proc_util_last_seen_us;
};

struct gw_nvml {
  void *lib;
  struct nvml_api api;
  unsigned ngpus;
  struct nvml_gpu *gpus;
  struct gw_driver_info driver;
  nvmlGpmMetricsGet_t *gpm_req; /* one request buffer, reused */
  nvmlSample_t *samples;        /* GetSamples scratch */
  unsigned samples_cap;
  nvmlProcessInfo_t *procs; /* running-process scratch */
  unsigned procs_cap;
  nvmlProcessUtilizationSample_t *putil; /* per-process utilization scratch */
  unsigned putil_cap;
  int64_t gpm_window_ns; /* GPM metrics over back-to-back windows this long */
};

/* GPM metric ids (nvmlGpmMetricId_t) and where they land. */
static const struct {
  unsigned id;
  enum gw_gpu_metric metric;
  double scale;
} gpm_map[] = {
    /* Not graphics activity (id 1): alone it costs 1.4 ms of CPU per
     * computation on an H200, where the ten below cost 0.05 ms together
     * (bench/sampler/nvml_cost), and SM activity says more. */
    {2, GW_M_sm_active_pct, 1.0},  {3, GW_M_sm_occupancy_pct, 1.0}, {5, GW_M_tensor_active_pct, 1.0},
    {10, GW_M_dram_bw_pct, 1.0},   {12, GW_M_fp32_active_pct, 1.0}, {13, GW_M_fp16_active_pct, 1.0},
    {20, GW_M_pcie_tx_bps, MIB},   {21, GW_M_pcie_rx_bps, MIB},     {60, GW_M_nvlink_rx_bps, MIB},
    {61, GW_M_nvlink_tx_bps, MIB},
};
#define GPM_NMAP (sizeof gpm_map / sizeof gpm_map[0])

/* Field values read with GetFieldValues: once a second, or (rare) only with
 * GW_NVML_RARE. The two HW slowdown counters cost about 0.6 ms of CPU per
 * read on an H200 (bench/sampler/nvml_cost) while the others are nearly free;
 * the clock-reason bits, read every tick, still show HW slowdowns as they
 * happen. */
static const struct {
  unsigned id;
  enum gw_gpu_metric metric;
  int rare;
} slow_fields[] = {
    {82, GW_M_temp_mem_c, 0},              /* MEMORY_TEMP */
    {74, GW_M_viol_power_cap_ns, 0},       /* PERF_POLICY_POWER */
    {76, GW_M_viol_sync_boost_ns, 0},      /* PERF_POLICY_SYNC_BOOST */
    {269, GW_M_viol_sw_thermal_ns, 0},     /* CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN */
    {270, GW_M_viol_hw_thermal_ns, 1},     /* ..._HW_THERM_SLOWDOWN */
    {271, GW_M_viol_hw_power_brake_ns, 1}, /* ..._HW_POWER_BRAKE_SLOWDOWN */
};
#define SLOW_NFIELDS (sizeof slow_fields / sizeof slow_fields[0])

/* ---- small helpers ---- */

static const char *nvml_errstr(const struct gw_nvml *nv, nvmlReturn_t r) {
  const char *s = nv->api.nvmlErrorString ? nv->api.nvmlErrorString(r) : NULL;
  return s ? s : "unknown NVML error";
}

static int call_usable(const struct nvml_gpu *g, enum nvml_call c) {
  return !g->lost && !((g->unsupported >> c) & 1);
}

/* Errors that will not go away by asking again on this GPU. */
static int is_permanent(nvmlReturn_t r) {
  return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_NO_PERMISSION || r == NVML_ERROR_FUNCTION_NOT_FOUND ||
         r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH || r == NVML_ERROR_DEPRECATED;
}

static void mark_lost(struct nvml_gpu *g, const char *what) {
  if (g->lost)
    return;
  g->lost = 1;
  snprintf(g->lost_why, sizeof g->lost_why, "%s returned GPU is lost", what);
}

/* Book-keeping after one NVML call: 1 when it succeeded. Other failures
 * (TIMEOUT, UNKNOWN, ...) just leave the metric invalid for this tick. */
static int call_ok(struct nvml_gpu *g, enum nvml_call c, const char *what, nvmlReturn_t r) {
  if (r == NVML_SUCCESS)
    return 1;
  if (r == NVML_ERROR_GPU_IS_LOST)
    mark_lost(g, what);
  else if (is_permanent(r))
    g->unsupported |= (uint64_t)1 << c;
  return 0;
}

/* Call an optional device function with the bookkeeping above; yields 1 on
 * success. */
#define NVCALL(nv, g, c, fn, ...)                                                                                      \
  ((nv)->api.fn && call_usable((g), (c)) ? call_ok((g), (c), #fn, (nv)->api.fn((g)->dev, __VA_ARGS__)) : 0)

/* Static facts are read once: no unsupported mask, only the lost check. */
static int info_ok(struct nvml_gpu *g, const char *what, nvmlReturn_t r) {
  g->info_rc = r;
  if (r == NVML_ERROR_GPU_IS_LOST)
    mark_lost(g, what);
  return r == NVML_SUCCESS;
}
/* Read once, so a transient error (TIMEOUT, UNKNOWN) gets a second try:
 * otherwise the GPU would stay nameless, and its Xids unmatched, all run. */
static int info_again(const struct nvml_gpu *g) {
  return !g->lost && !is_permanent(g->info_rc);
}
#define INFOCALL(nv, g, fn, ...)                                                                                       \
  ((nv)->api.fn && !(g)->lost ? info_ok((g), #fn, (nv)->api.fn((g)->dev, __VA_ARGS__)) ||                              \
                                    (info_again(g) && info_ok((g), #fn, (nv)->api.fn((g)->dev, __VA_ARGS__)))          \
                              : 0)

static int value_to_double(int type, nvmlValue_t v, double *out) {
  switch (type) {
  case NVML_VALUE_DOUBLE:
    if (!isfinite(v.dVal))
      return 0;
    *out = v.dVal;
    return 1;
  case NVML_VALUE_UINT:
    *out = v.uiVal;
    return 1;
  case NVML_VALUE_ULONG:
    *out = (double)v.ulVal;
    return 1;
  case NVML_VALUE_ULL:
    *out = (double)v.ullVal;
    return 1;
  case NVML_VALUE_SLL:
    *out = (double)v.sllVal;
    return 1;
  case NVML_VALUE_SINT:
    *out = v.siVal;
    return 1;
  case NVML_VALUE_USHORT:
    *out = v.usVal;
    return 1;
  default:
    return 0;
  }
}

/* Grow a scratch array to at least need elements (never shrinks). */
static void *grow(void *buf, unsigned *cap, unsigned need, size_t elem) {
  if (need <= *cap && buf)
    return buf;
  *cap = need > *cap ? need : *cap;
  return gw_xrealloc(buf, (size_t)*cap * elem);
}

/* ---- open / close ---- */

static void *open_library(const char *lib_path, struct gw_err *err) {
  const char *env = getenv("GPUWHY_NVML_LIB");
  const char *chosen = lib_path ? lib_path : (env && *env ? env : NULL);
  if (chosen) {
    /* An explicit choice must not silently fall back to another library. */
    void *h = dlopen(chosen, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
      const char *why = gw_dlerror();
      gw_err_set(err, "no NVIDIA driver: %s not found (%s)", chosen, why ? why : "dlopen failed");
    }
    return h;
  }
  void *h = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h)
    return h;
  char first_error[300];
  const char *why = gw_dlerror();
  gw_strlcpy(first_error, why ? why : "dlopen failed", sizeof first_error);
  h = dlopen("libnvidia-ml.so", RTLD_LAZY | RTLD_LOCAL);
  if (!h)
    gw_err_set(err, "no NVIDIA driver: libnvidia-ml.so.1 not found (%s)", first_error);
  return h;
}

static const char *load_symbols(void *lib, struct nvml_api *api) {
  const char *missing = NULL;
  api->nvmlErrorString = (const char *(*)(nvmlReturn_t))dlsym(lib, "nvmlErrorString");
  if (!api->nvmlErrorString)
    missing = "nvmlErrorString";
#define X(name, args)                                                                                                  \
  api->name = (nvmlReturn_t(*) args)dlsym(lib, #name);                                                                 \
  if (!api->name && !missing)                                                                                          \
    missing = #name;
  NVML_REQUIRED_SYMBOLS(X)
#undef X
#define X(name, args) api->name = (nvmlReturn_t(*) args)dlsym(lib, #name);
  NVML_OPTIONAL_SYMBOLS(X)
#undef X
  return missing;
}

static void read_driver_info(struct gw_nvml *nv) {
  struct gw_driver_info *d = &nv->driver;
  if (nv->api.nvmlSystemGetDriverVersion &&
      nv->api.nvmlSystemGetDriverVersion(d->driver_version, sizeof d->driver_version) != NVML_SUCCESS)
    d->driver_version[0] = '\0';
  if (nv->api.nvmlSystemGetNVMLVersion &&
      nv->api.nvmlSystemGetNVMLVersion(d->nvml_version, sizeof d->nvml_version) != NVML_SUCCESS)
    d->nvml_version[0] = '\0';
  int cuda = 0;
  if (nv->api.nvmlSystemGetCudaDriverVersion_v2)
    cuda = nv->api.nvmlSystemGetCudaDriverVersion_v2(&cuda) == NVML_SUCCESS ? cuda : 0;
  else if (nv->api.nvmlSystemGetCudaDriverVersion)
    cuda = nv->api.nvmlSystemGetCudaDriverVersion(&cuda) == NVML_SUCCESS ? cuda : 0;
  d->cuda_driver_version = cuda;
  /* Guard against a driver that filled the whole buffer without a NUL. */
  d->driver_version[sizeof d->driver_version - 1] = '\0';
  d->nvml_version[sizeof d->nvml_version - 1] = '\0';
}

static void gpm_setup(struct gw_nvml *nv, struct nvml_gpu *g) {
  const struct nvml_api *a = &nv->api;
  if (!a->nvmlGpmQueryDeviceSupport || !a->nvmlGpmSampleAlloc || !a->nvmlGpmSampleFree || !a->nvmlGpmSampleGet ||
      !a->nvmlGpmMetricsGet)
    return;
  nvmlGpmSupport_t support = {.version = GPM_STRUCT_VERSION};
  nvmlReturn_t r = a->nvmlGpmQueryDeviceSupport(g->dev, &support);
  if (r == NVML_ERROR_GPU_IS_LOST)
    mark_lost(g, "nvmlGpmQueryDeviceSupport");
  if (r != NVML_SUCCESS || !support.isSupportedDevice)
    return;
  for (unsigned i = 0; i < GPM_RING; i++) {
    if (a->nvmlGpmSampleAlloc(&g->gpm[i].sample) != NVML_SUCCESS || !g->gpm[i].sample) {
      for (unsigned j = 0; j < i; j++) {
        a->nvmlGpmSampleFree(g->gpm[j].sample);
        g->gpm[j].sample = NULL;
      }
      g->gpm[i].sample = NULL;
      return;
    }
  }
  g->gpm_supported = 1;
}

static void gpu_setup(struct gw_nvml *nv, unsigned index, struct nvml_gpu *g) {
  nvmlReturn_t r = nv->api.nvmlDeviceGetHandleByIndex_v2(index, &g->dev);
  if (r != NVML_SUCCESS) {
    /* Keep the index so the numbering matches NVML's; the GPU reads as lost. */
    g->lost = 1;
    snprintf(g->lost_why, sizeof g->lost_why, "NVML could not open it: %s", nvml_errstr(nv, r));
    return;
  }
  nvmlPciInfo_t pci;
  memset(&pci, 0, sizeof pci);
  if (INFOCALL(nv, g, nvmlDeviceGetPciInfo_v3, &pci)) {
    pci.busId[sizeof pci.busId - 1] = '\0';
    gw_strlcpy(g->pci_bus_id, pci.busId, sizeof g->pci_bus_id);
  }
  gpm_setup(nv, g);
}

void gw_nvml_set_gpm_window_ms(struct gw_nvml *nv, unsigned ms) {
  if (nv)
    nv->gpm_window_ns = (int64_t)(ms < 100 ? 100 : ms) * 1000000LL;
}

void gw_nvml_disable_gpm(struct gw_nvml *nv) {
  for (unsigned i = 0; nv && nv->gpus && i < nv->ngpus; i++) {
    struct nvml_gpu *g = &nv->gpus[i];
    for (unsigned s = 0; s < GPM_RING; s++) {
      if (g->gpm[s].sample && nv->api.nvmlGpmSampleFree)
        nv->api.nvmlGpmSampleFree(g->gpm[s].sample);
      g->gpm[s].sample = NULL;
      g->gpm[s].filled = 0;
    }
    g->gpm_supported = 0;
  }
}

void gw_nvml_close(struct gw_nvml *nv) {
  if (!nv)
    return;
  for (unsigned i = 0; nv->gpus && i < nv->ngpus; i++)
    for (unsigned s = 0; s < GPM_RING; s++)
      if (nv->gpus[i].gpm[s].sample && nv->api.nvmlGpmSampleFree)
        nv->api.nvmlGpmSampleFree(nv->gpus[i].gpm[s].sample);
  if (nv->lib) {
    if (nv->ngpus && nv->api.nvmlShutdown)
      nv->api.nvmlShutdown();
    dlclose(nv->lib);
  }
  free(nv->gpus);
  free(nv->gpm_req);
  free(nv->samples);
  free(nv->procs);
  free(nv->putil);
  free(nv);
}

gw_status gw_nvml_open(struct gw_nvml **out, const char *lib_path, struct gw_err *err) {
  *out = NULL;
  struct gw_nvml *nv = gw_xcalloc(1, sizeof *nv);
  nv->lib = open_library(lib_path, err);
  if (!nv->lib) {
    free(nv);
    return GW_ENOTSUP;
  }
  const char *missing = load_symbols(nv->lib, &nv->api);
  if (missing) {
    gw_err_set(err, "the NVIDIA library lacks %s: driver too old or not NVML", missing);
    gw_nvml_close(nv);
    return GW_ENOTSUP;
  }
  nvmlReturn_t r = nv->api.nvmlInit_v2();
  if (r != NVML_SUCCESS) {
    gw_err_set(err, "NVIDIA driver found but NVML did not start: %s", nvml_errstr(nv, r));
    gw_nvml_close(nv);
    return GW_ENOTSUP;
  }
  unsigned count = 0;
  r = nv->api.nvmlDeviceGetCount_v2(&count);
  if (r != NVML_SUCCESS || count == 0) {
    if (r != NVML_SUCCESS)
      gw_err_set(err, "NVIDIA driver loaded but the GPUs could not be counted: %s", nvml_errstr(nv, r));
    else
      gw_err_set(err, "NVIDIA driver loaded but no GPU found");
    nv->api.nvmlShutdown();
    gw_nvml_close(nv);
    return GW_ENOTSUP;
  }
  nv->ngpus = count;
  nv->gpus = gw_xcalloc(count, sizeof *nv->gpus);
  nv->gpm_req = gw_xcalloc(1, sizeof *nv->gpm_req);
  nv->gpm_window_ns = GPM_MIN_WINDOW_NS;
  read_driver_info(nv);
  for (unsigned i = 0; i < count; i++)
    gpu_setup(nv, i, &nv->gpus[i]);
  *out = nv;
  return GW_OK;
}

unsigned gw_nvml_gpu_count(const struct gw_nvml *nv) {
  return nv ? nv->ngpus : 0;
}

void gw_nvml_driver_info(const struct gw_nvml *nv, struct gw_driver_info *out) {
  memset(out, 0, sizeof *out);
  if (nv)
    *out = nv->driver;
}

/* ---- static facts ---- */

gw_status gw_nvml_gpu_info(struct gw_nvml *nv, unsigned gpu, struct gw_gpu_info *out, struct gw_err *err) {
  memset(out, 0, sizeof *out);
  out->index = gpu;
  out->temp_slowdown_c = out->temp_shutdown_c = -1;
  out->mig_enabled = out->persistence_mode = out->compute_mode = out->ecc_enabled = -1;
  if (!nv || gpu >= nv->ngpus) {
    gw_err_set(err, "GPU index %u out of range (%u GPUs)", gpu, nv ? nv->ngpus : 0);
    return GW_ERR;
  }
  struct nvml_gpu *g = &nv->gpus[gpu];
  gw_strlcpy(out->pci_bus_id, g->pci_bus_id, sizeof out->pci_bus_id);
  if (INFOCALL(nv, g, nvmlDeviceGetUUID, out->uuid, sizeof out->uuid))
    out->uuid[sizeof out->uuid - 1] = '\0';
  else
    out->uuid[0] = '\0';
  if (INFOCALL(nv, g, nvmlDeviceGetName, out->name, sizeof out->name))
    out->name[sizeof out->name - 1] = '\0';
  else
    out->name[0] = '\0';
  nvmlMemory_v2_t mem2 = {.version = MEMORY_V2_VERSION};
  nvmlMemory_t mem1;
  if (INFOCALL(nv, g, nvmlDeviceGetMemoryInfo_v2, &mem2))
    out->mem_total_bytes = mem2.total;
  else if (INFOCALL(nv, g, nvmlDeviceGetMemoryInfo, &mem1))
    out->mem_total_bytes = mem1.total;
  unsigned u = 0, u2 = 0;
  if (INFOCALL(nv, g, nvmlDeviceGetPowerManagementDefaultLimit, &u))
    out->power_default_limit_mw = u;
  if (INFOCALL(nv, g, nvmlDeviceGetPowerManagementLimitConstraints, &u, &u2)) {
    out->power_min_limit_mw = u;
    out->power_max_limit_mw = u2;
  }
  if (INFOCALL(nv, g, nvmlDeviceGetMaxClockInfo, NVML_CLOCK_SM, &u))
    out->sm_clock_max_mhz = u;
  if (INFOCALL(nv, g, nvmlDeviceGetMaxClockInfo, NVML_CLOCK_MEM, &u))
    out->mem_clock_max_mhz = u;
  /* The GPU's own maximum; the other call gives the system's (slot) maximum. */
  if (INFOCALL(nv, g, nvmlDeviceGetGpuMaxPcieLinkGeneration, &u))
    out->pcie_gen_max = u;
  else if (INFOCALL(nv, g, nvmlDeviceGetMaxPcieLinkGeneration, &u))
    out->pcie_gen_max = u;
  if (INFOCALL(nv, g, nvmlDeviceGetMaxPcieLinkWidth, &u))
    out->pcie_width_max = u;
  if (INFOCALL(nv, g, nvmlDeviceGetTemperatureThreshold, NVML_TEMP_THRESHOLD_SLOWDOWN, &u))
    out->temp_slowdown_c = (int)u;
  if (INFOCALL(nv, g, nvmlDeviceGetTemperatureThreshold, NVML_TEMP_THRESHOLD_SHUTDOWN, &u))
    out->temp_shutdown_c = (int)u;
  out->windowed_supported = g->gpm_supported;
  if (INFOCALL(nv, g, nvmlDeviceGetMigMode, &u, &u2))
    out->mig_enabled = u ? 1 : 0;
  int mode = 0, pending = 0;
  if (INFOCALL(nv, g, nvmlDeviceGetPersistenceMode, &mode))
    out->persistence_mode = mode;
  if (INFOCALL(nv, g, nvmlDeviceGetComputeMode, &mode))
    out->compute_mode = mode;
  if (INFOCALL(nv, g, nvmlDeviceGetEccMode, &mode, &pending))
    out->ecc_enabled = mode;
  unsigned long long mask = 0;
  if (INFOCALL(nv, g, nvmlDeviceGetSupportedClocksEventReasons, &mask))
    out->supported_clock_reasons = mask;
  else if (INFOCALL(nv, g, nvmlDeviceGetSupportedClocksThrottleReasons, &mask))
    out->supported_clock_reasons = mask;
  if (g->lost) {
    gw_err_set(err, "GPU %u (%s): %s", gpu, g->pci_bus_id[0] ? g->pci_bus_id : "no bus id", g->lost_why);
    return GW_ELOST;
  }
  return GW_OK;
}

/* ---- FAST metrics ---- */

/* The driver refreshes utilization every 1/6 s to 1 s, slower than a 10 Hz
 * tick: a tick with no new sample repeats the newest one while it is under a
 * second old (it still describes the latest window), instead of a gap. */
static int repeat_recent_sample(unsigned long long last_seen_us, double last_pct, double *out_pct) {
  long long now_us = gw_now_realtime_ns() / 1000;
  if (last_seen_us == 0 || now_us - (long long)last_seen_us > 1000000LL)
    return 0;
  *out_pct = last_pct;
  return 1;
}

/* Average of the driver's buffered utilization samples that arrived since the
 * previous call. On the first call only the newest counts: older ones
 * describe a time before we started watching. */
static int util_from_samples(struct gw_nvml *nv, struct nvml_gpu *g, int sample_type, enum nvml_call c,
                             double *out_pct) {
  unsigned long long *last_seen = &g->util_last_seen_us[sample_type == NVML_SAMPLE_GPU_UTIL ? 0 : 1];
  if (!nv->samples)
    nv->samples = grow(nv->samples, &nv->samples_cap, 128, sizeof *nv->samples);
  int value_type = -1;
  unsigned count = nv->samples_cap;
  nvmlReturn_t r = nv->api.nvmlDeviceGetSamples(g->dev, sample_type, *last_seen, &value_type, &count, nv->samples);
  if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
    /* Ask for the size (NULL buffer), grow within reason and try once more. */
    unsigned need = 0;
    if (nv->api.nvmlDeviceGetSamples(g->dev, sample_type, *last_seen, &value_type, &need, NULL) == NVML_SUCCESS &&
        need > 0 && need <= 4096) {
      nv->samples = grow(nv->samples, &nv->samples_cap, need, sizeof *nv->samples);
      count = nv->samples_cap;
      r = nv->api.nvmlDeviceGetSamples(g->dev, sample_type, *last_seen, &value_type, &count, nv->samples);
    }
  }
  double *last_pct = &g->util_last_pct[sample_type == NVML_SAMPLE_GPU_UTIL ? 0 : 1];
  if (r == NVML_ERROR_NOT_FOUND)
    return repeat_recent_sample(*last_seen, *last_pct, out_pct);
  if (!call_ok(g, c, "nvmlDeviceGetSamples", r) || count > nv->samples_cap)
    return 0;
  double sum = 0;
  unsigned n = 0;
  unsigned long long newest = *last_seen;
  int first_call = *last_seen == 0;
  for (unsigned i = 0; i < count; i++) {
    const nvmlSample_t *s = &nv->samples[i];
    double v;
    if (s->timeStamp <= *last_seen || !value_to_double(value_type, s->sampleValue, &v))
      continue;
    if (first_call) {
      if (s->timeStamp > newest || n == 0) {
        newest = s->timeStamp;
        sum = v;
        n = 1;
      }
      continue;
    }
    sum += v;
    n++;
    if (s->timeStamp > newest)
      newest = s->timeStamp;
  }
  *last_seen = newest;
  if (n == 0)
    return repeat_recent_sample(*last_seen, *last_pct, out_pct);
  *out_pct = sum / n;
  *last_pct = *out_pct;
  return 1;
}

/* nvidia-smi's utilization. The driver refreshes it every 1/6 s to 1 s. When
 * ticks come faster than UTIL_POINT_READ_NS, a point read (about free) sees
 * every driver sample anyway; slower ticks average the buffered samples of
 * the whole interval (nvmlDeviceGetSamples costs about 2.4 ms of CPU per call
 * on an H200, too dear for every tick of a 10 Hz sampler). */
static void read_utilization(struct gw_nvml *nv, struct nvml_gpu *g, int64_t t_ns, struct gw_gpu_sample *out) {
  int point_read = g->util_last_t_ns > 0 && t_ns > g->util_last_t_ns && t_ns - g->util_last_t_ns < UTIL_POINT_READ_NS &&
                   call_usable(g, C_UTIL_RATES);
  g->util_last_t_ns = t_ns;
  nvmlUtilization_t now;
  if (point_read && NVCALL(nv, g, C_UTIL_RATES, nvmlDeviceGetUtilizationRates, &now)) {
    gw_gpu_set(out, GW_M_util_gpu_pct, now.gpu);
    gw_gpu_set(out, GW_M_util_mem_pct, now.memory);
    return;
  }
  static const struct {
    int type;
    enum nvml_call call;
    enum gw_gpu_metric metric;
  } kinds[2] = {{NVML_SAMPLE_GPU_UTIL, C_SAMPLES_GPU, GW_M_util_gpu_pct},
                {NVML_SAMPLE_MEM_UTIL, C_SAMPLES_MEM, GW_M_util_mem_pct}};
  int use_rates[2] = {0, 0};
  for (int k = 0; k < 2 && !g->lost; k++) {
    double pct;
    if (nv->api.nvmlDeviceGetSamples && call_usable(g, kinds[k].call) &&
        util_from_samples(nv, g, kinds[k].type, kinds[k].call, &pct))
      gw_gpu_set(out, kinds[k].metric, pct);
    /* Fall back only when the buffered samples cannot work at all here. */
    use_rates[k] = !nv->api.nvmlDeviceGetSamples || ((g->unsupported >> kinds[k].call) & 1);
  }
  nvmlUtilization_t rates;
  if ((use_rates[0] || use_rates[1]) && NVCALL(nv, g, C_UTIL_RATES, nvmlDeviceGetUtilizationRates, &rates)) {
    if (use_rates[0])
      gw_gpu_set(out, GW_M_util_gpu_pct, rates.gpu);
    if (use_rates[1])
      gw_gpu_set(out, GW_M_util_mem_pct, rates.memory);
  }
}

/* Take a GPM sample and compute the metrics against the newest earlier
 * sample at least 100 ms older (by the caller's t_ns). */
static void read_gpm(struct gw_nvml *nv, struct nvml_gpu *g, int64_t t_ns, struct gw_gpu_sample *out) {
  if (!call_usable(g, C_GPM_SAMPLE))
    return;
  /* A sample and its metrics cost about 0.5 ms on an H200 (bench/sampler/
   * nvml_cost): sample only when the newest sample is a whole window old, so
   * metrics cover back-to-back windows of gpm_window_ns. */
  int64_t newest_ns = INT64_MIN;
  for (unsigned i = 0; i < GPM_RING; i++)
    if (g->gpm[i].filled && g->gpm[i].t_ns > newest_ns)
      newest_ns = g->gpm[i].t_ns;
  int64_t due_ns = nv->gpm_window_ns - GPM_TICK_SLACK_NS;
  if (due_ns < GPM_MIN_WINDOW_NS)
    due_ns = GPM_MIN_WINDOW_NS;
  if (newest_ns != INT64_MIN && t_ns >= newest_ns && t_ns - newest_ns < due_ns)
    return;
  struct gpm_slot *now = &g->gpm[g->gpm_next];
  g->gpm_next = (g->gpm_next + 1) % GPM_RING;
  now->filled = 0;
  if (!call_ok(g, C_GPM_SAMPLE, "nvmlGpmSampleGet", nv->api.nvmlGpmSampleGet(g->dev, now->sample)))
    return;
  now->filled = 1;
  now->t_ns = t_ns;

  const struct gpm_slot *base = NULL;
  for (unsigned i = 0; i < GPM_RING; i++) {
    const struct gpm_slot *s = &g->gpm[i];
    if (s == now || !s->filled || t_ns - s->t_ns < GPM_MIN_WINDOW_NS)
      continue;
    if (!base || s->t_ns > base->t_ns)
      base = s;
  }
  /* The sample just taken becomes the next window's start. */
  if (!base || !call_usable(g, C_GPM_METRICS))
    return;

  nvmlGpmMetricsGet_t *req = nv->gpm_req;
  unsigned n = 0;
  unsigned slot_of[GPM_NMAP];
  memset(req, 0, offsetof(nvmlGpmMetricsGet_t, metrics));
  for (unsigned m = 0; m < GPM_NMAP; m++) {
    if ((g->gpm_metric_unsupported >> m) & 1)
      continue;
    memset(&req->metrics[n], 0, sizeof req->metrics[n]);
    req->metrics[n].metricId = gpm_map[m].id;
    slot_of[n++] = m;
  }
  if (n == 0)
    return;
  req->version = GPM_STRUCT_VERSION;
  req->numMetrics = n;
  req->sample1 = base->sample;
  req->sample2 = now->sample;
  if (!call_ok(g, C_GPM_METRICS, "nvmlGpmMetricsGet", nv->api.nvmlGpmMetricsGet(req)))
    return;
  for (unsigned i = 0; i < n; i++) {
    const nvmlGpmMetric_t *mt = &req->metrics[i];
    unsigned m = slot_of[i];
    if (mt->nvmlReturn != NVML_SUCCESS) {
      if (is_permanent(mt->nvmlReturn))
        g->gpm_metric_unsupported |= 1u << m;
      continue;
    }
    if (isfinite(mt->value) && mt->value >= 0)
      gw_gpu_set(out, gpm_map[m].metric, mt->value * gpm_map[m].scale);
  }
}

static void read_pcie_throughput(struct gw_nvml *nv, struct nvml_gpu *g, struct gw_gpu_sample *out) {
  unsigned kbps = 0;
  /* NVML reports KB/s over a 20 ms window; its KB is 1024 bytes. */
  if (NVCALL(nv, g, C_PCIE_TX, nvmlDeviceGetPcieThroughput, NVML_PCIE_TX_BYTES, &kbps))
    gw_gpu_set(out, GW_M_pcie_tx_bps, kbps * 1024.0);
  if (NVCALL(nv, g, C_PCIE_RX, nvmlDeviceGetPcieThroughput, NVML_PCIE_RX_BYTES, &kbps))
    gw_gpu_set(out, GW_M_pcie_rx_bps, kbps * 1024.0);
}

/* PCIe rates come from GPM when it works (a window, not a 20 ms point), else
 * from PcieThroughput. */
static int gpm_gives_pcie(const struct nvml_gpu *g) {
  if (!g->gpm_supported || !call_usable(g, C_GPM_SAMPLE) || !call_usable(g, C_GPM_METRICS))
    return 0;
  for (unsigned m = 0; m < GPM_NMAP; m++)
    if ((gpm_map[m].metric == GW_M_pcie_rx_bps || gpm_map[m].metric == GW_M_pcie_tx_bps) &&
        !((g->gpm_metric_unsupported >> m) & 1))
      return 1;
  return 0;
}

static void describe_reasons(unsigned long long mask, char *buf, size_t cap) {
  if (mask == 0)
    gw_strlcpy(buf, "none (clocks as high as allowed)", cap);
  else
    gw_clock_reasons_describe(mask, 0, buf, cap);
}

static void read_clock_reasons(struct gw_nvml *nv, struct nvml_gpu *g, unsigned gpu, int64_t t_ns,
                               struct gw_gpu_sample *out, const struct gw_event_sink *events) {
  unsigned long long mask = 0;
  /* The Throttle spelling is the pre-13.0 name of the same call. */
  int ok = NVCALL(nv, g, C_REASONS_EVENT, nvmlDeviceGetCurrentClocksEventReasons, &mask);
  if (!ok && (!nv->api.nvmlDeviceGetCurrentClocksEventReasons || ((g->unsupported >> C_REASONS_EVENT) & 1)))
    ok = NVCALL(nv, g, C_REASONS_THROTTLE, nvmlDeviceGetCurrentClocksThrottleReasons, &mask);
  if (!ok)
    return;
  gw_gpu_set(out, GW_M_clock_reasons, (double)mask);
  if (g->have_reasons && mask != g->last_reasons) {
    struct gw_event ev = {.t_ns = t_ns, .kind = "clock_reasons", .gpu = (int)gpu, .code = (int64_t)mask};
    char now_words[200], was_words[200];
    describe_reasons(mask, now_words, sizeof now_words);
    describe_reasons(g->last_reasons, was_words, sizeof was_words);
    snprintf(ev.message, sizeof ev.message, "clock event reasons now 0x%llx: %s (was 0x%llx: %s)", mask, now_words,
             g->last_reasons, was_words);
    gw_emit(events, &ev);
  }
  g->have_reasons = 1;
  g->last_reasons = mask;
}

/* second_due: the once-a-second tick. Every NVML call costs tens of
 * microseconds of system time on a virtual machine (bench/sampler: 0.46 s of
 * CPU a minute at 10 Hz with three calls a tick), so every tick reads only
 * nvidia-smi's utilization (one cheap call; the driver refreshes it every
 * 1/6 s, faster than a second) and closes a GPM window when one is due.
 * The rest once a second: power is the driver's 1 s average anyway; the SM
 * clock and its event reasons are backed by the violation counters, which
 * hold the exact time spent held down whatever the tick; P-state, memory
 * clock and memory used follow the workload's phases, not its kernels. The
 * analysis holds each once-a-second value over the ticks that follow it
 * (lib/analysis/series.c). */
static void read_fast(struct gw_nvml *nv, struct nvml_gpu *g, unsigned gpu, int64_t t_ns, struct gw_gpu_sample *out,
                      int second_due, const struct gw_event_sink *events) {
  read_utilization(nv, g, t_ns, out);

  if (g->gpm_supported)
    read_gpm(nv, g, t_ns, out);

  if (!second_due)
    return;

  /* Without GPM, PCIe throughput comes from a call that blocks for its 20 ms
   * measuring window per direction: once a second, not every tick. */
  if (!gpm_gives_pcie(g))
    read_pcie_throughput(nv, g, out);
  read_clock_reasons(nv, g, gpu, t_ns, out, events);
  unsigned u = 0;
  if (NVCALL(nv, g, C_SM_CLOCK, nvmlDeviceGetClockInfo, NVML_CLOCK_SM, &u))
    gw_gpu_set(out, GW_M_sm_clock_mhz, u);

  /* v2 excludes the driver's reserved memory from "used"; v1 counts it. */
  nvmlMemory_v2_t mem2 = {.version = MEMORY_V2_VERSION};
  nvmlMemory_t mem1;
  if (NVCALL(nv, g, C_MEM_V2, nvmlDeviceGetMemoryInfo_v2, &mem2))
    gw_gpu_set(out, GW_M_mem_used_bytes, (double)mem2.used);
  else if ((!nv->api.nvmlDeviceGetMemoryInfo_v2 || ((g->unsupported >> C_MEM_V2) & 1)) &&
           NVCALL(nv, g, C_MEM_V1, nvmlDeviceGetMemoryInfo, &mem1))
    gw_gpu_set(out, GW_M_mem_used_bytes, (double)mem1.used);

  if (NVCALL(nv, g, C_POWER, nvmlDeviceGetPowerUsage, &u))
    gw_gpu_set(out, GW_M_power_mw, u);
  int pstate = NVML_PSTATE_UNKNOWN;
  if (NVCALL(nv, g, C_PSTATE, nvmlDeviceGetPerformanceState, &pstate) && pstate >= 0 && pstate <= 15)
    gw_gpu_set(out, GW_M_pstate, pstate);
  if (NVCALL(nv, g, C_MEM_CLOCK, nvmlDeviceGetClockInfo, NVML_CLOCK_MEM, &u))
    gw_gpu_set(out, GW_M_mem_clock_mhz, u);
}

/* ---- SLOW metrics ---- */

static void read_fields(struct gw_nvml *nv, struct nvml_gpu *g, struct gw_gpu_sample *out, int rare) {
  nvmlFieldValue_t fv[SLOW_NFIELDS];
  unsigned which[SLOW_NFIELDS];
  int n = 0;
  memset(fv, 0, sizeof fv);
  for (unsigned i = 0; i < SLOW_NFIELDS; i++) {
    if (((g->field_unsupported >> i) & 1) || slow_fields[i].rare != rare)
      continue;
    fv[n].fieldId = slow_fields[i].id;
    which[n++] = i;
  }
  if (n == 0 || !NVCALL(nv, g, C_FIELDS, nvmlDeviceGetFieldValues, n, fv))
    return;
  for (int k = 0; k < n; k++) {
    double v;
    if (fv[k].nvmlReturn == NVML_ERROR_GPU_IS_LOST) {
      mark_lost(g, "nvmlDeviceGetFieldValues");
      return;
    }
    if (fv[k].nvmlReturn != NVML_SUCCESS) {
      if (is_permanent(fv[k].nvmlReturn))
        g->field_unsupported |= 1u << which[k];
      continue;
    }
    if (value_to_double(fv[k].valueType, fv[k].value, &v))
      gw_gpu_set(out, slow_fields[which[k]].metric, v);
  }
}

static void read_slow(struct gw_nvml *nv, struct nvml_gpu *g, struct gw_gpu_sample *out) {
  unsigned u = 0;
  if (NVCALL(nv, g, C_POWER_LIMIT, nvmlDeviceGetEnforcedPowerLimit, &u))
    gw_gpu_set(out, GW_M_power_limit_mw, u);

  nvmlTemperature_v1_t temp = {.version = TEMPERATURE_V1_VERSION, .sensorType = 0};
  if (NVCALL(nv, g, C_TEMP_V, nvmlDeviceGetTemperatureV, &temp))
    gw_gpu_set(out, GW_M_temp_gpu_c, temp.temperature);
  else if ((!nv->api.nvmlDeviceGetTemperatureV || ((g->unsupported >> C_TEMP_V) & 1)) &&
           NVCALL(nv, g, C_TEMP, nvmlDeviceGetTemperature, 0, &u))
    gw_gpu_set(out, GW_M_temp_gpu_c, u);

  read_fields(nv, g, out, 0);

  if (NVCALL(nv, g, C_PCIE_GEN, nvmlDeviceGetCurrPcieLinkGeneration, &u))
    gw_gpu_set(out, GW_M_pcie_gen, u);
  if (NVCALL(nv, g, C_PCIE_WIDTH, nvmlDeviceGetCurrPcieLinkWidth, &u))
    gw_gpu_set(out, GW_M_pcie_width, u);
  if (NVCALL(nv, g, C_PCIE_REPLAY, nvmlDeviceGetPcieReplayCounter, &u))
    gw_gpu_set(out, GW_M_pcie_replay, u);

  unsigned long long ecc = 0;
  if (NVCALL(nv, g, C_ECC_SBE, nvmlDeviceGetTotalEccErrors, NVML_MEMORY_ERROR_CORRECTED, NVML_VOLATILE_ECC, &ecc))
    gw_gpu_set(out, GW_M_ecc_sbe_volatile, (double)ecc);
  if (NVCALL(nv, g, C_ECC_DBE, nvmlDeviceGetTotalEccErrors, NVML_MEMORY_ERROR_UNCORRECTED, NVML_VOLATILE_ECC, &ecc))
    gw_gpu_set(out, GW_M_ecc_dbe_volatile, (double)ecc);

  unsigned cor = 0, unc = 0, pending = 0, failed = 0;
  if (NVCALL(nv, g, C_REMAP, nvmlDeviceGetRemappedRows, &cor, &unc, &pending, &failed)) {
    gw_gpu_set(out, GW_M_remapped_cor, cor);
    gw_gpu_set(out, GW_M_remapped_unc, unc);
    gw_gpu_set(out, GW_M_remapped_pending, pending ? 1 : 0);
    gw_gpu_set(out, GW_M_remapped_failure, failed ? 1 : 0);
  }
}

static gw_status report_lost(struct nvml_gpu *g, unsigned gpu, int64_t t_ns, const struct gw_event_sink *events) {
  if (!g->lost_reported) {
    struct gw_event ev = {.t_ns = t_ns, .kind = "gpu_lost", .gpu = (int)gpu};
    snprintf(ev.message, sizeof ev.message, "GPU %u (%s) is gone: %s; no more samples from it", gpu,
             g->pci_bus_id[0] ? g->pci_bus_id : "unknown bus id", g->lost_why);
    gw_emit(events, &ev);
    g->lost_reported = 1;
  }
  return GW_ELOST;
}

gw_status gw_nvml_sample(struct gw_nvml *nv, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *out,
                         const struct gw_event_sink *events) {
  if (!nv || !out || gpu >= nv->ngpus)
    return GW_ERR;
  memset(out, 0, sizeof *out);
  out->t_ns = t_ns;
  out->gpu = gpu;
  struct nvml_gpu *g = &nv->gpus[gpu];
  if (!g->lost && (what & GW_NVML_FAST))
    read_fast(nv, g, gpu, t_ns, out, (what & (GW_NVML_SECOND | GW_NVML_SLOW)) != 0, events);
  if (!g->lost && (what & GW_NVML_SLOW))
    read_slow(nv, g, out);
  /* The energy counter costs about 3.9 ms of CPU per read on an H200: read it
   * only when asked (start, end, and now and then), never every tick. */
  if (!g->lost && (what & GW_NVML_RARE))
    read_fields(nv, g, out, 1);
  unsigned long long energy_mj = 0;
  if (!g->lost && (what & GW_NVML_RARE) && NVCALL(nv, g, C_ENERGY, nvmlDeviceGetTotalEnergyConsumption, &energy_mj))
    gw_gpu_set(out, GW_M_energy_mj, (double)energy_mj);
  if (g->lost) {
    out->valid = 0;
    return report_lost(g, gpu, t_ns, events);
  }
  return GW_OK;
}

/* ---- processes ---- */

static void add_process(struct gw_gpu_proc *out, int max, int *n, unsigned gpu, int64_t t_ns,
                        const nvmlProcessInfo_t *p) {
  int64_t used = p->usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL ? -1 : (int64_t)p->usedGpuMemory;
  for (int i = 0; i < *n; i++) {
    if (out[i].pid == (int)p->pid) { /* listed as compute and graphics: one entry */
      if (used > out[i].used_mem_bytes)
        out[i].used_mem_bytes = used;
      return;
    }
  }
  if (*n >= max)
    return;
  out[*n] = (struct gw_gpu_proc){.t_ns = t_ns, .gpu = gpu, .pid = (int)p->pid, .used_mem_bytes = used, .sm_pct = -1};
  (*n)++;
}

typedef nvmlReturn_t (*proc_list_fn)(nvmlDevice_t, unsigned *, nvmlProcessInfo_t *);

/* One process list: a sizing call with count 0, then the real one. Returns
 * 1 when the list was read, 0 when not available. */
static int read_process_list(struct gw_nvml *nv, struct nvml_gpu *g, proc_list_fn fn, enum nvml_call c,
                             const char *what, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max, int *n) {
  if (!fn || !call_usable(g, c))
    return 0;
  unsigned count = 0;
  nvmlReturn_t r = fn(g->dev, &count, NULL);
  /* The list can grow between calls: retry a few times with headroom. */
  for (int attempt = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 3; attempt++) {
    unsigned want = count + 8;
    if (want > 65536)
      return 0;
    nv->procs = grow(nv->procs, &nv->procs_cap, want, sizeof *nv->procs);
    count = nv->procs_cap;
    r = fn(g->dev, &count, nv->procs);
  }
  if (!call_ok(g, c, what, r))
    return 0;
  if (count > nv->procs_cap)
    count = nv->procs ? nv->procs_cap : 0;
  for (unsigned i = 0; i < count; i++)
    add_process(out, max, n, gpu, t_ns, &nv->procs[i]);
  return 1;
}

/* Per-process SM share from the driver's samples since the last call. Only
 * plausible samples (<= 100 %) of listed processes count (nvtop saw junk). */
static void read_process_util(struct gw_nvml *nv, struct nvml_gpu *g, struct gw_gpu_proc *out, int n) {
  if (n == 0 || !nv->api.nvmlDeviceGetProcessUtilization || !call_usable(g, C_PROC_UTIL))
    return;
  unsigned count = 0;
  nvmlReturn_t r = nv->api.nvmlDeviceGetProcessUtilization(g->dev, NULL, &count, g->proc_util_last_seen_us);
  if (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE) {
    call_ok(g, C_PROC_UTIL, "nvmlDeviceGetProcessUtilization", r);
    return;
  }
  if (count == 0 || count > 4096)
    return;
  nv->putil = grow(nv->putil, &nv->putil_cap, count, sizeof *nv->putil);
  count = nv->putil_cap;
  r = nv->api.nvmlDeviceGetProcessUtilization(g->dev, nv->putil, &count, g->proc_util_last_seen_us);
  if (r == NVML_ERROR_NOT_FOUND || !call_ok(g, C_PROC_UTIL, "nvmlDeviceGetProcessUtilization", r))
    return;
  if (count > nv->putil_cap)
    count = nv->putil_cap;
  unsigned long long newest = g->proc_util_last_seen_us;
  for (int i = 0; i < n; i++) {
    unsigned long long best_ts = 0;
    for (unsigned k = 0; k < count; k++) {
      const nvmlProcessUtilizationSample_t *s = &nv->putil[k];
      if ((int)s->pid != out[i].pid || s->smUtil > 100 || s->timeStamp <= g->proc_util_last_seen_us ||
          s->timeStamp < best_ts)
        continue;
      best_ts = s->timeStamp;
      out[i].sm_pct = s->smUtil;
    }
  }
  for (unsigned k = 0; k < count; k++)
    if (nv->putil[k].timeStamp > newest)
      newest = nv->putil[k].timeStamp;
  g->proc_util_last_seen_us = newest;
}

int gw_nvml_processes(struct gw_nvml *nv, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max) {
  if (!nv || gpu >= nv->ngpus || (!out && max > 0) || max < 0)
    return -1;
  struct nvml_gpu *g = &nv->gpus[gpu];
  if (g->lost)
    return -1;
  int n = 0;
  int got = read_process_list(nv, g, nv->api.nvmlDeviceGetComputeRunningProcesses_v3, C_PROCS_COMPUTE,
                              "nvmlDeviceGetComputeRunningProcesses_v3", gpu, t_ns, out, max, &n);
  if (!g->lost)
    got |= read_process_list(nv, g, nv->api.nvmlDeviceGetGraphicsRunningProcesses_v3, C_PROCS_GRAPHICS,
                             "nvmlDeviceGetGraphicsRunningProcesses_v3", gpu, t_ns, out, max, &n);
  if (!g->lost)
    read_process_util(nv, g, out, n);
  if (g->lost || !got)
    return -1;
  return n;
}
