/* The registry of GPU backends (sources/gpu_backend.h) and the choice among
 * them: GPUWHY_GPU_BACKEND=NAME or NAME:ARG; unset, NVML. Beside them, the
 * fillers of windowed SM activity for GPUs whose backend has none. */
#ifndef GW_GPU_BACKENDS_H
#define GW_GPU_BACKENDS_H

#include <stddef.h>

#include "sources/gpu_backend.h"

/* Open the chosen backend. nvml_lib (may be NULL) is the ARG of a backend
 * named without one (the --nvml-lib option). On failure *out is NULL and
 * err holds a one-line reason (GW_ENOTSUP: no such GPU source here). */
GW_NODISCARD gw_status gw_gpu_open(struct gw_gpu **out, const char *nvml_lib, struct gw_err *err);
void gw_gpu_close(struct gw_gpu *g);

/* When a filler of windowed SM activity does its work. */
enum gw_sm_fill_stage {
  GW_SM_FILL_RECORDING, /* the recorder asks it beside the backend, each tick */
  GW_SM_FILL_ANALYSIS,  /* the analysis derives it from the recording's trace tables */
};

/* A filler of windowed SM activity: a row of gw_sm_fillers. */
struct gw_sm_filler {
  const char *name; /* as the report's sm_activity_source names it */
  enum gw_sm_fill_stage stage;
  const char *applies_when; /* in words, for the reader of the table */
  const char *entry;        /* its entry point, file and function */
  /* At GW_SM_FILL_RECORDING: open for windows of window_ms at arg (the
   * filler's own address, NULL: its default); GW_ENOTSUP with a one-line
   * reason when it cannot give the metrics here. NULL at analysis. */
  GW_NODISCARD gw_status (*open)(void **state, const char *arg, unsigned window_ms, struct gw_err *err);
  const struct gw_windowed_filler_ops *ops; /* NULL at analysis */
};

/* The fillers, in the order they are tried for a GPU; *n is how many. */
const struct gw_sm_filler *gw_sm_fillers(size_t *n);

/* The recording filler named name for the GPUs whose bit is set in gpus
 * (those without windowed SM activity), at arg, in windows of window_ms.
 * GW_ENOTSUP with a one-line reason when it cannot give them; the backend
 * then samples as before. A second filler is not attached (GW_OK). */
GW_NODISCARD gw_status gw_gpu_attach_filler(struct gw_gpu *g, const char *name, const char *arg, unsigned window_ms,
                                            uint64_t gpus, struct gw_err *err);

#endif
