/* The NVML backend: sources/nvml.c behind the GPU backend interface. Its
 * windowed SM activity is NVML's GPM (GPU performance monitoring, Hopper
 * and newer): the window is GPM's sample interval. */
#include "sources/gpu_backend.h"

#include "sources/nvml.h"

static gw_status nvml_open(void **state, const char *lib_path, struct gw_err *err) {
  struct gw_nvml *nv = NULL;
  gw_status rc = gw_nvml_open(&nv, lib_path, err);
  *state = rc == GW_OK ? nv : NULL;
  return rc;
}

static void nvml_close(void *state) {
  gw_nvml_close(state);
}

static unsigned nvml_count(const void *state) {
  return gw_nvml_gpu_count(state);
}

static void nvml_driver(const void *state, struct gw_driver_info *out) {
  gw_nvml_driver_info(state, out);
}

static gw_status nvml_identity(void *state, unsigned gpu, struct gw_gpu_info *out, struct gw_err *err) {
  return gw_nvml_gpu_info(state, gpu, out, err);
}

static void nvml_window(void *state, unsigned ms) {
  gw_nvml_set_gpm_window_ms(state, ms);
}

static gw_status nvml_sample(void *state, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *out,
                             const struct gw_event_sink *events) {
  return gw_nvml_sample(state, gpu, t_ns, what, out, events);
}

static int nvml_processes(void *state, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max) {
  return gw_nvml_processes(state, gpu, t_ns, out, max);
}

static void nvml_no_windowed(void *state) {
  gw_nvml_disable_gpm(state);
}

const struct gw_gpu_backend_ops gw_gpu_backend_nvml = {
    "nvml",        nvml_open,   nvml_close,  nvml_count,     nvml_driver,
    nvml_identity, nvml_window, nvml_sample, nvml_processes, nvml_no_windowed,
};
