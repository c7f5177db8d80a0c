/* What gpuwhy knows of CUDA calls by their CUPTI callback ids (cbid): the id
 * of a call given by name, for traces that name calls instead of numbering
 * them (Nsight Systems exports, older Kineto traces), and which calls launch
 * work or make the host wait. Ids from cupti_runtime_cbid.h and
 * cupti_driver_cbid.h of CUDA 13.0; CUPTI never reuses them. */
#ifndef GW_CORE_CUDA_CALLS_H
#define GW_CORE_CUDA_CALLS_H

#include <stddef.h>
#include <stdint.h>

/* The callback id of runtime (driver = 0) or driver call name[0..len), given
 * either as CUPTI spells it ("cudaLaunchKernel_v7000") or without its
 * version suffix ("cudaLaunchKernel"); 0 for a call the analysis does not
 * look at. */
uint32_t gw_cuda_call_cbid(const char *name, size_t len, int driver);

/* A kernel or graph launch. */
int gw_cuda_call_is_launch(int driver, uint32_t cbid);

/* A call through which the host waits for the GPU: synchronize calls and
 * blocking copies (not cudaStreamWaitEvent, which makes a stream wait). */
int gw_cuda_call_is_sync(int driver, uint32_t cbid);

#endif
