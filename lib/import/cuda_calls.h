/* CUPTI callback ids of CUDA calls by name, for traces that name calls
 * instead of numbering them (Nsight Systems exports, older Kineto traces). */
#ifndef GW_IMPORT_CUDA_CALLS_H
#define GW_IMPORT_CUDA_CALLS_H

#include <stddef.h>
#include <stdint.h>

/* The callback id of runtime (driver = 0) or driver call name[0..len), given
 * either as CUPTI spells it ("cudaLaunchKernel_v7000") or without its
 * version suffix ("cudaLaunchKernel"); 0 for a call the analysis does not
 * look at. */
uint32_t gw_cuda_call_cbid(const char *name, size_t len, int driver);

#endif
