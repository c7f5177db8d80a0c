/* How a Python stack sample reads (see py_sample_cause.h). */
#include "analysis/py_sample_cause.h"

#include <stdlib.h>
#include <string.h>

#include "core/activity.h"
#include "core/util.h"

/* Samples of a function making the batch before it counts as one: a single
 * sample's classification can be off by a line (C methods leave no frame). */
#define BATCH_MAKER_MIN_SAMPLES 3

/* The functions of the rank's code that make the batch in the training
 * thread (data made inline at 3 samples or more) and never launch the model's
 * work (no forward/backward, optimizer or copy to the GPU in them): a helper
 * the loop calls for its next batch, such as a fetch from a remote store.
 * A wait inside such a function (a sleep, a socket, a queue of its own) is
 * the batch's: the GPU idles because the next batch is not there yet. The
 * loop's own function is left out: its waits may be anything. Returns a
 * table by frame id (NULL when none qualifies), of *n entries. */
/* A frame by its function, and its place in the recording's frame list. */
struct frame_key {
  const char *file, *func;
  size_t index;
};

static int frame_key_cmp_fn(const struct frame_key *x, const struct frame_key *y) {
  int c = strcmp(x->file, y->file);
  return c ? c : strcmp(x->func, y->func);
}

/* By function, then by index: each function's frames in list order. */
static int frame_key_cmp(const void *a, const void *b) {
  const struct frame_key *x = a, *y = b;
  int c = frame_key_cmp_fn(x, y);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The largest frame id, the bound of a table by frame id; -1 when there is
 * none or the ids are too sparse for one (the hook numbers them 0.. in order;
 * a table is then done without). */
static int32_t py_frame_id_max(const struct gw_recording *rec) {
  int32_t max_id = -1;
  for (size_t i = 0; i < rec->npy_frames; i++)
    if (rec->py_frames[i].id > max_id)
      max_id = rec->py_frames[i].id;
  return max_id >= 0 && (size_t)max_id >= 16 * rec->npy_frames + 1024 ? -1 : max_id;
}

static unsigned char *batch_maker_frames(const struct gw_recording *rec, int64_t pid, int32_t *n) {
  *n = 0;
  int32_t max_id = py_frame_id_max(rec);
  if (max_id < 0)
    return NULL;
  /* each frame id's function: the index of its first frame of the same
   * file and function, found by sorting the frames by function (a program
   * names thousands of frames: pairwise comparison would be quadratic) */
  struct frame_key *keys = gw_xcalloc(rec->npy_frames + 1, sizeof *keys);
  for (size_t i = 0; i < rec->npy_frames; i++)
    keys[i] = (struct frame_key){rec->py_frames[i].file, rec->py_frames[i].func, i};
  qsort(keys, rec->npy_frames, sizeof *keys, frame_key_cmp);
  int32_t *fn = gw_xcalloc((size_t)max_id + 1, sizeof *fn);
  for (int32_t k = 0; k <= max_id; k++)
    fn[k] = -1;
  for (size_t i = 0, first = 0; i < rec->npy_frames; i++) {
    if (i > 0 && frame_key_cmp_fn(&keys[i - 1], &keys[i]) != 0)
      first = i; /* a new function: its lowest index comes first */
    fn[rec->py_frames[keys[i].index].id] = (int32_t)keys[first].index;
  }
  free(keys);
  int *inline_n = gw_xcalloc(rec->npy_frames + 1, sizeof *inline_n);
  unsigned char *launches = gw_xcalloc(rec->npy_frames + 1, 1);
  for (size_t k = 0; k < rec->npy_ticks; k++) {
    const struct gw_py_tick *p = &rec->py_ticks[k];
    if (p->pid != pid || p->frame < 0 || p->frame > max_id || fn[p->frame] < 0)
      continue;
    int32_t j = fn[p->frame];
    if (p->activity == GW_PYACT_DATA_INLINE)
      inline_n[j]++;
    else if (p->activity == GW_PYACT_FORWARD_BACKWARD || p->activity == GW_PYACT_OPTIMIZER ||
             p->activity == GW_PYACT_H2D)
      launches[j] = 1;
  }
  unsigned char *maker = gw_xcalloc((size_t)max_id + 1, 1);
  int any = 0;
  for (int32_t k = 0; k <= max_id; k++)
    if (fn[k] >= 0 && inline_n[fn[k]] >= BATCH_MAKER_MIN_SAMPLES && !launches[fn[k]])
      any = maker[k] = 1;
  free(fn);
  free(inline_n);
  free(launches);
  if (!any) {
    free(maker);
    return NULL;
  }
  *n = max_id + 1;
  return maker;
}

/* The frames whose function is named for a checkpoint
 * (gw_py_func_names_checkpoint): a table by frame id (NULL when none), of
 * *n entries. */
static unsigned char *checkpoint_frames(const struct gw_recording *rec, int32_t *n) {
  *n = 0;
  int32_t max_id = py_frame_id_max(rec);
  if (max_id < 0)
    return NULL;
  unsigned char *named = gw_xcalloc((size_t)max_id + 1, 1);
  int any = 0;
  for (size_t i = 0; i < rec->npy_frames; i++)
    if (rec->py_frames[i].id >= 0 && gw_py_func_names_checkpoint(rec->py_frames[i].func))
      any = named[rec->py_frames[i].id] = 1;
  if (!any) {
    free(named);
    return NULL;
  }
  *n = max_id + 1;
  return named;
}

/* A sample's activity as the idle time is charged: user code, a wait, a copy
 * or a sync inside a function named for a checkpoint is the checkpoint (the
 * hook's own rule since it knows the name; older recordings only name the
 * innermost user frame); a wait inside the function that makes the batch is
 * the batch's. */
int gw_py_sample_cause(const struct gw_py_causes *w, const struct gw_py_tick *p) {
  int c = p->activity < GW_PYACT_COUNT ? p->activity : GW_PYACT_OTHER;
  int named_ckpt = p->frame >= 0 && p->frame < w->ncheckpoint_fn && w->checkpoint_fn[p->frame];
  if (named_ckpt && (c == GW_PYACT_OTHER || c == GW_PYACT_DATA_INLINE || c == GW_PYACT_IDLE || c == GW_PYACT_H2D ||
                     c == GW_PYACT_SYNC))
    return GW_PYACT_CHECKPOINT;
  if (c == GW_PYACT_IDLE && p->frame >= 0 && p->frame < w->nbatch_maker && w->batch_maker[p->frame])
    return GW_PYACT_DATA_INLINE; /* waiting inside the function that makes the batch */
  return c;
}

void gw_py_causes_init(struct gw_py_causes *c, const struct gw_recording *rec, int64_t pid) {
  c->batch_maker = batch_maker_frames(rec, pid, &c->nbatch_maker);
  c->checkpoint_fn = checkpoint_frames(rec, &c->ncheckpoint_fn);
}

void gw_py_causes_free(struct gw_py_causes *c) {
  free(c->batch_maker);
  free(c->checkpoint_fn);
  memset(c, 0, sizeof *c);
}
