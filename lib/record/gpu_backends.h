/* The registry of GPU backends (sources/gpu_backend.h) and the choice among
 * them: GPUWHY_GPU_BACKEND=NAME or NAME:ARG; unset, NVML. */
#ifndef GW_GPU_BACKENDS_H
#define GW_GPU_BACKENDS_H

#include "sources/gpu_backend.h"

/* Open the chosen backend. nvml_lib (may be NULL) is the ARG of a backend
 * named without one (the --nvml-lib option). On failure *out is NULL and
 * err holds a one-line reason (GW_ENOTSUP: no such GPU source here). */
GW_NODISCARD gw_status gw_gpu_open(struct gw_gpu **out, const char *nvml_lib, struct gw_err *err);
void gw_gpu_close(struct gw_gpu *g);

/* DCGM's profiling fields (sources/dcgm.h) for the GPUs whose bit is set in
 * gpus (those without GPM), at the host engine at address (NULL: the
 * default), in windows of window_ms. GW_ENOTSUP with a one-line reason when
 * DCGM cannot give them; the backend then samples as before. */
GW_NODISCARD gw_status gw_gpu_attach_dcgm(struct gw_gpu *g, const char *address, unsigned window_ms, uint64_t gpus,
                                          struct gw_err *err);

#endif
