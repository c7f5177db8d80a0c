#include "import/import_sink.h"
#include "core/i18n.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_job.h"
#include "store/store_write.h"

/* A commit every so many rows: large transactions keep inserts fast, and the
 * page cache, not the transaction, bounds memory. */
#define COMMIT_EVERY_ROWS 100000u

/* Name table bounds: when either fills, the table starts afresh and names
 * seen again get new ids (ids are never reused within a process). The
 * table starts small and doubles up to them: a small import (and every
 * fuzzer input) need not clear 10 MB first. */
#define NAME_SLOTS (1u << 17)
#define NAME_MAX_ENTRIES (1u << 16)
#define NAME_ARENA_BYTES (8u << 20)

/* GPU records waiting for their process id. */
#define QUEUE_MAX_ENTRIES 4096u
#define QUEUE_ARENA_BYTES (1u << 20)

#define MAX_DEVICES 512
#define MAX_GPU_MAPS 1024

struct name_entry {
  uint64_t hash;
  uint32_t off, len, id;
};

#define NAME_SLOTS_FIRST 1024u
#define NAME_ENTRIES_FIRST 512u
#define NAME_ARENA_FIRST (4u << 10)
#define QUEUE_ENTRIES_FIRST 64u
#define QUEUE_ARENA_FIRST (4u << 10)

struct name_table {
  uint32_t *slots; /* entry index + 1, 0 = empty */
  uint32_t nslots; /* a power of two, at most NAME_SLOTS */
  struct name_entry *entries;
  uint32_t n, entries_cap;
  char *arena;
  size_t arena_len, arena_cap;
  uint32_t next_id;
};

enum queued_type { Q_KERNEL, Q_MEMCPY, Q_MEMSET, Q_SYNC, Q_MARKER };

struct queued {
  enum queued_type type;
  union {
    struct gw_wire_kernel kernel;
    struct gw_wire_memcpy memcpy;
    struct gw_wire_memset memset;
    struct gw_wire_sync sync;
    struct gw_wire_marker marker;
  } r;
  uint32_t name_off, name_len, domain_off, domain_len;
};

struct gpu_map {
  int input_index;
  uint32_t device;
  int gpu;
};

struct gw_import_sink {
  struct gw_store *store;
  struct gw_store_trace *trace;
  struct gw_trace_callbacks cb;
  char source[64];
  uint64_t rows_since_commit, rows;
  struct gw_import_counts counts;
  int64_t t_min, t_max;
  /* the current process */
  int input_index;
  int pid_known;
  uint32_t pid;
  int64_t proc_t_min, proc_t_max;
  uint32_t proc_kinds;
  uint32_t used_pids[256];
  int nused_pids;
  uint32_t next_synthetic_pid;
  struct name_table names;
  /* queue */
  struct queued *queue;
  uint32_t nqueue, queue_cap;
  char *queue_arena;
  size_t queue_arena_len, queue_arena_cap;
  /* devices and GPUs: grown as inputs name them (most imports have one or two) */
  struct gw_sink_device *devices;
  int ndevices, devices_cap;
  struct gpu_map *maps;
  int nmaps, maps_cap;
  unsigned char gpu_used[GW_SINK_MAX_GPU_INDEX];
  int ngpus;
};

static gw_status store_fail(struct gw_import_sink *s, struct gw_err *err, const char *what) {
  gw_err_set(err, _("%s: writing %s failed: %s"), gw_store_path(s->store), _(what), gw_store_errmsg(s->store));
  return GW_EIO;
}

static gw_status trace_fail(struct gw_import_sink *s, struct gw_err *err) {
  gw_err_set(err, "%s: %s", gw_store_path(s->store), gw_store_trace_errmsg(s->trace));
  return GW_EIO;
}

gw_status gw_sink_open(struct gw_import_sink **out, const char *path, const char *source, struct gw_err *err) {
  *out = NULL;
  struct gw_import_sink *s = gw_xcalloc(1, sizeof *s);
  gw_strlcpy(s->source, source, sizeof s->source);
  s->t_min = INT64_MAX;
  s->t_max = INT64_MIN;
  s->next_synthetic_pid = GW_SINK_SYNTHETIC_PID_BASE;
  s->names.nslots = NAME_SLOTS_FIRST;
  s->names.slots = gw_xcalloc(s->names.nslots, sizeof *s->names.slots);
  s->names.entries_cap = NAME_ENTRIES_FIRST;
  s->names.entries = gw_xcalloc(s->names.entries_cap, sizeof *s->names.entries);
  s->names.arena_cap = NAME_ARENA_FIRST;
  s->names.arena = gw_xcalloc(1, s->names.arena_cap);
  s->queue_cap = QUEUE_ENTRIES_FIRST;
  s->queue = gw_xcalloc(s->queue_cap, sizeof *s->queue);
  s->queue_arena_cap = QUEUE_ARENA_FIRST;
  s->queue_arena = gw_xcalloc(1, s->queue_arena_cap);
  gw_status rc = gw_store_create(&s->store, path, err);
  if (rc)
    goto fail;
  if ((rc = gw_store_trace_open_on(&s->trace, s->store, err)))
    goto fail;
  s->cb = gw_store_trace_batch_callbacks(s->trace); /* flushed before each commit */
  /* The file is the import's own temporary one, removed on failure and moved
   * into place only after gw_sink_finish: no reader sees it before then, so
   * it is written once, without the WAL's second copy of every page and
   * without syncs; gw_sink_finish syncs it and turns WAL back on. */
  if (gw_store_bulk_begin(s->store) != GW_OK) {
    rc = store_fail(s, err, "the import settings");
    goto fail;
  }
  struct gw_run_info run = {.source = s->source};
  /* this also opens the first transaction, which the tracer inserts need */
  if (gw_store_put_run(s->store, &run) != GW_OK) {
    rc = store_fail(s, err, N_("the run row"));
    goto fail;
  }
  char run_id[40];
  gw_store_new_run_id(run_id, sizeof run_id);
  if (gw_store_put_meta(s->store, "run_id", run_id) != GW_OK) {
    rc = store_fail(s, err, N_("the run row"));
    goto fail;
  }
  *out = s;
  return GW_OK;
fail:
  gw_sink_close(s);
  return rc;
}

void gw_sink_close(struct gw_import_sink *s) {
  if (!s)
    return;
  gw_store_trace_close(s->trace);
  gw_store_close(s->store);
  free(s->names.slots);
  free(s->names.entries);
  free(s->names.arena);
  free(s->queue);
  free(s->queue_arena);
  free(s->devices);
  free(s->maps);
  free(s);
}

struct gw_import_counts *gw_sink_counts(struct gw_import_sink *s) {
  return &s->counts;
}
struct gw_store *gw_sink_store(struct gw_import_sink *s) {
  return s->store;
}

struct gw_store *gw_sink_take_store(struct gw_import_sink *s) {
  struct gw_store *st = s->store;
  gw_store_trace_close(s->trace); /* its statements are on the store's connection */
  s->trace = NULL;
  s->store = NULL;
  return st;
}
int gw_sink_gpu_count(const struct gw_import_sink *s) {
  return s->ngpus;
}

gw_status gw_sink_meta(struct gw_import_sink *s, const char *key, const char *value, struct gw_err *err) {
  if (gw_store_put_meta(s->store, key, value) != GW_OK)
    return store_fail(s, err, N_("meta"));
  return GW_OK;
}

gw_status gw_sink_metaf(struct gw_import_sink *s, struct gw_err *err, const char *key, const char *fmt, ...) {
  char value[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  return gw_sink_meta(s, key, value, err);
}

/* Count one row; commit and reopen the transaction now and then. The meta
 * row that reopens it says how far the import got, should it stop there. */
static gw_status row_done(struct gw_import_sink *s, struct gw_err *err) {
  s->rows++;
  if (++s->rows_since_commit < COMMIT_EVERY_ROWS)
    return GW_OK;
  s->rows_since_commit = 0;
  if (gw_store_trace_flush(s->trace) != GW_OK)
    return trace_fail(s, err);
  if (gw_store_commit(s->store) != GW_OK)
    return store_fail(s, err, N_("a commit"));
  return gw_sink_metaf(s, err, "import_rows_committed", "%" PRIu64, s->rows);
}

void gw_sink_saw_time(struct gw_import_sink *s, int64_t start_ns, int64_t end_ns) {
  if (start_ns < s->t_min)
    s->t_min = start_ns;
  if (end_ns > s->t_max)
    s->t_max = end_ns;
  if (start_ns < s->proc_t_min)
    s->proc_t_min = start_ns;
  if (end_ns > s->proc_t_max)
    s->proc_t_max = end_ns;
}

/* ---- names ---- */

/* Eight bytes a step, then a final mix for the slot's low bits: names are
 * hashed once per kernel and marker row. Ids do not depend on the hash. */
static uint64_t hash_bytes(const char *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  memcpy(&w, p, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

static void names_reset(struct name_table *t, int restart_ids) {
  memset(t->slots, 0, t->nslots * sizeof *t->slots);
  t->n = 0;
  t->arena_len = 0;
  if (restart_ids)
    t->next_id = 1;
}

/* Room for one more entry of len bytes, within the bounds above: the slots
 * kept at most half full (rehashed from the entries' hashes when they
 * double), the entries and the arena doubled as needed. */
static void names_grow(struct name_table *t, size_t len) {
  if (t->n >= t->entries_cap) {
    t->entries_cap = t->entries_cap * 2 < NAME_MAX_ENTRIES ? t->entries_cap * 2 : NAME_MAX_ENTRIES;
    t->entries = gw_xrealloc(t->entries, t->entries_cap * sizeof *t->entries);
  }
  while (t->arena_len + len > t->arena_cap) {
    t->arena_cap = t->arena_cap * 2 < NAME_ARENA_BYTES ? t->arena_cap * 2 : NAME_ARENA_BYTES;
    t->arena = gw_xrealloc(t->arena, t->arena_cap);
  }
  if ((t->n + 1) * 2 > t->nslots && t->nslots < NAME_SLOTS) {
    free(t->slots);
    t->nslots *= 2;
    t->slots = gw_xcalloc(t->nslots, sizeof *t->slots);
    for (uint32_t i = 0; i < t->n; i++) {
      uint32_t slot = (uint32_t)t->entries[i].hash & (t->nslots - 1);
      while (t->slots[slot])
        slot = (slot + 1) & (t->nslots - 1);
      t->slots[slot] = i + 1;
    }
  }
}

/* Id of name in the current process, defining it on first use. */
static gw_status name_id(struct gw_import_sink *s, const char *name, size_t len, uint32_t *id, struct gw_err *err) {
  struct name_table *t = &s->names;
  if (len > GW_WIRE_NAME_MAX_BYTES)
    len = GW_WIRE_NAME_MAX_BYTES; /* the tracer caps names the same way */
  uint64_t h = hash_bytes(name, len);
  uint32_t slot = (uint32_t)h & (t->nslots - 1);
  for (;;) {
    uint32_t e = t->slots[slot];
    if (!e)
      break;
    struct name_entry *ne = &t->entries[e - 1];
    if (ne->hash == h && ne->len == len && memcmp(t->arena + ne->off, name, len) == 0) {
      *id = ne->id;
      return GW_OK;
    }
    slot = (slot + 1) & (t->nslots - 1);
  }
  if (t->n >= NAME_MAX_ENTRIES || t->arena_len + len > NAME_ARENA_BYTES)
    names_reset(t, 0);
  names_grow(t, len);
  slot = (uint32_t)h & (t->nslots - 1);
  while (t->slots[slot])
    slot = (slot + 1) & (t->nslots - 1);
  struct name_entry *ne = &t->entries[t->n];
  ne->hash = h;
  ne->off = (uint32_t)t->arena_len;
  ne->len = (uint32_t)len;
  ne->id = t->next_id++;
  memcpy(t->arena + t->arena_len, name, len);
  t->arena_len += len;
  t->slots[slot] = ++t->n;
  *id = ne->id;
  if (s->cb.on_name(s->cb.ctx, s->pid, ne->id, name, (uint32_t)len) != GW_OK)
    return trace_fail(s, err);
  return row_done(s, err);
}

/* ---- processes ---- */

static int pid_taken(const struct gw_import_sink *s, uint32_t pid) {
  for (int i = 0; i < s->nused_pids; i++)
    if (s->used_pids[i] == pid)
      return 1;
  return 0;
}

static uint32_t synthetic_pid(struct gw_import_sink *s) {
  while (pid_taken(s, s->next_synthetic_pid))
    s->next_synthetic_pid++;
  return s->next_synthetic_pid++;
}

gw_status gw_sink_begin_process(struct gw_import_sink *s, int input_index, int pid_known, int64_t pid,
                                struct gw_err *err) {
  s->input_index = input_index;
  s->pid_known = 0;
  s->pid = 0;
  s->nqueue = 0;
  s->queue_arena_len = 0;
  s->proc_t_min = INT64_MAX;
  s->proc_t_max = INT64_MIN;
  s->proc_kinds = 0;
  names_reset(&s->names, 1);
  return pid_known ? gw_sink_set_pid(s, pid, err) : GW_OK;
}

int gw_sink_pid_known(const struct gw_import_sink *s) {
  return s->pid_known;
}

static gw_status flush_queue(struct gw_import_sink *s, struct gw_err *err);

gw_status gw_sink_set_pid(struct gw_import_sink *s, int64_t pid, struct gw_err *err) {
  if (s->pid_known)
    return GW_OK;
  uint32_t p = pid > 0 && pid < GW_SINK_SYNTHETIC_PID_BASE ? (uint32_t)pid : 0;
  if (!p || pid_taken(s, p)) {
    gw_status rc;
    if (p &&
        (rc = gw_sink_metaf(s, err, "pid_note", "pid %u appears in more than one input; later ones renumbered", p)))
      return rc;
    p = synthetic_pid(s);
  }
  if (s->nused_pids < (int)(sizeof s->used_pids / sizeof s->used_pids[0]))
    s->used_pids[s->nused_pids++] = p;
  s->pid = p;
  s->pid_known = 1;
  return flush_queue(s, err);
}

gw_status gw_sink_end_process(struct gw_import_sink *s, uint32_t *pid_used, struct gw_err *err) {
  gw_status rc;
  if (!s->pid_known && (rc = gw_sink_set_pid(s, 0, err)))
    return rc;
  *pid_used = s->pid;
  struct gw_wire_file_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, GW_WIRE_MAGIC, GW_WIRE_MAGIC_BYTES);
  h.header_bytes = sizeof h;
  h.pid = s->pid;
  h.start_ns = s->proc_t_min != INT64_MAX ? (uint64_t)s->proc_t_min : 0;
  h.mode = GW_WIRE_MODE_FULL; /* an imported trace holds every record of its span */
  if (s->cb.on_header(s->cb.ctx, &h) != GW_OK)
    return trace_fail(s, err);
  if (s->proc_kinds && s->proc_t_min <= s->proc_t_max) {
    struct gw_wire_window w;
    gw_wire_window_init(&w, 0);
    w.start_ns = (uint64_t)s->proc_t_min;
    w.end_ns = (uint64_t)s->proc_t_max;
    w.mode = GW_WIRE_MODE_FULL;
    w.kinds = s->proc_kinds;
    if (s->cb.on_window(s->cb.ctx, s->pid, &w) != GW_OK)
      return trace_fail(s, err);
  }
  return row_done(s, err);
}

/* ---- devices ---- */

void gw_sink_add_device(struct gw_import_sink *s, const struct gw_sink_device *d) {
  for (int i = 0; i < s->ndevices; i++)
    if (s->devices[i].input_index == d->input_index && s->devices[i].device == d->device) {
      s->devices[i] = *d;
      return;
    }
  if (s->ndevices >= MAX_DEVICES)
    return;
  if (s->ndevices == s->devices_cap) {
    s->devices_cap = s->devices_cap ? 2 * s->devices_cap : 8;
    s->devices = gw_xrealloc(s->devices, (size_t)s->devices_cap * sizeof *s->devices);
  }
  s->devices[s->ndevices++] = *d;
}

static const struct gw_sink_device *find_device(const struct gw_import_sink *s, int input_index, uint32_t device) {
  for (int i = 0; i < s->ndevices; i++)
    if (s->devices[i].input_index == input_index && s->devices[i].device == device)
      return &s->devices[i];
  return NULL;
}

static gw_status write_gpu(struct gw_import_sink *s, int gpu, uint32_t device, struct gw_err *err) {
  const struct gw_sink_device *d = find_device(s, s->input_index, device);
  struct gw_gpu_info info;
  memset(&info, 0, sizeof info);
  info.index = (unsigned)gpu;
  info.temp_slowdown_c = info.temp_shutdown_c = -1;
  info.windowed_supported = info.mig_enabled = info.persistence_mode = info.compute_mode = info.ecc_enabled = -1;
  if (d) {
    gw_strlcpy(info.name, d->name, sizeof info.name);
    info.mem_total_bytes = d->mem_total_bytes;
  }
  if (gw_store_put_gpu_info(s->store, &info) != GW_OK)
    return store_fail(s, err, N_("the gpu row"));
  char key[64];
  gw_status rc;
  snprintf(key, sizeof key, "gpu.%d.origin", gpu);
  if ((rc = gw_sink_metaf(s, err, key, "input %d device %u", s->input_index, device)))
    return rc;
  if (d && d->num_sms > 0) {
    snprintf(key, sizeof key, "gpu.%d.num_sms", gpu);
    if ((rc = gw_sink_metaf(s, err, key, "%d", d->num_sms)))
      return rc;
  }
  if (d && d->cc_major > 0) {
    snprintf(key, sizeof key, "gpu.%d.compute_capability", gpu);
    if ((rc = gw_sink_metaf(s, err, key, "%d.%d", d->cc_major, d->cc_minor)))
      return rc;
  }
  if (d && d->max_threads_per_sm > 0) {
    snprintf(key, sizeof key, "gpu.%d.max_threads_per_sm", gpu);
    if ((rc = gw_sink_metaf(s, err, key, "%d", d->max_threads_per_sm)))
      return rc;
  }
  return GW_OK;
}

int gw_sink_gpu_for(struct gw_import_sink *s, uint32_t device, struct gw_err *err) {
  for (int i = 0; i < s->nmaps; i++)
    if (s->maps[i].input_index == s->input_index && s->maps[i].device == device)
      return s->maps[i].gpu;
  if (s->nmaps >= MAX_GPU_MAPS) {
    gw_err_set(err, _("more than %d GPUs across the inputs"), MAX_GPU_MAPS);
    return -1;
  }
  /* The device's own index when free, so a single trace keeps nvidia-smi's
   * numbering; otherwise (another rank took it) the lowest free one. */
  int gpu = -1;
  if (device < GW_SINK_MAX_GPU_INDEX && !s->gpu_used[device]) {
    gpu = (int)device;
  } else {
    for (int g = 0; g < GW_SINK_MAX_GPU_INDEX && gpu < 0; g++)
      if (!s->gpu_used[g])
        gpu = g;
  }
  if (gpu < 0) {
    gw_err_set(err, _("device id %u: no GPU index left"), device);
    return -1;
  }
  s->gpu_used[gpu] = 1;
  s->ngpus++;
  if (s->nmaps == s->maps_cap) {
    s->maps_cap = s->maps_cap ? 2 * s->maps_cap : 8;
    s->maps = gw_xrealloc(s->maps, (size_t)s->maps_cap * sizeof *s->maps);
  }
  s->maps[s->nmaps++] = (struct gpu_map){s->input_index, device, gpu};
  if (write_gpu(s, gpu, device, err) != GW_OK)
    return -1;
  return gpu;
}

gw_status gw_sink_gpu_info(struct gw_import_sink *s, const struct gw_gpu_info *info, struct gw_err *err) {
  if (info->index < GW_SINK_MAX_GPU_INDEX && !s->gpu_used[info->index]) {
    s->gpu_used[info->index] = 1;
    s->ngpus++;
  }
  if (gw_store_put_gpu_info(s->store, info) != GW_OK)
    return store_fail(s, err, N_("the gpu row"));
  return GW_OK;
}

/* ---- records ---- */

static gw_status put_kernel(struct gw_import_sink *s, struct gw_wire_kernel *k, const char *name, size_t len,
                            struct gw_err *err) {
  gw_status rc;
  k->name_id = 0;
  if (len && (rc = name_id(s, name, len, &k->name_id, err)))
    return rc;
  if (s->cb.on_kernel(s->cb.ctx, s->pid, k) != GW_OK)
    return trace_fail(s, err);
  return row_done(s, err);
}

static gw_status put_marker(struct gw_import_sink *s, struct gw_wire_marker *m, const char *name, size_t len,
                            const char *domain, size_t domain_len, struct gw_err *err) {
  gw_status rc;
  m->name_id = m->domain_name_id = 0;
  if (len && (rc = name_id(s, name, len, &m->name_id, err)))
    return rc;
  if (domain_len && (rc = name_id(s, domain, domain_len, &m->domain_name_id, err)))
    return rc;
  if (s->cb.on_marker(s->cb.ctx, s->pid, m) != GW_OK)
    return trace_fail(s, err);
  return row_done(s, err);
}

static gw_status put_plain(struct gw_import_sink *s, enum queued_type type, void *rec, struct gw_err *err) {
  gw_status rc = GW_OK;
  switch (type) {
  case Q_MEMCPY:
    rc = s->cb.on_memcpy(s->cb.ctx, s->pid, rec);
    break;
  case Q_MEMSET:
    rc = s->cb.on_memset(s->cb.ctx, s->pid, rec);
    break;
  case Q_SYNC:
    rc = s->cb.on_sync(s->cb.ctx, s->pid, rec);
    break;
  default:
    break;
  }
  if (rc != GW_OK)
    return trace_fail(s, err);
  return row_done(s, err);
}

static gw_status flush_queue(struct gw_import_sink *s, struct gw_err *err) {
  gw_status rc = GW_OK;
  for (uint32_t i = 0; i < s->nqueue && !rc; i++) {
    struct queued *q = &s->queue[i];
    const char *name = s->queue_arena + q->name_off, *domain = s->queue_arena + q->domain_off;
    if (q->type == Q_KERNEL)
      rc = put_kernel(s, &q->r.kernel, name, q->name_len, err);
    else if (q->type == Q_MARKER)
      rc = put_marker(s, &q->r.marker, name, q->name_len, domain, q->domain_len, err);
    else
      rc = put_plain(s, q->type, &q->r, err);
  }
  s->nqueue = 0;
  s->queue_arena_len = 0;
  return rc;
}

/* Queue a GPU record while the process id is unknown (*queued = 1). A full
 * queue means the trace does not name its process: a stand-in pid is taken,
 * the queue written out, and the caller writes this record directly. */
static gw_status maybe_queue(struct gw_import_sink *s, enum queued_type type, const void *rec, size_t size,
                             const char *name, size_t name_len, const char *domain, size_t domain_len, int *queued,
                             struct gw_err *err) {
  *queued = 0;
  if (s->pid_known)
    return GW_OK;
  if (name_len > GW_WIRE_NAME_MAX_BYTES)
    name_len = GW_WIRE_NAME_MAX_BYTES;
  if (s->nqueue >= QUEUE_MAX_ENTRIES || s->queue_arena_len + name_len + domain_len > QUEUE_ARENA_BYTES)
    return gw_sink_set_pid(s, 0, err);
  if (s->nqueue >= s->queue_cap) { /* doubled up to the bounds above, as the name table is */
    s->queue_cap = s->queue_cap * 2 < QUEUE_MAX_ENTRIES ? s->queue_cap * 2 : QUEUE_MAX_ENTRIES;
    s->queue = gw_xrealloc(s->queue, s->queue_cap * sizeof *s->queue);
  }
  while (s->queue_arena_len + name_len + domain_len > s->queue_arena_cap) {
    s->queue_arena_cap = s->queue_arena_cap * 2 < QUEUE_ARENA_BYTES ? s->queue_arena_cap * 2 : QUEUE_ARENA_BYTES;
    s->queue_arena = gw_xrealloc(s->queue_arena, s->queue_arena_cap);
  }
  struct queued *q = &s->queue[s->nqueue++];
  q->type = type;
  memcpy(&q->r, rec, size);
  q->name_off = (uint32_t)s->queue_arena_len;
  q->name_len = (uint32_t)name_len;
  if (name_len)
    memcpy(s->queue_arena + s->queue_arena_len, name, name_len);
  s->queue_arena_len += name_len;
  q->domain_off = (uint32_t)s->queue_arena_len;
  q->domain_len = (uint32_t)domain_len;
  if (domain_len)
    memcpy(s->queue_arena + s->queue_arena_len, domain, domain_len);
  s->queue_arena_len += domain_len;
  *queued = 1;
  return GW_OK;
}

static void saw(struct gw_import_sink *s, uint64_t start_ns, uint64_t end_ns, uint32_t kind) {
  s->proc_kinds |= kind;
  if (start_ns || end_ns)
    gw_sink_saw_time(s, (int64_t)start_ns, (int64_t)end_ns);
}

gw_status gw_sink_kernel(struct gw_import_sink *s, struct gw_wire_kernel *k, const char *name, size_t name_len,
                         struct gw_err *err) {
  s->counts.kernels++;
  if (!(k->h.flags & GW_WIRE_KERNEL_NO_TIMESTAMP))
    saw(s, k->start_ns, k->end_ns, GW_WIRE_KINDS_KERNEL);
  else
    s->proc_kinds |= GW_WIRE_KINDS_KERNEL;
  if (name_len > GW_WIRE_NAME_MAX_BYTES)
    k->h.flags |= GW_WIRE_KERNEL_NAME_CUT;
  int queued;
  gw_status rc = maybe_queue(s, Q_KERNEL, k, sizeof *k, name, name_len, NULL, 0, &queued, err);
  if (rc || queued)
    return rc;
  return put_kernel(s, k, name, name_len, err);
}

/* A record without a name (memcpy, memset, sync): counted in *count, its
 * span seen, then queued while the pid is unknown or written. */
static gw_status plain_record(struct gw_import_sink *s, uint64_t *count, uint32_t kind, uint64_t start_ns,
                              uint64_t end_ns, enum queued_type type, void *rec, size_t size, struct gw_err *err) {
  (*count)++;
  saw(s, start_ns, end_ns, kind);
  int queued;
  gw_status rc = maybe_queue(s, type, rec, size, NULL, 0, NULL, 0, &queued, err);
  if (rc || queued)
    return rc;
  return put_plain(s, type, rec, err);
}

gw_status gw_sink_memcpy(struct gw_import_sink *s, struct gw_wire_memcpy *m, struct gw_err *err) {
  return plain_record(s, &s->counts.memcpys, GW_WIRE_KINDS_MEMCPY, m->start_ns, m->end_ns, Q_MEMCPY, m, sizeof *m, err);
}

gw_status gw_sink_memset(struct gw_import_sink *s, struct gw_wire_memset *m, struct gw_err *err) {
  return plain_record(s, &s->counts.memsets, GW_WIRE_KINDS_MEMSET, m->start_ns, m->end_ns, Q_MEMSET, m, sizeof *m, err);
}

gw_status gw_sink_sync(struct gw_import_sink *s, struct gw_wire_sync *y, struct gw_err *err) {
  return plain_record(s, &s->counts.syncs, GW_WIRE_KINDS_SYNC, y->start_ns, y->end_ns, Q_SYNC, y, sizeof *y, err);
}

gw_status gw_sink_api(struct gw_import_sink *s, struct gw_wire_api *a, struct gw_err *err) {
  s->counts.api_calls++;
  saw(s, a->start_ns, a->end_ns, GW_WIRE_KINDS_API);
  gw_status rc;
  /* an API call runs on a CPU thread of the process: its pid is the process's
   */
  if (!s->pid_known && (rc = gw_sink_set_pid(s, 0, err)))
    return rc;
  if (s->cb.on_api(s->cb.ctx, s->pid, a) != GW_OK)
    return trace_fail(s, err);
  return row_done(s, err);
}

gw_status gw_sink_marker(struct gw_import_sink *s, struct gw_wire_marker *m, const char *name, size_t name_len,
                         const char *domain, struct gw_err *err) {
  s->counts.markers++;
  saw(s, m->start_ns, m->end_ns, GW_WIRE_KINDS_MARKER);
  size_t domain_len = domain ? strlen(domain) : 0;
  int queued;
  gw_status rc = maybe_queue(s, Q_MARKER, m, sizeof *m, name, name_len, domain, domain_len, &queued, err);
  if (rc || queued)
    return rc;
  return put_marker(s, m, name, name_len, domain, domain_len, err);
}

gw_status gw_sink_step(struct gw_import_sink *s, int64_t start_ns, int64_t end_ns, int64_t step, const char *source,
                       struct gw_err *err) {
  s->counts.steps++;
  if (gw_store_put_step(s->store, start_ns, end_ns, step, source) != GW_OK)
    return store_fail(s, err, N_("a step"));
  return row_done(s, err);
}

gw_status gw_sink_gpu_sample(struct gw_import_sink *s, const struct gw_gpu_sample *g, unsigned what,
                             struct gw_err *err) {
  s->counts.gpu_samples++;
  gw_sink_saw_time(s, g->t_ns, g->t_ns);
  if (gw_store_put_gpu_sample(s->store, g, what) != GW_OK)
    return store_fail(s, err, N_("a GPU sample"));
  return row_done(s, err);
}

gw_status gw_sink_finish(struct gw_import_sink *s, struct gw_err *err) {
  struct gw_run_info run = {.source = s->source, .started_ns = s->t_min != INT64_MAX ? s->t_min : 0};
  if (gw_store_put_run(s->store, &run) != GW_OK)
    return store_fail(s, err, N_("the run row"));
  gw_status rc = GW_OK;
  if (s->t_max != INT64_MIN)
    rc = gw_sink_metaf(s, err, "import_last_ns", "%" PRId64, s->t_max);
  if (!rc)
    rc = gw_sink_metaf(s, err, "import_rows_committed", "%" PRIu64, s->rows);
  if (rc)
    return rc;
  if (gw_store_trace_flush(s->trace) != GW_OK)
    return trace_fail(s, err);
  if (gw_store_commit(s->store) != GW_OK)
    return store_fail(s, err, N_("the last commit"));
  /* as every recording: WAL, synced (the switch itself writes and syncs) */
  if (gw_store_bulk_end(s->store) != GW_OK)
    return store_fail(s, err, "the journal mode");
  return GW_OK;
}
