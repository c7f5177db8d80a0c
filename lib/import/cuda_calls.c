#include "import/cuda_calls.h"

#include <string.h>

/* The calls the analysis cares about (launches, synchronisations, copies,
 * allocations), from cupti_runtime_cbid.h and cupti_driver_cbid.h of CUDA
 * 13.0; ids are never reused. A table rather than cupti.h, so that imports
 * build where CUPTI is absent. */
struct named_cbid {
  const char *name;
  uint32_t cbid;
};

static const struct named_cbid RUNTIME_CBIDS[] = {
    {"cudaMalloc_v3020", 20},
    {"cudaFree_v3020", 22},
    {"cudaMemcpy_v3020", 31},
    {"cudaMemcpyAsync_v3020", 41},
    {"cudaMemsetAsync_v3020", 51},
    {"cudaStreamSynchronize_v3020", 131},
    {"cudaStreamQuery_v3020", 132},
    {"cudaEventRecord_v3020", 135},
    {"cudaEventSynchronize_v3020", 137},
    {"cudaEventQuery_v3020", 138},
    {"cudaStreamWaitEvent_v3020", 147},
    {"cudaDeviceSynchronize_v3020", 165},
    {"cudaLaunchKernel_v7000", 211},
    {"cudaLaunchKernel_ptsz_v7000", 214},
    {"cudaMemcpyAsync_ptsz_v7000", 225},
    {"cudaStreamSynchronize_ptsz_v7000", 239},
    {"cudaStreamWaitEvent_ptsz_v7000", 247},
    {"cudaLaunchCooperativeKernel_v9000", 269},
    {"cudaGraphLaunch_v10000", 311},
    {"cudaGraphLaunch_ptsz_v10000", 312},
    {"cudaMallocAsync_v11020", 373},
    {"cudaFreeAsync_v11020", 375},
    {"cudaLaunchKernelExC_v11060", 430},
    {"cudaLaunchKernelExC_ptsz_v11060", 431},
};

static const struct named_cbid DRIVER_CBIDS[] = {
    {"cuCtxSynchronize", 17},      {"cuEventSynchronize", 121},    {"cuStreamSynchronize", 126},
    {"cuMemsetD8Async", 216},      {"cuMemAlloc_v2", 243},         {"cuMemFree_v2", 245},
    {"cuMemcpyHtoDAsync_v2", 277}, {"cuMemcpyDtoHAsync_v2", 279},  {"cuStreamWaitEvent", 295},
    {"cuMemcpyAsync", 306},        {"cuLaunchKernel", 307},        {"cuStreamSynchronize_ptsz", 440},
    {"cuLaunchKernel_ptsz", 442},  {"cuGraphLaunch", 514},         {"cuGraphLaunch_ptsz", 515},
    {"cuLaunchKernelEx", 652},     {"cuLaunchKernelEx_ptsz", 653},
};

/* "cudaLaunchKernel" names "cudaLaunchKernel_v7000": the rest is "_v" and digits. */
static int names_call(const char *entry, const char *name, size_t len) {
  if (strncmp(entry, name, len) != 0)
    return 0;
  const char *rest = entry + len;
  if (!*rest)
    return 1;
  if (rest[0] != '_' || rest[1] != 'v' || !rest[2])
    return 0;
  for (rest += 2; *rest; rest++)
    if (*rest < '0' || *rest > '9')
      return 0;
  return 1;
}

uint32_t gw_cuda_call_cbid(const char *name, size_t len, int driver) {
  if (!name || !len || memchr(name, '\0', len))
    return 0;
  const struct named_cbid *t = driver ? DRIVER_CBIDS : RUNTIME_CBIDS;
  size_t n = driver ? sizeof DRIVER_CBIDS / sizeof *t : sizeof RUNTIME_CBIDS / sizeof *t;
  for (size_t i = 0; i < n; i++)
    if (names_call(t[i].name, name, len))
      return t[i].cbid;
  return 0;
}
