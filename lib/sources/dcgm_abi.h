/* The subset of the DCGM client ABI (x86_64, libdcgm.so.3 and .so.4) that
 * gpuwhy uses, declared here so no DCGM headers are needed to build: handle
 * types, return codes, the field-value record and the connection options
 * (api-facts-2 section 5; NVIDIA/DCGM dcgmlib/dcgm_structs.h, dcgm_fields.h
 * and dcgm_agent.h). Shared by the real source (dcgm.c) and the fake library
 * the tests load, so both agree on the ABI. Unverified on hardware: DCGM is
 * not installed on the machines gpuwhy was measured on. */
#ifndef GW_DCGM_ABI_H
#define GW_DCGM_ABI_H

#include <stdint.h>

typedef int dcgmReturn_t;
typedef uintptr_t dcgmHandle_t;
typedef uintptr_t dcgmGpuGrp_t;
typedef uintptr_t dcgmFieldGrp_t;

/* Return codes (dcgm_structs.h, dcgmReturn_t). */
enum {
  DCGM_ST_OK = 0,
  DCGM_ST_BADPARAM = -1,
  DCGM_ST_GENERIC_ERROR = -3,
  DCGM_ST_NOT_SUPPORTED = -6,
  DCGM_ST_INIT_ERROR = -7,
  DCGM_ST_UNINITIALIZED = -10,
  DCGM_ST_NO_DATA = -14,
  DCGM_ST_NOT_WATCHED = -16,
  DCGM_ST_NO_PERMISSION = -17,
  DCGM_ST_GPU_IS_LOST = -18,
  DCGM_ST_CONNECTION_NOT_VALID = -21,
  DCGM_ST_GPU_NOT_SUPPORTED = -22,
  DCGM_ST_REQUIRES_ROOT = -29,
  DCGM_ST_MODULE_NOT_LOADED = -33,
  DCGM_ST_IN_USE = -34,
  DCGM_ST_PROFILING_NOT_SUPPORTED = -36,
  DCGM_ST_PROFILING_LIBRARY_ERROR = -37,
  DCGM_ST_PROFILING_MULTI_PASS = -38,
  DCGM_ST_PAUSED = -54,
};

#define DCGM_MAX_NUM_DEVICES 32
#define DCGM_HE_PORT_NUMBER 5555
#define DCGM_GROUP_ALL_GPUS 0x7fffffff

/* Field ids (dcgm_fields.h). The four profiling fields are ratios 0..1
 * averaged over the watch's update period; they need the host engine's
 * profiling module. */
enum {
  DCGM_FI_DEV_NVML_INDEX = 52,            /* NVML's index of the GPU: DCGM's gpuId may differ */
  DCGM_FI_PROF_SM_ACTIVE = 1002,          /* cycles an SM had at least one warp assigned */
  DCGM_FI_PROF_SM_OCCUPANCY = 1003,       /* resident warps against the maximum, per elapsed cycle */
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE = 1004, /* cycles any tensor pipe was active */
  DCGM_FI_PROF_DRAM_ACTIVE = 1005,        /* cycles the memory interface sent or received data */
};

/* Field types (dcgm_fields.h). */
enum { DCGM_FT_DOUBLE = 'd', DCGM_FT_INT64 = 'i' };

/* Blank values mark a missing reading inside a value whose status is OK
 * (dcgm_structs.h): anything at or above these is not a measurement. */
#define DCGM_FP64_BLANK 140737488355328.0
#define DCGM_INT64_BLANK 0x7ffffffffffffff0LL

#define DCGM_MAX_STR_LENGTH 256
#define DCGM_MAX_BLOB_LENGTH 4096

/* Version words: the struct's size in the low 24 bits, the version above. */
#define GW_DCGM_VERSION(type, ver) ((unsigned)(sizeof(type) | ((unsigned long)(ver) << 24U)))

/* One field's latest value (dcgmFieldValue_v1, natural alignment). */
typedef struct {
  unsigned version;
  unsigned short fieldId;
  unsigned short fieldType;
  int status;
  int64_t ts; /* microseconds since 1970 */
  union {
    int64_t i64;
    double dbl;
    char str[DCGM_MAX_STR_LENGTH];
    char blob[DCGM_MAX_BLOB_LENGTH];
  } value;
} dcgmFieldValue_v1;
#define dcgmFieldValue_version1 GW_DCGM_VERSION(dcgmFieldValue_v1, 1)

/* Options of dcgmConnect_v2 (dcgmConnectV2Params_v2). */
typedef struct {
  unsigned version;
  unsigned persistAfterDisconnect; /* 0: the host engine drops this client's watches when it leaves */
  unsigned timeoutMs;              /* how long to try to connect */
  unsigned addressIsUnixSocket;
} dcgmConnectV2Params_v2;
#define dcgmConnectV2Params_version2 GW_DCGM_VERSION(dcgmConnectV2Params_v2, 2)

#endif
