/* A GPU backend: where record, watch, serve and check get their GPU facts
 * and samples. NVML is one (gpu_backend_nvml.c); the replay backend
 * (store/gpu_backend_replay.c) plays back a recording's GPU rows, a testing
 * aid. A new vendor is one file that defines its ops plus one row in
 * record/gpu_backend_list.h.
 *
 * Windowed SM activity (SM activity, occupancy, tensor and DRAM activity
 * averaged over a window of set_window_ms) is what tells a full GPU from a
 * busy one. A backend gives it when its GPU measures it (NVML: GPM, Hopper
 * and newer); where it does not, a filler may (record/gpu_backends.h lists
 * them: DCGM while recording, PM sampling and launch configurations when the
 * recording is analysed). */
#ifndef GW_GPU_BACKEND_H
#define GW_GPU_BACKEND_H

#include "core/sample.h"
#include "core/util.h"

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
  /* Window of the windowed SM activity (NVML: GPM's sample interval);
   * NULL when the backend has none. */
  void (*set_window_ms)(void *state, unsigned ms);
  /* One GPU at t_ns, the tiers in what (GW_GPU_* bits; health is the SLOW and
   * RARE tiers). GW_ELOST once the GPU is gone: the caller stops asking. */
  GW_NODISCARD gw_status (*sample)(void *state, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *out,
                                   const struct gw_event_sink *events);
  /* Processes on the GPU: how many written to out, -1 on failure; NULL when
   * the backend cannot list them. */
  int (*processes)(void *state, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max);
  /* Never read windowed SM activity again (record --no-gpm: the path of a
   * GPU without it, on one that has it); NULL when the backend has none. */
  void (*disable_windowed)(void *state);
};

/* A filler of windowed SM activity while recording: sets the windowed
 * columns of a sample that the backend left unknown (record/gpu_backends.c
 * lists the fillers). */
struct gw_windowed_filler_ops {
  const char *name; /* the recording's meta sm_activity_source.gpuN */
  /* How many columns of out it set (about once per window). */
  int (*fill)(void *state, unsigned gpu, int64_t t_ns, struct gw_gpu_sample *out, const struct gw_event_sink *events);
  /* 1 once fill has set a column of this GPU. */
  int (*filled)(const void *state, unsigned gpu);
  void (*close)(void *state);
};

/* An open backend. */
struct gw_gpu {
  const struct gw_gpu_backend_ops *ops;
  void *state;
  /* The filler of the windowed columns of the GPUs in filler_gpus (those
   * whose backend has no windowed SM activity), or NULL. */
  const struct gw_windowed_filler_ops *filler;
  void *filler_state;
  uint64_t filler_gpus; /* bit per GPU index */
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
  if (rc == GW_OK && g->filler && (what & GW_GPU_FAST) && gpu < 64 && ((g->filler_gpus >> gpu) & 1))
    (void)g->filler->fill(g->filler_state, gpu, t_ns, out, events);
  return rc;
}
/* The name of the filler once it has filled a windowed column of this GPU,
 * else NULL (the backend's own, or none). */
static inline const char *gw_gpu_windowed_filled_by(const struct gw_gpu *g, unsigned gpu) {
  return g->filler && g->filler->filled(g->filler_state, gpu) ? g->filler->name : NULL;
}
static inline int gw_gpu_processes(struct gw_gpu *g, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max) {
  return g->ops->processes ? g->ops->processes(g->state, gpu, t_ns, out, max) : 0;
}

#endif
