#include "record/gpu_backends.h"

#include <stdlib.h>
#include <string.h>

/* One row per backend; the first is the default. A backend is its file
 * (the ops) plus its row here. */
extern const struct gw_gpu_backend_ops gw_gpu_backend_nvml;   /* sources/gpu_backend_nvml.c */
extern const struct gw_gpu_backend_ops gw_gpu_backend_replay; /* store/gpu_backend_replay.c, a testing aid */
static const struct gw_gpu_backend_ops *const backends[] = {
    &gw_gpu_backend_nvml,
    &gw_gpu_backend_replay,
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

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

gw_status gw_gpu_attach_dcgm(struct gw_gpu *g, const char *address, unsigned window_ms, uint64_t gpus,
                             struct gw_err *err) {
  if (g->dcgm)
    return GW_OK;
  gw_status rc = gw_dcgm_open(&g->dcgm, address, window_ms, err);
  if (rc == GW_OK)
    g->dcgm_gpus = gpus;
  return rc;
}

void gw_gpu_close(struct gw_gpu *g) {
  if (!g)
    return;
  gw_dcgm_close(g->dcgm);
  g->ops->close(g->state);
  free(g);
}
