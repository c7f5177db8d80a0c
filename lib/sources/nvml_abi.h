/* The subset of the NVML ABI (x86_64) that gpuwhy uses, declared here so no
 * nvml.h is needed to build: handles, return codes, struct layouts and their
 * version words as NVIDIA's nvml.h defines them (a versioned struct's version
 * is sizeof | v << 24; the GPM structs use a plain 1). Shared by the real source
 * (nvml.c) and the fake library the tests load, so both agree on the ABI. */
#ifndef GW_NVML_ABI_H
#define GW_NVML_ABI_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_DEPRECATED = 26,
};

enum {
  NVML_VALUE_DOUBLE,
  NVML_VALUE_UINT,
  NVML_VALUE_ULONG,
  NVML_VALUE_ULL,
  NVML_VALUE_SLL,
  NVML_VALUE_SINT,
  NVML_VALUE_USHORT
};
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_SAMPLE_GPU_UTIL = 1, NVML_SAMPLE_MEM_UTIL = 2 };
enum { NVML_PCIE_TX_BYTES = 0, NVML_PCIE_RX_BYTES = 1 };
enum { NVML_TEMP_THRESHOLD_SHUTDOWN = 0, NVML_TEMP_THRESHOLD_SLOWDOWN = 1 };
enum { NVML_MEMORY_ERROR_CORRECTED = 0, NVML_MEMORY_ERROR_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0 };
enum { NVML_PSTATE_UNKNOWN = 32 };
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)

#define NVML_STRUCT_VERSION(size, ver) ((unsigned)((size) | ((unsigned)(ver) << 24)))

typedef union {
  double dVal;
  int siVal;
  unsigned uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct {
  unsigned long long timeStamp; /* CPU microseconds */
  nvmlValue_t sampleValue;
} nvmlSample_t;

typedef struct {
  unsigned fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  unsigned gpu, memory;
} nvmlUtilization_t;

typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
  unsigned version;
  unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

/* nvmlProcessInfo_v2_t layout, which the _v3 process functions fill. */
typedef struct {
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
  unsigned pid;
  unsigned long long timeStamp;
  unsigned smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
  unsigned version;
  int sensorType;
  int temperature;
} nvmlTemperature_v1_t;

typedef struct {
  unsigned version;
  unsigned isSupportedDevice;
} nvmlGpmSupport_t;

typedef struct {
  unsigned metricId;
  nvmlReturn_t nvmlReturn;
  double value;
  struct {
    char *shortName, *longName, *unit;
  } metricInfo;
} nvmlGpmMetric_t;

/* NVML_GPM_METRIC_MAX grew from 98 to 210 to 333 across nvml.h versions
 * while the struct version stayed 1; the driver reads only numMetrics
 * entries (98 and 333 both worked on driver 580), so we declare the
 * smallest header's size. */
#define GPM_METRIC_SLOTS 98
typedef struct {
  unsigned version;
  unsigned numMetrics;
  nvmlGpmSample_t sample1, sample2;
  nvmlGpmMetric_t metrics[GPM_METRIC_SLOTS];
} nvmlGpmMetricsGet_t;

_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t");
_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "nvmlProcessUtilizationSample_t");
_Static_assert(sizeof(nvmlTemperature_v1_t) == 12, "nvmlTemperature_v1_t");
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t");
_Static_assert(sizeof(nvmlGpmMetricsGet_t) == 24 + 40 * GPM_METRIC_SLOTS, "nvmlGpmMetricsGet_t");

#define MEMORY_V2_VERSION NVML_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2)           /* 0x02000028 */
#define TEMPERATURE_V1_VERSION NVML_STRUCT_VERSION(sizeof(nvmlTemperature_v1_t), 1) /* 0x0100000C */
#define GPM_STRUCT_VERSION 1u                                                       /* GPM structs: plain 1 */

#endif
