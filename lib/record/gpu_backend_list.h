/* The GPU backends, one GW_GPU_BACKEND(name) line each: the backend's ops are
 * gw_gpu_backend_<name>, defined in its own file. The first is the default.
 * Included where GW_GPU_BACKEND is defined (record/gpu_backends.c). */
GW_GPU_BACKEND(nvml)   /* sources/gpu_backend_nvml.c */
GW_GPU_BACKEND(replay) /* store/gpu_backend_replay.c, a testing aid */
#ifdef GW_EXTRA_GPU_BACKENDS
/* Backends compiled into a test only (tests/extra_sources/); no product target
 * defines GW_EXTRA_GPU_BACKENDS. */
#include GW_EXTRA_GPU_BACKENDS
#endif
