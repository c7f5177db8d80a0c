#include "import/import_pipe.h"
#include "core/i18n.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_OPS 4096u
#define BATCH_ARENA_BYTES (1u << 20)
#define NBATCHES 4 /* one being filled, one being written, two waiting */

enum op_type { OP_KERNEL, OP_MEMCPY, OP_MEMSET, OP_SYNC, OP_API, OP_MARKER, OP_STEP, OP_PID, OP_DEVICE };

struct op {
  enum op_type type;
  uint32_t device;
  uint32_t name_off, name_len; /* bytes kept in the arena */
  size_t name_full_len;        /* length in the trace (longer names were cut) */
  const char *literal;         /* marker domain or step source */
  union {
    struct gw_wire_kernel kernel;
    struct gw_wire_memcpy memcpy;
    struct gw_wire_memset memset;
    struct gw_wire_sync sync;
    struct gw_wire_api api;
    struct gw_wire_marker marker;
    struct {
      int64_t start_ns, end_ns, step;
    } step;
    int64_t pid;
    struct gw_sink_device device;
  } u;
};

struct batch {
  struct op *ops;
  uint32_t nops;
  char *arena;
  size_t arena_len;
};

struct gw_pipe {
  struct gw_import_sink *sink;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct batch batches[NBATCHES];
  int free_list[NBATCHES], nfree;
  int full_list[NBATCHES], nfull; /* in order */
  int done;                       /* the parser handed over its last batch */
  gw_status writer_rc;            /* first failure of the writer */
  struct gw_err writer_err;
  struct batch *cur;
};

static gw_status apply(struct gw_pipe *p, struct op *o, const char *arena, struct gw_err *err) {
  struct gw_import_sink *s = p->sink;
  /* a GPU record's device is the trace's CUDA device until mapped here */
  uint32_t *record_device = o->type == OP_KERNEL   ? &o->u.kernel.device
                            : o->type == OP_MEMCPY ? &o->u.memcpy.device
                            : o->type == OP_MEMSET ? &o->u.memset.device
                                                   : NULL;
  if (record_device) {
    int gpu = gw_sink_gpu_for(s, o->device, err);
    if (gpu < 0)
      return GW_EINPUT;
    *record_device = (uint32_t)gpu;
  }
  switch (o->type) {
  case OP_KERNEL:
    return gw_sink_kernel(s, &o->u.kernel, arena + o->name_off, o->name_full_len, err);
  case OP_MEMCPY:
    return gw_sink_memcpy(s, &o->u.memcpy, err);
  case OP_MEMSET:
    return gw_sink_memset(s, &o->u.memset, err);
  case OP_SYNC:
    return gw_sink_sync(s, &o->u.sync, err);
  case OP_API:
    return gw_sink_api(s, &o->u.api, err);
  case OP_MARKER:
    return gw_sink_marker(s, &o->u.marker, arena + o->name_off, o->name_full_len, o->literal, err);
  case OP_STEP:
    return gw_sink_step(s, o->u.step.start_ns, o->u.step.end_ns, o->u.step.step, o->literal, err);
  case OP_PID:
    return gw_sink_set_pid(s, o->u.pid, err);
  case OP_DEVICE:
    gw_sink_add_device(s, &o->u.device);
    return GW_OK;
  }
  return GW_OK;
}

static void *writer_main(void *arg) {
  struct gw_pipe *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->nfull == 0 && !p->done)
      pthread_cond_wait(&p->cv, &p->mu);
    if (p->nfull == 0 && p->done)
      break;
    int bi = p->full_list[0];
    memmove(p->full_list, p->full_list + 1, (size_t)(p->nfull - 1) * sizeof p->full_list[0]);
    p->nfull--;
    gw_status failed = p->writer_rc;
    pthread_mutex_unlock(&p->mu);
    struct batch *b = &p->batches[bi];
    struct gw_err err = {{0}};
    gw_status rc = GW_OK;
    /* after a failure the batches are only drained, so the parser never waits
     */
    for (uint32_t i = 0; i < b->nops && !failed && !rc; i++)
      rc = apply(p, &b->ops[i], b->arena, &err);
    b->nops = 0;
    b->arena_len = 0;
    pthread_mutex_lock(&p->mu);
    if (rc && !p->writer_rc) {
      p->writer_rc = rc;
      p->writer_err = err;
    }
    p->free_list[p->nfree++] = bi;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* A batch's memory, taken when the parser first fills it: a small trace
 * fills one of the four, and clearing 5 MiB per import cost more than
 * importing it. Not cleared: slot() and put_name() write what is read. */
static struct batch *batch_ready(struct batch *b) {
  if (!b->ops) {
    b->ops = gw_xrealloc(NULL, BATCH_OPS * sizeof(struct op));
    b->arena = gw_xrealloc(NULL, BATCH_ARENA_BYTES);
  }
  return b;
}

/* The pipe and its batches, once no writer thread runs. */
static void pipe_free(struct gw_pipe *p) {
  for (int i = 0; i < NBATCHES; i++) {
    free(p->batches[i].ops);
    free(p->batches[i].arena);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p);
}

gw_status gw_pipe_start(struct gw_pipe **out, struct gw_import_sink *sink, struct gw_err *err) {
  *out = NULL;
  struct gw_pipe *p = gw_xcalloc(1, sizeof *p);
  p->sink = sink;
  for (int i = 0; i < NBATCHES; i++)
    p->free_list[p->nfree++] = i;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->cur = batch_ready(&p->batches[p->free_list[--p->nfree]]);
  if (pthread_create(&p->thread, NULL, writer_main, p) != 0) {
    gw_err_set(err, _("cannot start the writer thread"));
    pipe_free(p);
    return GW_ERR;
  }
  *out = p;
  return GW_OK;
}

/* Hand the current batch to the writer and take a free one. */
static gw_status swap_batch(struct gw_pipe *p) {
  pthread_mutex_lock(&p->mu);
  p->full_list[p->nfull++] = (int)(p->cur - p->batches);
  pthread_cond_broadcast(&p->cv);
  while (p->nfree == 0)
    pthread_cond_wait(&p->cv, &p->mu);
  p->cur = batch_ready(&p->batches[p->free_list[--p->nfree]]);
  gw_status rc = p->writer_rc;
  pthread_mutex_unlock(&p->mu);
  return rc;
}

/* A slot for one op with room for name_len bytes of name. */
static gw_status slot(struct gw_pipe *p, enum op_type type, size_t name_len, struct op **out) {
  if (name_len > GW_WIRE_NAME_MAX_BYTES)
    name_len = GW_WIRE_NAME_MAX_BYTES;
  struct batch *b = p->cur;
  if (b->nops >= BATCH_OPS || b->arena_len + name_len > BATCH_ARENA_BYTES) {
    gw_status rc = swap_batch(p);
    if (rc)
      return rc;
    b = p->cur;
  }
  struct op *o = &b->ops[b->nops++];
  o->type = type;
  o->name_off = (uint32_t)b->arena_len;
  o->name_len = (uint32_t)name_len;
  o->name_full_len = 0;
  o->literal = NULL;
  *out = o;
  return GW_OK;
}

static void put_name(struct gw_pipe *p, struct op *o, const char *name, size_t full_len) {
  o->name_full_len = full_len;
  if (o->name_len)
    memcpy(p->cur->arena + o->name_off, name, o->name_len);
  p->cur->arena_len += o->name_len;
}

/* An op carrying a copy of rec (record_bytes, one member of op.u) and the
 * CUDA device it ran on (0 for records that have none), with room for
 * name_full_len bytes of name. */
static gw_status put_record(struct gw_pipe *p, enum op_type type, uint32_t device, const void *rec, size_t record_bytes,
                            size_t name_full_len, struct op **out) {
  gw_status rc = slot(p, type, name_full_len, out);
  if (!rc) {
    (*out)->device = device;
    memcpy(&(*out)->u, rec, record_bytes);
  }
  return rc;
}

gw_status gw_pipe_kernel(struct gw_pipe *p, const struct gw_wire_kernel *k, uint32_t device, const char *name,
                         size_t name_full_len) {
  struct op *o;
  gw_status rc = put_record(p, OP_KERNEL, device, k, sizeof *k, name_full_len, &o);
  if (!rc)
    put_name(p, o, name, name_full_len);
  return rc;
}

gw_status gw_pipe_memcpy(struct gw_pipe *p, const struct gw_wire_memcpy *m, uint32_t device) {
  struct op *o;
  return put_record(p, OP_MEMCPY, device, m, sizeof *m, 0, &o);
}

gw_status gw_pipe_memset(struct gw_pipe *p, const struct gw_wire_memset *m, uint32_t device) {
  struct op *o;
  return put_record(p, OP_MEMSET, device, m, sizeof *m, 0, &o);
}

gw_status gw_pipe_sync(struct gw_pipe *p, const struct gw_wire_sync *y) {
  struct op *o;
  return put_record(p, OP_SYNC, 0, y, sizeof *y, 0, &o);
}

gw_status gw_pipe_api(struct gw_pipe *p, const struct gw_wire_api *a) {
  struct op *o;
  return put_record(p, OP_API, 0, a, sizeof *a, 0, &o);
}

gw_status gw_pipe_marker(struct gw_pipe *p, const struct gw_wire_marker *m, const char *name, size_t name_full_len,
                         const char *domain) {
  struct op *o;
  gw_status rc = put_record(p, OP_MARKER, 0, m, sizeof *m, name_full_len, &o);
  if (!rc) {
    o->literal = domain;
    put_name(p, o, name, name_full_len);
  }
  return rc;
}

gw_status gw_pipe_step(struct gw_pipe *p, int64_t start_ns, int64_t end_ns, int64_t step, const char *source) {
  struct op *o;
  gw_status rc = slot(p, OP_STEP, 0, &o);
  if (!rc) {
    o->u.step.start_ns = start_ns;
    o->u.step.end_ns = end_ns;
    o->u.step.step = step;
    o->literal = source;
  }
  return rc;
}

gw_status gw_pipe_set_pid(struct gw_pipe *p, int64_t pid) {
  struct op *o;
  gw_status rc = slot(p, OP_PID, 0, &o);
  if (!rc)
    o->u.pid = pid;
  return rc;
}

gw_status gw_pipe_device(struct gw_pipe *p, const struct gw_sink_device *d) {
  struct op *o;
  return put_record(p, OP_DEVICE, 0, d, sizeof *d, 0, &o);
}

gw_status gw_pipe_finish(struct gw_pipe *p, struct gw_err *err) {
  pthread_mutex_lock(&p->mu);
  if (p->cur->nops)
    p->full_list[p->nfull++] = (int)(p->cur - p->batches);
  p->done = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->thread, NULL);
  gw_status rc = p->writer_rc;
  if (rc)
    *err = p->writer_err;
  pipe_free(p);
  return rc;
}
