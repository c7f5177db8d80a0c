#include "pyhook_collect.h"
#include "line_spool.h"
#include "store/store_write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/activity.h"
#include "core/i18n.h"

#define MAX_FILES 1024      /* one per Python process: ranks, launchers, helpers */
#define MAX_LINE_BYTES 1024 /* the hook cuts messages to 400 characters: a longer line is not its own */
#define MAX_BAD_NOTES 3     /* say what the first bad lines were, count the rest */
#define MAX_SHAPE_CHARS 63  /* 8 dimensions of up to 7 digits: the hook writes at most that */
/* A program names its own source lines: past this many distinct frames (all
 * processes) the recording keeps the samples without their frame. */
#define MAX_PY_FRAMES 1000000
#define SOURCE_OPTIM "python_hook"
#define SOURCE_LOADER "python_hook_loader"

struct gw_pyhook_collect {
  char dir[PATH_MAX];
  char hook_dir[PATH_MAX];
  struct gw_store_steps *writer;
  struct gw_store_step_flops *flops_writer;
  struct gw_line_spool spool;
  const struct gw_event_sink *events; /* during a poll */
  void (*on_step)(void *ctx, const struct gw_python_step *step);
  void *on_step_ctx;
  uint64_t steps, bad_lines, flop_counts;
  /* stack samples: per process frame ids (pid, id) -> the recording's py_frame ids */
  struct gw_store_py_samples *py;
  struct frame_slot *frames; /* open addressing, nframe_slots a power of two */
  size_t nframe_slots, nframes;
  uint64_t py_samples;
};

struct frame_slot {
  int64_t pid, local_id; /* pid 0: empty */
  int64_t global_id;
};

static size_t frame_hash(int64_t pid, int64_t local_id, size_t mask) {
  uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ULL ^ (uint64_t)local_id * 0xC2B2AE3D27D4EB4FULL;
  return (size_t)(h ^ (h >> 29)) & mask;
}

static struct frame_slot *frame_find(struct gw_pyhook_collect *pc, int64_t pid, int64_t local_id) {
  if (!pc->nframe_slots)
    return NULL;
  size_t mask = pc->nframe_slots - 1;
  for (size_t i = frame_hash(pid, local_id, mask);; i = (i + 1) & mask) {
    struct frame_slot *e = &pc->frames[i];
    if (e->pid == 0 || (e->pid == pid && e->local_id == local_id))
      return e;
  }
}

/* The slot for (pid, local_id), empty (pid 0) when new; the table grows at half full. */
static struct frame_slot *frame_slot_for(struct gw_pyhook_collect *pc, int64_t pid, int64_t local_id) {
  if (2 * (pc->nframes + 1) > pc->nframe_slots) {
    struct frame_slot *old = pc->frames;
    size_t nold = pc->nframe_slots;
    pc->nframe_slots = nold ? 2 * nold : 256;
    pc->frames = gw_xcalloc(pc->nframe_slots, sizeof *pc->frames);
    for (size_t i = 0; i < nold; i++)
      if (old[i].pid != 0)
        *frame_find(pc, old[i].pid, old[i].local_id) = old[i];
    free(old);
  }
  return frame_find(pc, pid, local_id);
}

static int file_readable(const char *dir, const char *name) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, R_OK) == 0;
}

int gw_pyhook_find_dir(char *out, size_t cap) {
  const char *env = getenv("GPUWHY_PYTHON_HOOK_DIR");
  if (env)
    return file_readable(env, "sitecustomize.py") && !gw_strlcpy(out, env, cap) ? 0 : -1;
  static const char *const candidates[] = {"/python/gpuwhy_hook", "/../share/gpuwhy/python/gpuwhy_hook"};
  for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
    if (gw_path_beside_exe(candidates[i], out, cap) == 0 && file_readable(out, "sitecustomize.py"))
      return 0;
  return -1;
}

gw_status gw_pyhook_collect_open(struct gw_pyhook_collect **out, const char *dir, const char *hook_dir,
                                 struct gw_store *store, struct gw_err *err) {
  *out = NULL;
  struct gw_pyhook_collect *pc = gw_xcalloc(1, sizeof *pc);
  int made = gw_line_spool_make_dir(&pc->spool, pc->dir, sizeof pc->dir, dir, "py-", ".steps", err);
  if (made == 0 && gw_strlcpy(pc->hook_dir, hook_dir, sizeof pc->hook_dir))
    made = 1;
  if (made > 0)
    gw_err_set(err, _("Python hook folder path too long: %s"), dir);
  if (made) {
    free(pc);
    return GW_ERR;
  }
  gw_line_spool_clear(&pc->spool);
  gw_status rc = gw_store_steps_open(&pc->writer, store, err);
  if (!rc && (rc = gw_store_py_samples_open(&pc->py, store, err)) != GW_OK)
    gw_store_steps_close(pc->writer);
  if (rc) {
    free(pc);
    return rc;
  }
  if ((rc = gw_store_step_flops_open(&pc->flops_writer, store, err))) {
    gw_store_steps_close(pc->writer);
    free(pc);
    return rc;
  }
  *out = pc;
  return GW_OK;
}

void gw_pyhook_collect_child_env(const struct gw_pyhook_collect *pc) {
  if (!pc)
    return;
  const char *old = getenv("PYTHONPATH");
  size_t n = strlen(pc->hook_dir) + (old ? strlen(old) : 0) + 2;
  char *path = gw_xcalloc(1, n);
  snprintf(path, n, "%s%s%s", pc->hook_dir, old && old[0] ? ":" : "", old && old[0] ? old : "");
  setenv("PYTHONPATH", path, 1);
  setenv("GPUWHY_PY_SPOOL_DIR", pc->dir, 1);
  free(path);
}

/* Splits a line at tabs in place; returns the number of fields. */
static int split_tabs(char *line, char **field, int max) {
  int n = 0;
  char *p = line;
  while (n < max) {
    field[n++] = p;
    char *tab = strchr(p, '\t');
    if (!tab)
      break;
    *tab = '\0';
    p = tab + 1;
  }
  return n;
}

/* ns since 1970 before 2096: differences of these must not overflow. */
static int time_ok(int64_t t) {
  return t > 0 && t < 4000000000000000000LL;
}

static void bad_line(struct gw_pyhook_collect *pc, const struct gw_spool_file *f, const char *why,
                     const struct gw_event_sink *events) {
  pc->bad_lines++;
  if (pc->bad_lines > MAX_BAD_NOTES || !events)
    return;
  struct gw_event ev = {.t_ns = gw_now_realtime_ns(), .kind = "note", .gpu = -1, .pid = (int)f->pid};
  /* English: the message is stored in the recording (an event) */
  snprintf(ev.message, sizeof ev.message, "python hook: %s: line skipped: %s", f->name, why);
  gw_emit(events, &ev);
}

/* "16x128": dimensions of digits joined by 'x'; "-" (unknown) and anything else are not a shape. */
static int shape_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > MAX_SHAPE_CHARS || s[0] == 'x' || s[n - 1] == 'x')
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] >= '0' && s[i] <= '9') && !(s[i] == 'x' && s[i + 1] != 'x'))
      return 0;
  return 1;
}

/* v has 9 fields (hooks before compile time and shapes) or 11. */
static void put_step(struct gw_pyhook_collect *pc, const struct gw_spool_file *f, char **v, int nfields,
                     const struct gw_event_sink *events) {
  int64_t step, t0, t1, wait, batch, samples, rank, compile_ns = -1;
  if (gw_parse_i64(v[1], &step) || gw_parse_i64(v[2], &t0) || gw_parse_i64(v[3], &t1) || gw_parse_i64(v[4], &wait) ||
      gw_parse_i64(v[5], &batch) || gw_parse_i64(v[6], &samples) || gw_parse_i64(v[7], &rank)) {
    bad_line(pc, f, "a step field is not an integer", events);
    return;
  }
  if (!time_ok(t0) || !time_ok(t1) || t1 < t0 || wait < -1 || wait > t1 - t0 + 1000000000LL || samples < 0) {
    bad_line(pc, f, "step times out of order or data wait negative", events);
    return;
  }
  if (nfields == 11 && (gw_parse_i64(v[9], &compile_ns) || compile_ns < 0 || compile_ns > t1 - t0)) {
    bad_line(pc, f, "step compile time not an integer within the step", events);
    return;
  }
  const char *shape = nfields == 11 && shape_ok(v[10]) ? v[10] : NULL;
  const char *source = strcmp(v[8], "optim") == 0 ? SOURCE_OPTIM : strcmp(v[8], "loader") == 0 ? SOURCE_LOADER : NULL;
  if (!source) {
    bad_line(pc, f, "step kind is neither optim nor loader", events);
    return;
  }
  /* 0 or less: not known */
  const struct gw_store_step_row row = {.start_ns = t0,
                                        .end_ns = t1,
                                        .step = step,
                                        .source = source,
                                        .pid = f->pid > 0 ? f->pid : -1,
                                        .rank = rank >= 0 ? rank : -1,
                                        .data_wait_ns = wait, /* -1: no DataLoader batch in the step */
                                        .batch_size = batch > 0 ? batch : -1,
                                        .samples = samples > 0 ? samples : -1,
                                        .compile_ns = compile_ns,
                                        .shape = shape};
  /* A failed insert (disk full) is the store's to report; the step is lost, the run goes on. */
  if (gw_store_steps_put(pc->writer, &row) == GW_OK)
    pc->steps++;
  if (pc->on_step) {
    const struct gw_python_step seen = {row.pid, row.rank, t0, t1, strcmp(source, SOURCE_OPTIM) == 0};
    pc->on_step(pc->on_step_ctx, &seen);
  }
}

/* The dtype split as the hook writes it: {"name":digits,...}, short; anything else is dropped (NULL). */
static int dtype_json_ok(const char *s) {
  size_t n = strlen(s);
  if (n < 2 || n > 400 || s[0] != '{' || s[n - 1] != '}')
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= '0' && s[i] <= '9') && !strchr("{}\":,_", s[i]))
      return 0;
  return 1;
}

/* M  step  flops  dtype_flops_json  batch_size  counted_ns  rank: the one counted step of a process. */
static void put_step_flops(struct gw_pyhook_collect *pc, const struct gw_spool_file *f, char **v,
                           const struct gw_event_sink *events) {
  int64_t step, flops, batch, counted_ns, rank;
  if (gw_parse_i64(v[1], &step) || gw_parse_i64(v[2], &flops) || gw_parse_i64(v[4], &batch) ||
      gw_parse_i64(v[5], &counted_ns) || gw_parse_i64(v[6], &rank) || flops < 0 || counted_ns < 0) {
    bad_line(pc, f, "a FLOP count field is not a non-negative integer", events);
    return;
  }
  const struct gw_store_step_flops_row row = {.step = step,
                                              .pid = f->pid > 0 ? f->pid : -1,
                                              .rank = rank >= 0 ? rank : -1,
                                              .flops = flops,
                                              .dtype_flops_json = dtype_json_ok(v[3]) ? v[3] : NULL,
                                              .batch_size = batch,
                                              .counted_ns = counted_ns,
                                              .source = SOURCE_OPTIM};
  /* a failed insert (disk full) is the store's to report; the count is lost, the run goes on */
  if (gw_store_step_flops_put(pc->flops_writer, &row) == GW_OK)
    pc->flop_counts++;
}

/* fix_applied, fix_refused: the fixes experiment try asks of the hook (GPUWHY_PY_FIXES) */
static const char *const hook_event_kinds[] = {"recompile",   "compile",    "cuda_oom",   "cuda_alloc_retry",
                                               "fixed_batch", "cuda_graph", "flop_count", "py_sampler",
                                               "fix_applied", "fix_refused"};

const char *gw_pyhook_event_kind(const char *name) {
  for (size_t i = 0; name && i < sizeof hook_event_kinds / sizeof *hook_event_kinds; i++)
    if (strcmp(name, hook_event_kinds[i]) == 0)
      return hook_event_kinds[i];
  return NULL;
}

static void put_event(struct gw_pyhook_collect *pc, const struct gw_spool_file *f, char **v,
                      const struct gw_event_sink *events) {
  int64_t t, code;
  const char *kind = gw_pyhook_event_kind(v[2]);
  if (gw_parse_i64(v[1], &t) || !time_ok(t) || gw_parse_i64(v[3], &code) || !kind) {
    bad_line(pc, f, "event without a time, a known kind or a count", events);
    return;
  }
  struct gw_event ev = {.t_ns = t, .kind = kind, .gpu = -1, .code = code, .pid = (int)f->pid};
  gw_strlcpy(ev.message, v[4], sizeof ev.message);
  if (events)
    gw_emit(events, &ev);
}

/* F id file line func: a user frame the first time the process sampled it. */
static void put_frame(struct gw_pyhook_collect *pc, const struct gw_spool_file *f, char **v,
                      const struct gw_event_sink *events) {
  int64_t id, line;
  if (gw_parse_i64(v[1], &id) || id < 0 || id > INT32_MAX || gw_parse_i64(v[3], &line) || line < 0 ||
      line > INT32_MAX || !v[2][0] || f->pid <= 0) {
    bad_line(pc, f, "frame without an id, a file or a line number", events);
    return;
  }
  if (pc->nframes >= MAX_PY_FRAMES)
    return; /* its samples keep an unknown frame */
  struct frame_slot *slot = frame_slot_for(pc, f->pid, id);
  if (slot->pid != 0) {
    bad_line(pc, f, "frame id defined twice: the first kept", events);
    return;
  }
  int64_t global_id = (int64_t)pc->nframes + 1;
  if (gw_store_py_frame_put(pc->py, global_id, v[2], line, v[4]) != GW_OK)
    return; /* disk full: the store reports it; the samples keep an unknown frame */
  *slot = (struct frame_slot){.pid = f->pid, .local_id = id, .global_id = global_id};
  pc->nframes++;
}

/* P t_ns tid activity frame_id: one stack sample of the process's training thread. */
static void put_py_sample(struct gw_pyhook_collect *pc, const struct gw_spool_file *f, char **v,
                          const struct gw_event_sink *events) {
  int64_t t, tid, activity, local_frame;
  if (gw_parse_i64(v[1], &t) || !time_ok(t) || gw_parse_i64(v[2], &tid) || tid <= 0 || tid > INT32_MAX ||
      gw_parse_i64(v[3], &activity) || activity < 0 || activity >= GW_PYACT_COUNT || gw_parse_i64(v[4], &local_frame) ||
      local_frame < -1 || local_frame > INT32_MAX || f->pid <= 0) {
    bad_line(pc, f, "stack sample without a time, a thread, a known activity or a frame id", events);
    return;
  }
  int64_t frame = -1;
  if (local_frame >= 0) {
    const struct frame_slot *slot = frame_find(pc, f->pid, local_frame);
    if (slot && slot->pid != 0)
      frame = slot->global_id;
    else if (pc->nframes < MAX_PY_FRAMES)
      bad_line(pc, f, "stack sample names a frame never defined: its frame is kept unknown", events);
  }
  if (gw_store_py_sample_put(pc->py, t, f->pid, tid, (int)activity, frame) == GW_OK)
    pc->py_samples++;
}

static void take_line(void *ctx, const struct gw_spool_file *f, char *line, size_t len) {
  struct gw_pyhook_collect *pc = ctx;
  char *v[12];
  if (len == 0)
    return;
  if (len > MAX_LINE_BYTES || strlen(line) != len) {
    bad_line(pc, f, "too long or not text", pc->events);
    return;
  }
  int n = split_tabs(line, v, 12);
  if ((n == 9 || n == 11) && strcmp(v[0], "S") == 0)
    put_step(pc, f, v, n, pc->events);
  else if (n == 5 && strcmp(v[0], "E") == 0)
    put_event(pc, f, v, pc->events);
  else if (n == 7 && strcmp(v[0], "M") == 0)
    put_step_flops(pc, f, v, pc->events);
  else if (n == 5 && strcmp(v[0], "P") == 0)
    put_py_sample(pc, f, v, pc->events);
  else if (n == 5 && strcmp(v[0], "F") == 0)
    put_frame(pc, f, v, pc->events);
  else
    bad_line(pc, f,
             "neither a step (S, 9 or 11 fields), an event (E), a FLOP count (M, 7), a frame (F) nor a sample (P, 5)",
             pc->events);
}

/* A process cut in the middle of a write: its last line is torn. */
static void torn_line(void *ctx, const struct gw_spool_file *f) {
  struct gw_pyhook_collect *pc = ctx;
  bad_line(pc, f, "incomplete last line", pc->events);
}

void gw_pyhook_collect_watch(struct gw_pyhook_collect *pc,
                             void (*on_step)(void *ctx, const struct gw_python_step *step), void *ctx) {
  if (!pc)
    return;
  pc->on_step = on_step;
  pc->on_step_ctx = ctx;
}

void gw_pyhook_collect_poll(struct gw_pyhook_collect *pc, const struct gw_event_sink *events) {
  if (!pc)
    return;
  pc->events = events;
  gw_line_spool_poll(&pc->spool, 0, take_line, NULL, pc);
}

void gw_pyhook_collect_finish(struct gw_pyhook_collect *pc, const struct gw_event_sink *events) {
  if (!pc)
    return;
  pc->events = events;
  gw_line_spool_poll(&pc->spool, 1, take_line, torn_line, pc);
  /* where the optimizer's steps were seen, the loader's are not the steps */
  long dropped = gw_store_steps_drop_where_also(pc->writer, SOURCE_LOADER, SOURCE_OPTIM);
  if (dropped > 0)
    pc->steps -= (uint64_t)dropped;
}

uint64_t gw_pyhook_collect_steps(const struct gw_pyhook_collect *pc) {
  return pc ? pc->steps : 0;
}

uint64_t gw_pyhook_collect_py_samples(const struct gw_pyhook_collect *pc) {
  return pc ? pc->py_samples : 0;
}

uint64_t gw_pyhook_collect_bad_lines(const struct gw_pyhook_collect *pc) {
  return pc ? pc->bad_lines : 0;
}

void gw_pyhook_collect_close(struct gw_pyhook_collect *pc) {
  if (!pc)
    return;
  gw_store_steps_close(pc->writer);
  gw_store_step_flops_close(pc->flops_writer);
  gw_store_py_samples_close(pc->py);
  free(pc->frames);
  gw_line_spool_remove(&pc->spool);
  free(pc);
}
