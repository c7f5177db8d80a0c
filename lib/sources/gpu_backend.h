/* A GPU backend: where record, watch, serve and check get their GPU facts
 * and samples. NVML is one (gpu_backend_nvml.c); the replay backend
 * (store/gpu_backend_replay.c) plays back a recording's GPU rows, a testing
 * aid. A new vendor is one file that defines its ops plus one row in
 * record/gpu_backends.c. */
#ifndef GW_GPU_BACKEND_H
#define GW_GPU_BACKEND_H

#include "core/sample.h"
#include "core/util.h"
#include "sources/dcgm.h"

struct gw_driver_info {
  char driver_version[80]; /* "580.159.04" */
  char nvml_version[80];   /* "13.580.159.04" */
  int cuda_driver_version; /* 13000, 0 unknown */
};

/* The sampling tiers a caller asks for (the bits of `what`); see
 * sources/nvml.h for what NVML reads in each. A backend without tiers
 * answers every call with what it has. */
enum { GW_GPU_FAST = 1, GW_GPU_SLOW = 2, GW_GPU_RARE = 4, GW_GPU_SECOND = 8 };

struct gw_gpu_backend_ops {
  const char *name; /* as GPUWHY_GPU_BACKEND names it */
  /* arg: what follows "name:" in GPUWHY_GPU_BACKEND, else the --nvml-lib
   * option (NULL for the default). GW_ENOTSUP with a one-line reason when
   * there is no such GPU source on this machine. */
  GW_NODISCARD gw_status (*open)(void **state, const char *arg, struct gw_err *err);
  void (*close)(void *state);
  unsigned (*count)(const void *state);
  void (*driver)(const void *state, struct gw_driver_info *out);
  /* Static facts of one GPU (out->index preset). */
  GW_NODISCARD gw_status (*identity)(void *state, unsigned gpu, struct gw_gpu_info *out, struct gw_err *err);
  /* Length of windowed metrics (GPM on NVML); NULL when the backend has none. */
  void (*set_window_ms)(void *state, unsigned ms);
  /* One GPU at t_ns, the tiers in what (GW_GPU_* bits; health is the SLOW and
   * RARE tiers). GW_ELOST once the GPU is gone: the caller stops asking. */
  GW_NODISCARD gw_status (*sample)(void *state, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *out,
                                   const struct gw_event_sink *events);
  /* Processes on the GPU: how many written to out, -1 on failure; NULL when
   * the backend cannot list them. */
  int (*processes)(void *state, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max);
  /* Never read the windowed metrics again (record --no-gpm: the path of a GPU
   * without them, on one that has them); NULL when the backend has none. */
  void (*disable_windowed)(void *state);
};

/* An open backend. */
struct gw_gpu {
  const struct gw_gpu_backend_ops *ops;
  void *state;
  /* DCGM's profiling fields fill the windowed columns of the GPUs in
   * dcgm_gpus (those without GPM; record --dcgm): record/gpu_backends.c. */
  struct gw_dcgm *dcgm;
  uint64_t dcgm_gpus; /* bit per GPU index */
};

static inline unsigned gw_gpu_count(const struct gw_gpu *g) {
  return g->ops->count(g->state);
}
static inline void gw_gpu_driver_info(const struct gw_gpu *g, struct gw_driver_info *out) {
  g->ops->driver(g->state, out);
}
GW_NODISCARD static inline gw_status gw_gpu_identity(struct gw_gpu *g, unsigned gpu, struct gw_gpu_info *out,
                                                     struct gw_err *err) {
  return g->ops->identity(g->state, gpu, out, err);
}
static inline void gw_gpu_disable_windowed(struct gw_gpu *g) {
  if (g->ops->disable_windowed)
    g->ops->disable_windowed(g->state);
}
static inline void gw_gpu_set_window_ms(struct gw_gpu *g, unsigned ms) {
  if (g->ops->set_window_ms)
    g->ops->set_window_ms(g->state, ms);
}
GW_NODISCARD static inline gw_status gw_gpu_sample(struct gw_gpu *g, unsigned gpu, int64_t t_ns, unsigned what,
                                                   struct gw_gpu_sample *out, const struct gw_event_sink *events) {
  gw_status rc = g->ops->sample(g->state, gpu, t_ns, what, out, events);
  if (rc == GW_OK && g->dcgm && (what & GW_GPU_FAST) && gpu < 64 && ((g->dcgm_gpus >> gpu) & 1))
    (void)gw_dcgm_fill(g->dcgm, gpu, t_ns, out, events);
  return rc;
}
/* 1 once DCGM has filled a windowed column of this GPU. */
static inline int gw_gpu_dcgm_filled(const struct gw_gpu *g, unsigned gpu) {
  return g->dcgm && gw_dcgm_filled(g->dcgm, gpu);
}
static inline int gw_gpu_processes(struct gw_gpu *g, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max) {
  return g->ops->processes ? g->ops->processes(g->state, gpu, t_ns, out, max) : 0;
}

#endif
