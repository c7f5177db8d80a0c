/* A third GPU backend, compiled only into test_extra_sources: two GPUs whose
 * GPU-Util is 60 + the index and whose windowed SM activity is 30 + the
 * index, so that the test can find each GPU's own numbers in the recording.
 * GPUWHY_GPU_BACKEND=fake chooses it. */
#include <stdlib.h>
#include <stdio.h>

#include "sources/gpu_backend.h"

enum { FAKE_GPUS = 2 };

struct fake_gpus {
  unsigned window_ms;
};

static gw_status fake_open(void **state, const char *arg, struct gw_err *err) {
  (void)arg, (void)err;
  *state = gw_xcalloc(1, sizeof(struct fake_gpus));
  return GW_OK;
}

static void fake_close(void *state) {
  free(state);
}

static unsigned fake_count(const void *state) {
  (void)state;
  return FAKE_GPUS;
}

static void fake_driver(const void *state, struct gw_driver_info *out) {
  (void)state;
  snprintf(out->driver_version, sizeof out->driver_version, "fake-driver-1");
  snprintf(out->nvml_version, sizeof out->nvml_version, "none");
  out->cuda_driver_version = 0;
}

static gw_status fake_identity(void *state, unsigned gpu, struct gw_gpu_info *out, struct gw_err *err) {
  (void)state, (void)err;
  snprintf(out->name, sizeof out->name, "Fake GPU %u", gpu);
  snprintf(out->uuid, sizeof out->uuid, "GPU-fake-%u", gpu);
  out->windowed_supported = 1;
  out->temp_slowdown_c = out->temp_shutdown_c = -1;
  out->mig_enabled = out->persistence_mode = out->compute_mode = out->ecc_enabled = -1;
  return GW_OK;
}

static void fake_window(void *state, unsigned ms) {
  ((struct fake_gpus *)state)->window_ms = ms;
}

static gw_status fake_sample(void *state, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *out,
                             const struct gw_event_sink *events) {
  (void)state, (void)t_ns, (void)events;
  if (what & GW_GPU_FAST) {
    gw_gpu_set(out, GW_M_util_gpu_pct, 60.0 + gpu);
    gw_gpu_set(out, GW_M_sm_active_pct, 30.0 + gpu);
  }
  return GW_OK;
}

const struct gw_gpu_backend_ops gw_gpu_backend_fake = {
    .name = "fake",
    .open = fake_open,
    .close = fake_close,
    .count = fake_count,
    .driver = fake_driver,
    .identity = fake_identity,
    .set_window_ms = fake_window,
    .sample = fake_sample,
};
