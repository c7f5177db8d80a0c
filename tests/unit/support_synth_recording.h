/* A synthetic recording (report_synth.h) of one GPU loaded into the model,
 * and its release with the samples a test attached to it itself (stack
 * ticks and frames, threads, steps). Header-only; include after <cmocka.h>. */
#ifndef GW_SUPPORT_SYNTH_RECORDING_H
#define GW_SUPPORT_SYNTH_RECORDING_H

#include <stdlib.h>
#include <unistd.h>

#include "analysis/series.h"
#include "report_synth.h"

/* Writes seconds of one GPU's shape to path, replacing what was there, and
 * loads it. */
static inline struct gw_recording *support_synth_load(const char *path, double seconds, synth_gpu_fn gpu_fn,
                                                      synth_host_fn host_fn) {
  unlink(path);
  assert_int_equal(synth_write(path, 1, seconds, 0, gpu_fn, host_fn), 0);
  struct gw_recording *rec = NULL;
  struct gw_err err;
  assert_int_equal(gw_recording_load(path, &rec, &err), GW_OK);
  return rec;
}

/* Attaches room for nticks stack ticks and two frames: the training loop
 * (id 1, train.py:41 train_epoch) and second (id 2), where the test's slow
 * or idle activity sits. */
static inline void support_synth_py_frames(struct gw_recording *rec, size_t nticks, struct gw_py_frame_info second) {
  rec->py_ticks = calloc(nticks, sizeof *rec->py_ticks);
  rec->py_frames = calloc(2, sizeof *rec->py_frames);
  rec->py_frames[0] = (struct gw_py_frame_info){1, 41, "/home/u/train.py", "train_epoch"};
  rec->py_frames[1] = second;
  rec->npy_frames = 2;
}

/* Frees what the test attached (so the model's own free, which the samplers'
 * loader extends, never sees it), then the recording; removes its file. */
static inline void support_synth_free(struct gw_recording *rec, const char *path) {
  free(rec->py_ticks);
  free(rec->py_frames);
  free(rec->threads);
  free(rec->thread_ticks);
  free(rec->steps);
  rec->py_ticks = NULL;
  rec->py_frames = NULL;
  rec->threads = NULL;
  rec->thread_ticks = NULL;
  rec->steps = NULL;
  rec->npy_ticks = rec->npy_frames = rec->nthreads = rec->nthread_ticks = rec->nsteps = 0;
  gw_recording_free(rec);
  unlink(path);
}

#endif
