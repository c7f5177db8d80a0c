#include "record/gpu_backends.h"

#include <stdlib.h>
#include <string.h>

#include "sources/dcgm.h"

/* One row per backend (record/gpu_backend_list.h); the first is the default.
 * A backend is its file (the ops) plus its line there. */
#define GW_GPU_BACKEND(name) extern const struct gw_gpu_backend_ops gw_gpu_backend_##name;
#include "record/gpu_backend_list.h"
#undef GW_GPU_BACKEND
static const struct gw_gpu_backend_ops *const backends[] = {
#define GW_GPU_BACKEND(name) &gw_gpu_backend_##name,
#include "record/gpu_backend_list.h"
#undef GW_GPU_BACKEND
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

/* DCGM's profiling fields (sources/dcgm.h) as a windowed filler. */
static gw_status dcgm_open(void **state, const char *address, unsigned window_ms, struct gw_err *err) {
  struct gw_dcgm *d = NULL;
  gw_status rc = gw_dcgm_open(&d, address, window_ms, err);
  *state = rc == GW_OK ? d : NULL;
  return rc;
}
static int dcgm_fill(void *state, unsigned gpu, int64_t t_ns, struct gw_gpu_sample *out,
                     const struct gw_event_sink *events) {
  return gw_dcgm_fill(state, gpu, t_ns, out, events);
}
static int dcgm_filled(const void *state, unsigned gpu) {
  return gw_dcgm_filled(state, gpu);
}
static void dcgm_close(void *state) {
  gw_dcgm_close(state);
}
static const struct gw_windowed_filler_ops dcgm_ops = {"dcgm", dcgm_fill, dcgm_filled, dcgm_close};

/* The fillers of windowed SM activity for a GPU whose backend has none
 * (before Hopper on NVML, or record --no-gpm). A measurement comes before an
 * estimate: DCGM and PM sampling count SM cycles, the launch configurations
 * only bound how many SMs the kernels could keep busy. */
static const struct gw_sm_filler fillers[] = {
    {"dcgm", GW_SM_FILL_RECORDING, "record --dcgm and a DCGM host engine that watches the profiling fields",
     "gw_dcgm_fill (sources/dcgm.c)", dcgm_open, &dcgm_ops},
    {"pm_sampling", GW_SM_FILL_ANALYSIS, "a trace with CUPTI PM sampling (record --pm-sampling): pm_sample rows",
     "gw_sm_fill, from_pm_sampling (analysis/sm_fill.c)", NULL, NULL},
    {"launch_config", GW_SM_FILL_ANALYSIS,
     "a trace of the kernels (record --trace, or sampled on its own without windowed SM activity) and the "
     "trace_device limits",
     "gw_sm_fill, estimate_gpu (analysis/sm_fill.c)", NULL, NULL},
};

const struct gw_sm_filler *gw_sm_fillers(size_t *n) {
  *n = sizeof fillers / sizeof fillers[0];
  return fillers;
}

gw_status gw_gpu_open(struct gw_gpu **out, const char *nvml_lib, struct gw_err *err) {
  *out = NULL;
  const char *choice = getenv("GPUWHY_GPU_BACKEND");
  if (!choice || !choice[0])
    choice = backends[0]->name;
  const char *colon = strchr(choice, ':');
  size_t name_len = colon ? (size_t)(colon - choice) : strlen(choice);
  const struct gw_gpu_backend_ops *ops = NULL;
  for (int i = 0; i < NBACKENDS; i++)
    if (strlen(backends[i]->name) == name_len && strncmp(backends[i]->name, choice, name_len) == 0)
      ops = backends[i];
  if (!ops) {
    char names[256] = "";
    for (int i = 0; i < NBACKENDS; i++) {
      strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
      strncat(names, backends[i]->name, sizeof names - strlen(names) - 1);
    }
    /* English: the recorder keeps this message as the recording's gpu_note */
    gw_err_set(err, "GPUWHY_GPU_BACKEND=%s: no such GPU backend (known: %s)", choice, names);
    return GW_EINPUT;
  }
  void *state = NULL;
  gw_status rc = ops->open(&state, colon ? colon + 1 : ops == backends[0] ? nvml_lib : NULL, err);
  if (rc != GW_OK)
    return rc;
  struct gw_gpu *g = gw_xcalloc(1, sizeof *g);
  g->ops = ops;
  g->state = state;
  *out = g;
  return GW_OK;
}

gw_status gw_gpu_attach_filler(struct gw_gpu *g, const char *name, const char *arg, unsigned window_ms, uint64_t gpus,
                               struct gw_err *err) {
  if (g->filler)
    return GW_OK;
  const struct gw_sm_filler *f = NULL;
  for (size_t i = 0; i < sizeof fillers / sizeof fillers[0]; i++)
    if (fillers[i].stage == GW_SM_FILL_RECORDING && strcmp(fillers[i].name, name) == 0)
      f = &fillers[i];
  if (!f) {
    gw_err_set(err, "%s: no such filler of SM activity while recording", name);
    return GW_EINPUT;
  }
  gw_status rc = f->open(&g->filler_state, arg, window_ms, err);
  if (rc == GW_OK) {
    g->filler = f->ops;
    g->filler_gpus = gpus;
  }
  return rc;
}

void gw_gpu_close(struct gw_gpu *g) {
  if (!g)
    return;
  if (g->filler)
    g->filler->close(g->filler_state);
  g->ops->close(g->state);
  free(g);
}
