#include "core/cuda_calls.h"

#include <string.h>

/* The calls the analysis cares about (launches, synchronisations, copies,
 * allocations). Tables rather than cupti.h, so that gpuwhy builds where
 * CUPTI is absent. */
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

static const uint32_t RUNTIME_LAUNCHES[] = {
    211, /* cudaLaunchKernel */
    214, /* cudaLaunchKernel_ptsz */
    269, /* cudaLaunchCooperativeKernel */
    311, /* cudaGraphLaunch */
    312, /* cudaGraphLaunch_ptsz */
    430, /* cudaLaunchKernelExC */
    431, /* cudaLaunchKernelExC_ptsz */
};
static const uint32_t DRIVER_LAUNCHES[] = {
    307, /* cuLaunchKernel */
    442, /* cuLaunchKernel_ptsz */
    514, /* cuGraphLaunch */
    515, /* cuGraphLaunch_ptsz */
    652, /* cuLaunchKernelEx */
    653, /* cuLaunchKernelEx_ptsz */
};
static const uint32_t RUNTIME_SYNCS[] = {
    31,  /* cudaMemcpy */
    126, /* cudaThreadSynchronize */
    131, /* cudaStreamSynchronize */
    137, /* cudaEventSynchronize */
    165, /* cudaDeviceSynchronize */
    215, /* cudaMemcpy_ptds */
    239, /* cudaStreamSynchronize_ptsz */
};
static const uint32_t DRIVER_SYNCS[] = {
    17,  /* cuCtxSynchronize */
    45,  /* cuMemcpyDtoH */
    121, /* cuEventSynchronize */
    126, /* cuStreamSynchronize */
    278, /* cuMemcpyDtoH_v2 */
    440, /* cuStreamSynchronize_ptsz */
    800, /* cuCtxSynchronize_v2 */
};

static int listed(uint32_t cbid, const uint32_t *ids, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ids[i] == cbid)
      return 1;
  return 0;
}

int gw_cuda_call_is_launch(int driver, uint32_t cbid) {
  return driver ? listed(cbid, DRIVER_LAUNCHES, sizeof DRIVER_LAUNCHES / sizeof *DRIVER_LAUNCHES)
                : listed(cbid, RUNTIME_LAUNCHES, sizeof RUNTIME_LAUNCHES / sizeof *RUNTIME_LAUNCHES);
}

int gw_cuda_call_is_sync(int driver, uint32_t cbid) {
  return driver ? listed(cbid, DRIVER_SYNCS, sizeof DRIVER_SYNCS / sizeof *DRIVER_SYNCS)
                : listed(cbid, RUNTIME_SYNCS, sizeof RUNTIME_SYNCS / sizeof *RUNTIME_SYNCS);
}
