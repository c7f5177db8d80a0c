#include "idle_attribution.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compile_shapes.h"
#include "analysis/gpu_loop.h"
#include "analysis/ledger.h"
#include "analysis/py_sample_cause.h"
#include "analysis/series.h"
#include "analysis/sm_fill.h"
#include "analysis/thresholds.h"
#include "analysis/timeline.h"
#include "core/util.h"
#include "sources/thread_sampler.h"

/* A sample tick counts as idle when GPU-Util read 0 (the driver saw no
 * kernel resident in its whole sampling period) or SM activity under 1% (a
 * warp resident on under 1% of SM cycles in the GPM window: less than one
 * 10 ms kernel per second over the whole GPU). */
#define IDLE_SM_PCT 1.0

static const char *const CAUSE_EXTRA[] = {"host_running",     "disk_io",        "new_shape",
                                          "gpu_paced",        "host_no_kernel", "lock_wait",
                                          "helper_lock_wait", "unresolved",     "unsampled"};
_Static_assert(sizeof CAUSE_EXTRA / sizeof CAUSE_EXTRA[0] == GW_IDLE_NCAUSES - GW_PYACT_COUNT, "a name per cause");

const char *gw_idle_cause_name(int cause) {
  if (cause >= 0 && cause < GW_PYACT_COUNT)
    return gw_py_activity_name(cause);
  if (cause >= GW_PYACT_COUNT && cause < GW_IDLE_NCAUSES)
    return CAUSE_EXTRA[cause - GW_PYACT_COUNT];
  return "unsampled";
}

const char *gw_idle_cause_phrase(int cause) {
  return gw_idle_cause_name(cause);
}

const char *gw_worker_state_name(int state) {
  static const char *const N[] = {"running", "net", "disk", "pipe", "other_sleep", "absent"};
  return state >= 0 && state < GW_WORKER_NSTATES ? N[state] : "absent";
}

int gw_idle_largest_cause(const struct gw_idle_attribution *attr, int ngpus,
                          const struct gw_idle_attribution **gpu_attr) {
  const struct gw_idle_attribution *a = NULL;
  for (int i = 0; attr && i < ngpus; i++)
    if (attr[i].source != GW_ATTR_NONE && attr[i].idle_s > 0 && (!a || attr[i].idle_s > a->idle_s))
      a = &attr[i];
  *gpu_attr = a;
  int best = -1;
  for (int c = 0; a && c < GW_IDLE_NCAUSES; c++)
    if (c != GW_CAUSE_UNRESOLVED && c != GW_CAUSE_UNSAMPLED && a->rows[c].seconds > 0 &&
        (best < 0 || a->rows[c].seconds > a->rows[best].seconds))
      best = c;
  return best;
}

const char *gw_idle_cause_class(int cause) {
  switch (cause) {
  /* the batch was not there: waiting for workers, made in the loop, or copied in */
  case GW_PYACT_DATA_WAIT:
  case GW_PYACT_DATA_INLINE:
  case GW_PYACT_H2D:
  case GW_CAUSE_DISK_IO: /* the launching thread itself read files: data read inline */
  /* held off the interpreter by a thread of its own process that runs
   * Python beside the loop: work in the training process that runs the
   * whole time the loop does is the loop's data made in threads, as a lock
   * wait beside busy threads reads without stack samples (prefetch_at) */
  case GW_CAUSE_LOCK_WAIT:
    return "input_pipeline";
  /* occasional work outside the step: periodic stalls */
  case GW_PYACT_CHECKPOINT:
  case GW_PYACT_EVAL:
  case GW_PYACT_LOGGING:
  /* recompiles and re-planning follow changing shapes: dynamic shapes */
  case GW_PYACT_COMPILE:
  case GW_CAUSE_NEW_SHAPE:
  /* held off the interpreter by a helper thread (metrics, logging) in a loop
   * whose batches do not come from the host: the project's periodic-work
   * class, whose fix moves the helper's work out of the process */
  case GW_CAUSE_HELPER_LOCK_WAIT:
    return "schedule_shape";
  /* waiting on the other ranks */
  case GW_PYACT_COLLECTIVE:
    return "multi_gpu_sync";
  /* the thread that should issue the next kernels is busy issuing or
   * computing on the host, or stops the queue with a synchronising call
   * every step: the GPU drains and waits for the host */
  case GW_PYACT_FORWARD_BACKWARD:
  case GW_PYACT_OPTIMIZER:
  case GW_PYACT_SYNC:
  case GW_CAUSE_HOST_RUNNING:
    return "launch_overhead";
  default: /* idle, other, unresolved, unsampled: nothing names a class */
    return "unexplained";
  }
}

const struct gw_py_frame_info *gw_py_frame_find(const struct gw_recording *rec, int32_t id) {
  for (size_t i = 0; i < rec->npy_frames; i++)
    if (rec->py_frames[i].id == id)
      return &rec->py_frames[i];
  return NULL;
}

/* The first of n samples at or after t: both sample kinds are sorted by
 * t_ns and lead with it, so one search serves them, stride bytes apart. */
_Static_assert(offsetof(struct gw_py_tick, t_ns) == 0 && offsetof(struct gw_thread_tick, t_ns) == 0,
               "samples lead with their time");
static size_t lower_by_time(const void *samples, size_t n, size_t stride, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t tm;
    memcpy(&tm, (const char *)samples + mid * stride, sizeof tm);
    if (tm < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static size_t py_lower(const struct gw_recording *rec, int64_t t) {
  return lower_by_time(rec->py_ticks, rec->npy_ticks, sizeof *rec->py_ticks, t);
}

static size_t th_lower(const struct gw_recording *rec, int64_t t) {
  return lower_by_time(rec->thread_ticks, rec->nthread_ticks, sizeof *rec->thread_ticks, t);
}

static const struct gw_thread_meta *thread_of(const struct gw_recording *rec, int32_t tid) {
  for (size_t i = 0; i < rec->nthreads; i++)
    if (rec->threads[i].tid == tid)
      return &rec->threads[i];
  return NULL;
}

/* The rank's process on this GPU: the traced process, else with one GPU the
 * process with the most samples (several GPUs without a trace: unknown). */
static int64_t rank_pid(const struct gw_recording *rec, const struct gw_gpu_series *g, int use_py) {
  if (g->trace_pid > 0)
    return g->trace_pid;
  if (rec->ngpus != 1)
    return 0;
  int64_t best = 0;
  size_t best_n = 0;
  for (size_t k = 0; k < (use_py ? rec->npy_ticks : rec->nthreads); k++) {
    int64_t pid = use_py ? rec->py_ticks[k].pid : rec->threads[k].pid;
    if (!use_py && rec->threads[k].role != GW_TROLE_MAIN)
      continue;
    if (pid == best)
      continue;
    size_t n = 0;
    if (use_py) {
      for (size_t j = 0; j < rec->npy_ticks; j++)
        n += rec->py_ticks[j].pid == pid;
    } else {
      for (size_t j = 0; j < rec->nthread_ticks; j++)
        n += rec->thread_ticks[j].tid == rec->threads[k].tid;
    }
    if (n > best_n) {
      best_n = n;
      best = pid;
    }
    if (use_py && best_n * 2 > rec->npy_ticks)
      break; /* a majority: no other pid can beat it */
  }
  return best;
}

static int32_t main_tid(const struct gw_recording *rec, int64_t pid) {
  for (size_t i = 0; i < rec->nthreads; i++)
    if (rec->threads[i].pid == pid && rec->threads[i].role == GW_TROLE_MAIN)
      return rec->threads[i].tid;
  return 0;
}

/* What a thread that feeds the training thread was doing at one sample. */
static int worker_state(const struct gw_thread_tick *tt) {
  return tt->state == GW_TSTATE_RUNNING                            ? GW_WORKERS_RUNNING
         : tt->state == GW_TSTATE_DISK || tt->wait == GW_WAIT_DISK ? GW_WORKERS_DISK
         : tt->wait == GW_WAIT_NET                                 ? GW_WORKERS_NET
         : tt->wait == GW_WAIT_PIPE                                ? GW_WORKERS_PIPE
                                                                   : GW_WORKERS_OTHER_SLEEP;
}

/* Adds to split what the loader workers did at t, one share per worker
 * sampled within a sampler period of t; absent when none was. Returns the
 * workers seen. */
static int workers_at(const struct gw_recording *rec, int64_t t, int64_t period_ns, double weight, double *split) {
  int32_t seen[64];
  int nseen = 0, state[64];
  for (size_t k = th_lower(rec, t - period_ns); k < rec->nthread_ticks && rec->thread_ticks[k].t_ns <= t + period_ns;
       k++) {
    const struct gw_thread_tick *tt = &rec->thread_ticks[k];
    const struct gw_thread_meta *m = thread_of(rec, tt->tid);
    if (!m || m->role != GW_TROLE_LOADER_WORKER)
      continue;
    int dup = 0;
    for (int i = 0; i < nseen; i++)
      dup |= seen[i] == tt->tid;
    if (dup || nseen >= 64)
      continue;
    seen[nseen] = tt->tid;
    state[nseen++] = worker_state(tt);
  }
  if (split) {
    if (!nseen)
      split[GW_WORKERS_ABSENT] += weight;
    for (int i = 0; i < nseen; i++)
      split[state[i]] += weight / nseen;
  }
  return nseen;
}

/* The main thread's kernel state read as an activity (no Python samples):
 * a sleep on a lock, poll or pipe while loader workers exist is the wait for
 * the next batch (the loader's queue); in an ioctl on the GPU a sync;
 * running is host work or launching; on the disk, I/O. */
static int thread_cause(const struct gw_recording *rec, const struct gw_thread_tick *tt, int64_t period_ns,
                        int loop_not_launching) {
  if (tt->state == GW_TSTATE_RUNNING) {
    /* in a second whose main thread far outran the autograd thread that
     * launches the backward, its running is host work of its own, not
     * launches (gw_main_not_launching_at). A batch is made every step: with
     * the whole loop so (loop_not_launching) and no loader workers, that
     * work is the batch made in the loop; in a loop that otherwise launches,
     * occasional work (an evaluation's forward, a checkpoint's
     * serialization) the thread samples cannot name. Not in a distributed
     * job, whose ranks spin a core on their peers. */
    size_t j = gw_host_index_at(&rec->host, tt->t_ns);
    if (j != SIZE_MAX && rec->ngpus < 2 && rec->world_size <= 1 && gw_main_not_launching_at(&rec->host, j))
      return loop_not_launching && workers_at(rec, tt->t_ns, period_ns, 0, NULL) == 0 ? GW_PYACT_DATA_INLINE
                                                                                      : GW_PYACT_OTHER;
    return GW_CAUSE_HOST_RUNNING;
  }
  if (tt->state == GW_TSTATE_DISK || tt->wait == GW_WAIT_DISK)
    /* held writing files (a write, fsync or rename blocked on the disk):
     * the loop saves state, a checkpoint; reading is the input's */
    return gw_syscall_writes_files(tt->syscall) ? GW_PYACT_CHECKPOINT : GW_CAUSE_DISK_IO;
  if (tt->wait == GW_WAIT_GPU)
    return GW_PYACT_SYNC;
  if (tt->wait == GW_WAIT_SLEEP)
    return GW_PYACT_IDLE;
  int workers = workers_at(rec, tt->t_ns, period_ns, 0, NULL) > 0;
  if (tt->wait == GW_WAIT_FUTEX || tt->wait == GW_WAIT_POLL || tt->wait == GW_WAIT_PIPE || tt->wait == GW_WAIT_NET)
    return workers ? GW_PYACT_DATA_WAIT : tt->wait == GW_WAIT_NET ? GW_PYACT_DATA_INLINE : GW_PYACT_IDLE;
  return GW_PYACT_OTHER;
}

struct frame_hit {
  int cause;
  int32_t frame;
  double w;
};

static int cmp_hit(const void *a, const void *b) {
  const struct frame_hit *x = a, *y = b;
  if (x->cause != y->cause)
    return x->cause - y->cause;
  return (x->frame > y->frame) - (x->frame < y->frame);
}

struct attr_work {
  const struct gw_recording *rec;
  struct gw_idle_attribution *out;
  int64_t pid, period_ns;
  int32_t tid;
  struct frame_hit *hits;
  size_t nhits, cap;
  struct gw_shape_stall *stalls; /* the rank's steps that met a new shape, by start */
  size_t nstalls;
  int32_t *helpers; /* tids of the other threads of the rank's process (role helper), sorted */
  size_t nhelpers;
  int64_t thread_period_ns;           /* of the thread sampler */
  int loop_not_launching;             /* over the span the main thread outran the backward's launcher (thread_cause) */
  int64_t helper_window_ns;           /* half the span between two samples of a helper thread, and a period */
  int hook_sampler;                   /* the hook's sampling thread lives in the process (Python samples) */
  int max_feeders;                    /* the most helper threads seen feeding one wait */
  const struct gw_thread_tick **near; /* scratch of prefetch_at: each helper's sample nearest an instant */
  uint64_t *near_stamp, stamp;        /* near[i] holds a sample of this instant when near_stamp[i] == stamp */
  struct gw_py_causes causes;         /* how the rank's samples read (py_sample_cause.h) */
  unsigned char *lock_wait;           /* by py_tick index: 0 not yet read, 1 no lock wait, 2 a lock wait */
  struct gw_data_waits waits; /* the loop's measured waits in the DataLoader (gpu_loop.h), thread samples only */
  int64_t *step_ends;         /* the rank's optimizer steps' ends (the hook's steps), sorted */
  size_t nstep_ends;
};

/* A thread sample's cause, with what the hook measured: the loop's time
 * inside the DataLoader's __next__ (each step's wait, placed at its start as
 * gpu_loop.c does). Whatever the thread did there, running, asleep or
 * waiting on a lock, it was getting its batch: made in the loop itself
 * without worker processes, waited for with them. The thread samples alone
 * read running as launching (thread_cause). Not in one of the loop's
 * occasional long steps: the wait there may be the occasional work's own
 * loader (an evaluation pass), which the thread samples cannot tell from the
 * training's. */
static int sampled_thread_cause(const struct attr_work *w, const struct gw_thread_tick *tt) {
  int c = thread_cause(w->rec, tt, w->period_ns, w->loop_not_launching);
  if (!w->waits.n || c == GW_CAUSE_DISK_IO || c == GW_PYACT_DATA_WAIT ||
      !gw_interval_holds(w->waits.iv, w->waits.n, tt->t_ns) ||
      gw_interval_holds(w->waits.outliers, w->waits.noutliers, tt->t_ns))
    return c;
  return workers_at(w->rec, tt->t_ns, w->period_ns, 0, NULL) > 0 ? GW_PYACT_DATA_WAIT : GW_PYACT_DATA_INLINE;
}

static void add_hit(struct attr_work *w, int cause, int32_t frame, double weight) {
  if (w->nhits == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 256;
    w->hits = gw_xrealloc(w->hits, w->cap * sizeof *w->hits);
  }
  w->hits[w->nhits++] = (struct frame_hit){cause, frame, weight};
}

/* The share of the step around t spent beyond its shape's steady time when
 * that step met a new shape; 0 elsewhere. */
static double new_shape_excess_at(const struct attr_work *w, int64_t t) {
  size_t lo = 0, hi = w->nstalls;
  while (lo < hi) { /* the first stall starting after t */
    size_t mid = lo + (hi - lo) / 2;
    if (w->stalls[mid].start_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && t < w->stalls[lo - 1].end_ns ? w->stalls[lo - 1].excess_frac : 0;
}

/* The activities that are the step's own host work for its input: a new
 * shape is planned (cuBLAS/cuDNN heuristics, SDPA kernel choice, allocator
 * blocks, autotuning) inside the ops the step runs, or waited for in a sync.
 * Waiting for data, checkpoints, evaluation, logging and collectives do not
 * depend on the shape of the step's input. */
static int is_step_host_work(int cause) {
  return cause == GW_PYACT_FORWARD_BACKWARD || cause == GW_PYACT_OPTIMIZER || cause == GW_PYACT_SYNC ||
         cause == GW_PYACT_OTHER || cause == GW_CAUSE_HOST_RUNNING || cause == GW_CAUSE_HOST_NO_KERNEL;
}

/* Charges one sample's seconds to its cause, with its user frame (-1 none):
 * in a step that met a new shape, the part of the step's host work beyond
 * the shape's steady step time goes to the new shape instead. */
static void book(struct attr_work *w, int cause, double seconds, int64_t t, int32_t frame) {
  double f = is_step_host_work(cause) ? new_shape_excess_at(w, t) : 0;
  w->out->rows[cause].seconds += seconds * (1 - f);
  if (f > 0)
    w->out->rows[GW_CAUSE_NEW_SHAPE].seconds += seconds * f;
  if (frame >= 0) {
    add_hit(w, cause, frame, 1 - f);
    if (f > 0)
      add_hit(w, GW_CAUSE_NEW_SHAPE, frame, f);
  }
}

static int cmp_tid(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Thread tid's thread sample nearest to t, within one sampler period;
 * NULL when none. */
static const struct gw_thread_tick *own_tick_at(const struct attr_work *w, int32_t tid, int64_t t) {
  const struct gw_recording *rec = w->rec;
  const struct gw_thread_tick *own = NULL;
  for (size_t k = th_lower(rec, t - w->thread_period_ns);
       k < rec->nthread_ticks && rec->thread_ticks[k].t_ns <= t + w->thread_period_ns; k++)
    if (rec->thread_ticks[k].tid == tid && (!own || llabs(rec->thread_ticks[k].t_ns - t) < llabs(own->t_ns - t)))
      own = &rec->thread_ticks[k];
  return own;
}

/* A training thread that waits in its own code (the activity "idle": a
 * wait of the standard library, which a fetch through sockets ends in)
 * while its thread sample has it on the disk: the files it reads itself,
 * or, held in a write, fsync or rename, the state it saves (a checkpoint);
 * on the network with no loader workers, its batch fetched inline, as
 * thread samples alone read such a wait (thread_cause). Else idle. */
static int own_read_at(const struct attr_work *w, const struct gw_py_tick *p) {
  const struct gw_thread_tick *own = own_tick_at(w, p->tid, p->t_ns);
  if (!own)
    return GW_PYACT_IDLE;
  if (own->state == GW_TSTATE_DISK || own->wait == GW_WAIT_DISK)
    return gw_syscall_writes_files(own->syscall) ? GW_PYACT_CHECKPOINT : GW_CAUSE_DISK_IO;
  if (own->wait == GW_WAIT_NET && workers_at(w->rec, p->t_ns, w->thread_period_ns, 0, NULL) == 0)
    return GW_PYACT_DATA_INLINE;
  return GW_PYACT_IDLE;
}

/* Whether thread tid's sample nearest t has it asleep on a futex (a lock or
 * condition of its own process: threading, queue, concurrent.futures). */
static int in_futex_wait(const struct attr_work *w, int32_t tid, int64_t t) {
  const struct gw_thread_tick *own = own_tick_at(w, tid, t);
  return own && own->state == GW_TSTATE_SLEEPING && own->wait == GW_WAIT_FUTEX;
}

/* What the other threads of the training thread's process (role helper)
 * were doing at t, counted by worker state into count: the feeding ones
 * (running, on the disk or the network, sleeping out a latency), less the
 * hook's own sampling thread. Returns how many, 0 when the thread was not
 * in a futex wait at t or no other thread was at work. */
static int own_threads_at(struct attr_work *w, int32_t tid, int64_t t, int *count) {
  const struct gw_recording *rec = w->rec;
  if (!in_futex_wait(w, tid, t))
    return 0;
  /* each helper's sample nearest to t (w->near, by the helper's index) */
  w->stamp++;
  for (size_t k = th_lower(rec, t - w->helper_window_ns);
       k < rec->nthread_ticks && rec->thread_ticks[k].t_ns <= t + w->helper_window_ns; k++) {
    const struct gw_thread_tick *tt = &rec->thread_ticks[k];
    const int32_t *h = tt->tid == tid ? NULL : bsearch(&tt->tid, w->helpers, w->nhelpers, sizeof *w->helpers, cmp_tid);
    if (!h)
      continue;
    size_t i = (size_t)(h - w->helpers);
    if (w->near_stamp[i] != w->stamp || llabs(tt->t_ns - t) < llabs(w->near[i]->t_ns - t)) {
      w->near[i] = tt;
      w->near_stamp[i] = w->stamp;
    }
  }
  int n = 0;
  for (size_t i = 0; i < w->nhelpers; i++) {
    const struct gw_thread_tick *tt = w->near[i];
    if (w->near_stamp[i] != w->stamp)
      continue;
    int feeding = tt->state == GW_TSTATE_RUNNING || tt->state == GW_TSTATE_DISK || tt->wait == GW_WAIT_NET ||
                  tt->wait == GW_WAIT_DISK || tt->wait == GW_WAIT_SLEEP;
    if (feeding) {
      count[worker_state(tt)]++;
      n++;
    }
  }
  /* The hook's own sampling thread sleeps in clock_nanosleep between its
   * samples, and runs during them, in the very process it samples; a Python
   * thread keeps the process's name, so it cannot be told by name: one such
   * thread is taken to be it. */
  if (w->hook_sampler && (count[GW_WORKERS_OTHER_SLEEP] > 0 || count[GW_WORKERS_RUNNING] > 0)) {
    count[count[GW_WORKERS_OTHER_SLEEP] > 0 ? GW_WORKERS_OTHER_SLEEP : GW_WORKERS_RUNNING]--;
    n--;
  }
  return n;
}

/* A training thread that waits on a lock or condition of its own process
 * (its stack in threading / queue / concurrent.futures: the activity
 * "idle") while other threads of that process are reading (network, disk),
 * sleeping out a latency or computing, is waiting on an in-process
 * prefetcher (a ThreadPoolExecutor or a thread filling a queue): the next
 * batch, made by threads instead of loader processes. Adds to split what
 * those threads did; returns how many there were, 0 when the thread was not
 * in a futex wait at t (a time.sleep of its own is nanosleep: the program's
 * idle time) or no other thread was at work. */
static int prefetch_at(struct attr_work *w, int32_t tid, int64_t t, double weight, double *split) {
  int count[GW_WORKER_NSTATES] = {0};
  int n = own_threads_at(w, tid, t, count);
  if (n <= 0)
    return 0;
  for (int k = 0; k < GW_WORKER_NSTATES; k++)
    if (count[k] > 0)
      split[k] += weight * count[k] / n;
  return n;
}

/* A stack sample in the step's own host work (the copy to the GPU, the
 * optimizer, the loop's own code, making the batch) taken while the thread
 * samples had the thread asleep on a lock and a thread of its own process
 * running: only one thread of a Python process runs Python at a time, so it
 * waits for the interpreter lock that thread holds (the forward and
 * backward are left out: there the training thread waits on a lock for the
 * autograd threads by design). */
static int waits_for_interpreter(struct attr_work *w, int32_t tid, int64_t t) {
  int count[GW_WORKER_NSTATES] = {0};
  return w->nhelpers && own_threads_at(w, tid, t, count) > 0 && count[GW_WORKERS_RUNNING] > 0;
}

static int is_lock_wait_candidate(int cause) {
  return cause == GW_PYACT_H2D || cause == GW_PYACT_OPTIMIZER || cause == GW_PYACT_OTHER ||
         cause == GW_PYACT_DATA_INLINE;
}

/* Stack sample k's cause (py_sample_cause.h), a lock wait where the thread
 * samples show one (waits_for_interpreter). charge() reads a sample twice,
 * and neighbouring windows share samples: the thread-sample search is done
 * once per sample (w->lock_wait). */
static int py_cause(struct attr_work *w, size_t k) {
  const struct gw_py_tick *p = &w->rec->py_ticks[k];
  int c = gw_py_sample_cause(&w->causes, p);
  if (!is_lock_wait_candidate(c) || !w->nhelpers)
    return c;
  if (!w->lock_wait)
    w->lock_wait = gw_xcalloc(w->rec->npy_ticks, 1);
  if (!w->lock_wait[k])
    w->lock_wait[k] = waits_for_interpreter(w, p->tid, p->t_ns) ? 2 : 1;
  return w->lock_wait[k] == 2 ? GW_CAUSE_LOCK_WAIT : c;
}

/* The thread issues no GPU work at this cause, or none the GPU is not
 * already waiting on: blocked on the loader's queue, writing a checkpoint,
 * logging, compiling, sleeping or waiting on its own threads, reading files;
 * making the batch in the loop (host code outside any library: numpy, PIL,
 * Python) or in a copy to the GPU, which holds the thread until the bytes
 * are there (a pageable copy is synchronous; an asynchronous one returns at
 * once and is seldom sampled). (Launching, the optimizer and an evaluation
 * pass queue GPU work: the samples cannot tell how much.) */
static int is_stall_cause(int cause) {
  return cause == GW_PYACT_DATA_WAIT || cause == GW_PYACT_CHECKPOINT || cause == GW_PYACT_LOGGING ||
         cause == GW_PYACT_COMPILE || cause == GW_PYACT_IDLE || cause == GW_CAUSE_DISK_IO ||
         cause == GW_PYACT_DATA_INLINE || cause == GW_PYACT_H2D || cause == GW_CAUSE_LOCK_WAIT;
}

/* Whether a cause is the launching thread at work on the step (issuing
 * kernels, the optimizer, a synchronising call, running on the CPU). */
static int is_launch_cause(int cause) {
  return strcmp(gw_idle_cause_class(cause), "launch_overhead") == 0;
}

/* Charges idle_s seconds of GPU idle time to the samples of the launching
 * thread in [s, e): by their counts, except that samples in a synchronising
 * call take none of a tick's idle time and stall samples take it first
 * (below). A window shorter than two sampler periods, or holding fewer than
 * min_samples samples, cannot say what the thread did through it:
 * unresolved. gpu_paced: kernels were resident most of the window, so the
 * GPU's own work set the pace through it; the idle left to the samples of
 * the thread at work on the step is the GPU's short gaps (a queue drained
 * by a sync, dependent launches), not a host too slow to keep it fed, as the
 * counter rule reads a GPU resident half the time or more
 * (thresholds.c small_busy_util_pct): GW_CAUSE_GPU_PACED, no class.
 * gpu_silent: no kernel was resident through the window (a whole idle
 * stretch), so a thread that ran there, in the model's forward, backward or
 * optimizer or just running, launched nothing: a thread launching kernels,
 * however slowly, keeps one resident part of every tick (a launch-bound
 * loop 13-25% of it, thresholds.c launch_min_util_pct). That is host work
 * (choosing and planning kernels for a new shape, CPU operators, the
 * allocator), no class by itself: GW_CAUSE_HOST_NO_KERNEL. In a step that
 * met a new shape its excess still goes to the new shape (book). */
/* A sample's cause as the window it lies in reads it (charge): launching
 * where kernels were resident most of the window is the GPU's own short
 * gaps; in the model's code or running where none reached the GPU, host
 * work. A synchronizing call stays what it is. */
static int paced_cause(int c, int gpu_paced, int gpu_silent) {
  if (gpu_paced && is_launch_cause(c))
    return GW_CAUSE_GPU_PACED;
  if (gpu_silent && is_launch_cause(c) && c != GW_PYACT_SYNC)
    return GW_CAUSE_HOST_NO_KERNEL;
  return c;
}

/* The same wait (the training thread in a futex wait of its own code) while
 * worker processes of the job run, read or receive: the batch from a pool of
 * processes that is not a DataLoader (concurrent.futures'
 * ProcessPoolExecutor, multiprocessing.Pool), whose result the thread waits
 * for on a lock. A DataLoader's wait is sampled in the DataLoader instead
 * (the activity data wait). Adds to split what the workers did; returns how
 * many were sampled, 0 when the thread was not in such a wait or none of them
 * worked (idle pool processes wait on their task pipe). */
static int pool_at(struct attr_work *w, int32_t tid, int64_t t, double weight, double *split) {
  if (!in_futex_wait(w, tid, t))
    return 0;
  double states[GW_WORKER_NSTATES] = {0};
  int n = workers_at(w->rec, t, w->thread_period_ns, 1.0, states);
  if (n <= 0 || states[GW_WORKERS_RUNNING] + states[GW_WORKERS_DISK] + states[GW_WORKERS_NET] <= 0)
    return 0;
  for (int k = 0; k < GW_WORKER_NSTATES; k++)
    split[k] += weight * states[k];
  return n;
}

/* A lock wait of the training thread's own (cause idle) while threads of its
 * process fetch or compute, or else worker processes of the job do, is the
 * batch from an in-process prefetcher (prefetch_at) or a process pool
 * (pool_at): returns the data wait, with what those threads or processes did
 * added to its row; else c. */
static int prefetch_cause(struct attr_work *w, int c, int32_t tid, int64_t t, double share_s) {
  if (c != GW_PYACT_IDLE)
    return c;
  double split[GW_WORKER_NSTATES] = {0};
  int feeders = w->nhelpers ? prefetch_at(w, tid, t, share_s, split) : 0;
  if (feeders <= 0)
    feeders = w->rec->nthread_ticks ? pool_at(w, tid, t, share_s, split) : 0;
  if (feeders <= 0)
    return c;
  for (int ws = 0; ws < GW_WORKER_NSTATES; ws++)
    w->out->rows[GW_PYACT_DATA_WAIT].worker_s[ws] += split[ws];
  if (feeders > w->max_feeders)
    w->max_feeders = feeders;
  return GW_PYACT_DATA_WAIT;
}

/* A traced gap this long had no launch in it: a launching thread issues a
 * kernel every few tens of microseconds, after a millisecond at most for
 * Python's slowest ops (an indexing op with host checks). */
#define SILENT_GAP_NS 10000000LL

static void charge(struct attr_work *w, int64_t s, int64_t e, double idle_s, size_t min_samples, int gpu_paced,
                   int gpu_silent) {
  struct gw_idle_attribution *out = w->out;
  const struct gw_recording *rec = w->rec;
  double len_s = idle_s;
  if (!(len_s > 0) || e <= s)
    return;
  out->idle_s += len_s;
  if (e - s < 2 * w->period_ns) { /* shorter than two samples: no sample can name it */
    out->rows[GW_CAUSE_UNRESOLVED].seconds += len_s;
    return;
  }
  size_t n = 0, nsync = 0;
  if (out->source == GW_ATTR_PY) {
    for (size_t k = py_lower(rec, s); k < rec->npy_ticks && rec->py_ticks[k].t_ns < e; k++)
      if (rec->py_ticks[k].pid == w->pid) {
        n++;
        nsync += rec->py_ticks[k].activity == GW_PYACT_SYNC;
      }
  } else {
    for (size_t k = th_lower(rec, s); k < rec->nthread_ticks && rec->thread_ticks[k].t_ns < e; k++)
      n += rec->thread_ticks[k].tid == w->tid;
  }
  if (!n) {
    out->rows[GW_CAUSE_UNSAMPLED].seconds += len_s;
    return;
  }
  if (n < min_samples) { /* one sample in a tick: the thread may have done anything else around it */
    out->rows[GW_CAUSE_UNRESOLVED].seconds += len_s;
    return;
  }
  /* A sampled tick's idle share is spread over the samples in it, but a
   * thread blocked in a synchronising call waits for work queued on the GPU,
   * which runs meanwhile: its samples took none of the tick's idle time,
   * which fell while the thread did the rest (launching the next step after
   * the sync returned: the launch class, as the sync's own class). An exact
   * idle stretch of the kernel timeline keeps every sample in it. */
  int skip_sync = !out->from_timeline && nsync > 0 && nsync < n;
  size_t nused = skip_sync ? n - nsync : n, nstall = 0;
  if (!out->from_timeline) {
    if (out->source == GW_ATTR_PY) {
      for (size_t k = py_lower(rec, s); k < rec->npy_ticks && rec->py_ticks[k].t_ns < e; k++)
        if (rec->py_ticks[k].pid == w->pid && !(skip_sync && rec->py_ticks[k].activity == GW_PYACT_SYNC))
          nstall += is_stall_cause(py_cause(w, k));
    } else {
      for (size_t k = th_lower(rec, s); k < rec->nthread_ticks && rec->thread_ticks[k].t_ns < e; k++)
        if (rec->thread_ticks[k].tid == w->tid)
          nstall += is_stall_cause(sampled_thread_cause(w, &rec->thread_ticks[k]));
    }
  }
  /* Nor is a sampled tick's idle time spread evenly where the thread both
   * stalled and worked in it. While it stalls (is_stall_cause) it issues no
   * GPU work: once the queue it left runs out the GPU idles, so the tick's
   * idle time falls in those samples first, up to the time they stand for
   * (a sampling period each). While it launches, the GPU runs what it
   * launches and idles only where the launches fall behind: the other
   * samples share what is left. The first launches after a stall find the
   * GPU drained, and that wait is the stall's. */
  double stall_each = len_s / (double)nused, each = stall_each;
  size_t nrest = nused - nstall;
  if (nstall > 0 && nrest > 0) {
    double period_s = (double)w->period_ns / 1e9, stall_cap_s = (double)nstall * period_s;
    stall_each = fmin(len_s, stall_cap_s) / (double)nstall;
    each = fmax(0, len_s - stall_cap_s) / (double)nrest;
  }
  if (out->source == GW_ATTR_PY) {
    for (size_t k = py_lower(rec, s); k < rec->npy_ticks && rec->py_ticks[k].t_ns < e; k++) {
      const struct gw_py_tick *p = &rec->py_ticks[k];
      if (p->pid != w->pid || (skip_sync && p->activity == GW_PYACT_SYNC))
        continue;
      int c = py_cause(w, k);
      double share_s = is_stall_cause(c) ? stall_each : each;
      c = paced_cause(c, gpu_paced, gpu_silent);
      int was = c;
      c = prefetch_cause(w, c, p->tid, p->t_ns, share_s);
      if (c == GW_PYACT_IDLE)
        c = own_read_at(w, p);
      else if (was == GW_PYACT_DATA_WAIT && rec->nthread_ticks)
        workers_at(rec, p->t_ns, (int64_t)(1e9 / (rec->thread_sampling_hz > 0 ? rec->thread_sampling_hz : 20)), share_s,
                   out->rows[c].worker_s);
      book(w, c, share_s, p->t_ns, p->frame);
    }
  } else {
    for (size_t k = th_lower(rec, s); k < rec->nthread_ticks && rec->thread_ticks[k].t_ns < e; k++) {
      const struct gw_thread_tick *tt = &rec->thread_ticks[k];
      if (tt->tid != w->tid)
        continue;
      int c = sampled_thread_cause(w, tt);
      double share_s = is_stall_cause(c) ? stall_each : each;
      c = paced_cause(c, gpu_paced, gpu_silent);
      int was = c;
      c = prefetch_cause(w, c, tt->tid, tt->t_ns, share_s);
      if (was == GW_PYACT_DATA_WAIT)
        workers_at(rec, tt->t_ns, w->period_ns, share_s, out->rows[c].worker_s);
      book(w, c, share_s, tt->t_ns, -1);
    }
  }
}

/* The idle share of tick i as the ledger reads it: the share of the tick no
 * kernel was resident (1 - GPU-Util), or with SM activity the share no SM
 * worked when that is larger (a resident kernel that fills no SM leaves the
 * GPU as idle as none); NAN unknown. */
static double tick_idle_share(const struct gw_gpu_series *g, size_t i) {
  double act = gw_tick_activity_pct(g, i, NULL);
  if (isnan(act))
    return NAN;
  double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
  double b = fmax(act, isnan(u) ? act : u) / 100;
  return b < 0 ? 1 : b > 1 ? 0 : 1 - b;
}

/* The span a GPM reading describes: GPM computes SM activity between two
 * snapshots of its counters (1 s apart by default) and the recorder stores
 * the value once per window, so readings on a minority of ticks spaced k
 * ticks apart each stand for the k ticks' time before their tick ends.
 * 0 when SM activity is read at every tick (or not at all): a tick is its own
 * window. */
static int64_t gpm_window_ns(const struct gw_gpu_series *g, int64_t typical) {
  const struct gw_value_column *sm = g->m[GW_M_sm_active_pct];
  if (!sm || g->n < 3)
    return 0;
  size_t prev = SIZE_MAX, ngaps = 0, nread = 0;
  int64_t *gaps = gw_xcalloc(g->n, sizeof *gaps);
  for (size_t i = 0; i < g->n; i++) {
    if (isnan(gw_column_at(sm, i)))
      continue;
    nread++;
    if (prev != SIZE_MAX)
      gaps[ngaps++] = g->t_ns[i] - g->t_ns[prev];
    prev = i;
  }
  int64_t window = 0;
  if (ngaps > 0 && 2 * nread < g->n) {
    /* the median gap: a missed reading here and there does not widen it */
    for (size_t a = 1; a < ngaps; a++)
      for (size_t b = a; b > 0 && gaps[b - 1] > gaps[b]; b--) {
        int64_t t = gaps[b];
        gaps[b] = gaps[b - 1];
        gaps[b - 1] = t;
      }
    window = gaps[ngaps / 2];
    if (window < 3 * typical / 2)
      window = 0;
  }
  free(gaps);
  return window;
}

/* NVML's GPU-Util is the share of its own last sample period (1/6 s to 1 s
 * by product; 1/6 s on the data-centre GPUs) in which a kernel ran, and it
 * is published when that period ends: a reading at t describes a span that
 * ended up to one such period before t. The recorder's tick convention (a
 * reading stands for the interval after it) puts the idle time of a stall
 * that ends between two readings on the samples after the stall: on a 0.25 s
 * checkpoint, the idle readings came at +173 and +273 ms, and the second was
 * charged to the training steps that followed. */
#define UTIL_PUBLISH_PERIOD_NS 166666667LL

/* The span whose thread samples a tick's idle time is charged to. A
 * GPU-Util reading looks back one publication period on average: the span
 * of its tick (or of the period, when that is longer) ending half a period
 * before the reading. SM activity from GPM or DCGM is computed over the
 * window ending at its reading (and, filled between GPM readings, follows
 * GPU-Util's ticks: series.c), so it looks back too. SM activity the
 * analysis took from the kernel timeline (launch configurations, PM
 * sampling) describes the tick after the reading, as the ledger reads it.
 * by_timeline: that timeline activity set the idle share. */
static void idle_window(const struct gw_gpu_series *g, size_t i, int64_t dt, int64_t gpm_ns, int by_timeline,
                        int64_t *ws, int64_t *we) {
  double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
  int64_t t = g->t_ns[i];
  if (by_timeline) {
    *ws = t;
    *we = t + dt;
  } else if (!isnan(u)) {
    int64_t span = dt > UTIL_PUBLISH_PERIOD_NS ? dt : UTIL_PUBLISH_PERIOD_NS;
    *we = t - UTIL_PUBLISH_PERIOD_NS / 2;
    *ws = *we - span;
  } else {
    *we = t;
    *ws = t - (gpm_ns > dt ? gpm_ns : dt);
  }
}

/* The rank's steps that ended in [ws, we). */
static size_t steps_ended_in(const struct attr_work *w, int64_t ws, int64_t we) {
  return gw_first_at_or_after(w->step_ends, w->nstep_ends, we) - gw_first_at_or_after(w->step_ends, w->nstep_ends, ws);
}

/* The loop ended its steps fast enough through the window that it was
 * issuing kernels all along: every optimizer step launches its update's
 * kernels after the forward's and backward's, so a loop that ends a step at
 * least every LAUNCHING_STEP_MAX_NS kept feeding the GPU, and a kernel
 * resident under launch_min_util_pct of the window is a storm of short
 * kernels from a slow host (a 3-layer MLP's 1.77 ms steps keep one resident
 * 8-10% of an H200's ticks), not a host doing something else. 25 ms, a
 * quarter of a GPU tick: work without kernels that fills most of a step
 * (planning a new shape, compiling, making the batch in the loop) is what
 * makes a step that long, and such loops keep their reading. */
#define LAUNCHING_STEP_MAX_NS 25000000LL
static int loop_launching_in(const struct attr_work *w, int64_t ws, int64_t we) {
  return w->nstep_ends && we > ws && (int64_t)steps_ended_in(w, ws, we) * LAUNCHING_STEP_MAX_NS >= we - ws;
}

/* Counter path, tick by tick. Runs of wholly idle ticks (no kernel resident,
 * or under 1% SM activity: less than one 10 ms kernel a second) are one
 * stretch each, charged to the samples inside it as a whole, so a long stall
 * is resolved even by a slow sampler. Every other tick in which the GPU idled
 * for part of its time (a stall of 0.2-0.5 s between steps of a few ms never
 * empties a whole 100 ms tick, or a 1 s GPM window) has its idle share
 * charged to the samples inside the tick, or inside the GPM window its SM
 * activity was measured over; with fewer than two samples there it is
 * unresolved. */
static void attribute_ticks(struct attr_work *w, const struct gw_gpu_series *g, int64_t t0, int64_t t1) {
  int64_t typical = gw_typical_dt_ns(g), start = -1, end = -1, gpm_ns = gpm_window_ns(g, typical);
  double stretch_s = 0;
  int silent = 0; /* every tick of the stretch read no kernel resident (not only SMs near idle: a storm) */
  for (size_t i = 0; i < g->n; i++) {
    if (g->t_ns[i] < t0 || g->t_ns[i] >= t1)
      continue;
    double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
    double smv = gw_column_at(g->m[GW_M_sm_active_pct], i);
    int util_idle = !isnan(u) && u <= 0, sm_idle = !isnan(smv) && smv < IDLE_SM_PCT;
    int whole = util_idle || sm_idle;
    /* whether the kernel timeline's SM activity set the idle share: the idle
     * reading of a whole tick, else the busier of the two (tick_idle_share) */
    int timeline =
        g->sm_activity_source == GW_SM_SOURCE_LAUNCH_CONFIG || g->sm_activity_source == GW_SM_SOURCE_PM_SAMPLING;
    int by_timeline = timeline && !isnan(smv) && (whole ? sm_idle && !util_idle : isnan(u) || smv > u);
    int64_t dt = gw_tick_dt_ns(g, i, typical), ws, we;
    idle_window(g, i, dt, gpm_ns, by_timeline, &ws, &we);
    if (whole && start >= 0 && ws <= end) {
      end = end > we ? end : we; /* the stretch goes on */
      stretch_s += (double)dt / 1e9;
      silent &= util_idle;
      continue;
    }
    if (start >= 0)
      charge(w, start, end, stretch_s, 1, 0, silent);
    start = -1;
    if (whole) {
      start = ws;
      end = we;
      stretch_s = (double)dt / 1e9;
      silent = util_idle;
      continue;
    }
    double idle = tick_idle_share(g, i);
    if (!(idle > 0))
      continue; /* busy, or unknown: unknown stays out of the idle time */
    /* GPU-Util (the share of the tick a kernel was resident) at least half;
     * under launch_min_util_pct, less than a thread launching through the
     * tick keeps resident: it mostly did not launch, unless the loop's steps
     * show it launching all along (loop_launching_in) */
    charge(w, ws, we, idle * (double)dt / 1e9, 2, !isnan(u) && u >= gw_thr.small_busy_util_pct,
           !isnan(u) && u < gw_thr.launch_min_util_pct && !loop_launching_in(w, ws, we));
  }
  if (start >= 0)
    charge(w, start, end, stretch_s, 1, 0, silent);
}

static int cmp_i64(const void *a, const void *b) {
  return gw_cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

static int cmp_iv(const void *a, const void *b) {
  const struct gw_interval *x = a, *y = b;
  return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static void append(struct gw_interval **all, size_t *n, const struct gw_interval *src, size_t ns) {
  if (!ns)
    return;
  *all = gw_xrealloc(*all, (*n + ns) * sizeof **all);
  memcpy(*all + *n, src, ns * sizeof *src);
  *n += ns;
}

/* Lock waits read as the loop's input where the loop handles its batches:
 * a thread that makes them hands each one over, and the training thread
 * then waits for it, copies it to the GPU or finishes it, which its samples
 * see (the decoding threads of weak_spots_h100 and oos_h200: 10-23% of the
 * idle time). A loop whose samples show none of that (under
 * HELPER_INPUT_MIN_SHARE of the idle time: its data made on the GPU) takes no
 * batch from the busy thread, which is a helper of its own (metrics,
 * logging: oos2_h100's second metrics_thread_gil host, 0 of it): its lock
 * waits are the helper's. */
#define HELPER_INPUT_MIN_SHARE 0.01
static void helper_lock_waits(struct gw_idle_attribution *out) {
  struct gw_attr_row *lock = &out->rows[GW_CAUSE_LOCK_WAIT];
  if (!(lock->seconds > 0) || !(out->idle_s > 0))
    return;
  double input_s = out->rows[GW_PYACT_DATA_WAIT].seconds + out->rows[GW_PYACT_DATA_INLINE].seconds +
                   out->rows[GW_PYACT_H2D].seconds + out->rows[GW_CAUSE_DISK_IO].seconds;
  if (input_s >= HELPER_INPUT_MIN_SHARE * out->idle_s)
    return;
  out->rows[GW_CAUSE_HELPER_LOCK_WAIT] = *lock;
  memset(lock, 0, sizeof *lock);
}

void gw_idle_attribute(const struct gw_recording *rec, int gi, int64_t t0, int64_t t1,
                       struct gw_idle_attribution *out) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  memset(out, 0, sizeof *out);
  out->gpu = g->gpu;
  if (t1 <= t0)
    return;
  struct attr_work w = {.rec = rec, .out = out};
  if (rec->npy_ticks > 0 && rec->py_sampling_hz > 0 && (w.pid = rank_pid(rec, g, 1)) > 0) {
    out->source = GW_ATTR_PY;
    out->sampler_hz = rec->py_sampling_hz;
  } else if (rec->nthread_ticks > 0 && rec->thread_sampling_hz > 0 && (w.pid = rank_pid(rec, g, 0)) > 0 &&
             (w.tid = main_tid(rec, w.pid)) > 0) {
    out->source = GW_ATTR_THREADS;
    out->sampler_hz = rec->thread_sampling_hz;
  } else {
    return; /* nothing measured: the ledger's rules stay in charge */
  }
  out->pid = w.pid;
  w.period_ns = (int64_t)(1e9 / out->sampler_hz);
  for (size_t i = 0; i < rec->nthreads; i++)
    out->nworkers += rec->threads[i].role == GW_TROLE_LOADER_WORKER;
  out->wall_s = (double)(t1 - t0) / 1e9;
  /* the samples the sampler took: one that must take the interpreter lock
   * from a loop holding it in pure Python waits for the lock's switch
   * interval each time and takes fewer than asked */
  size_t ntaken = 0;
  if (out->source == GW_ATTR_PY) {
    for (size_t k = py_lower(rec, t0); k < rec->npy_ticks && rec->py_ticks[k].t_ns < t1; k++)
      ntaken += rec->py_ticks[k].pid == w.pid;
  } else {
    for (size_t k = th_lower(rec, t0); k < rec->nthread_ticks && rec->thread_ticks[k].t_ns < t1; k++)
      ntaken += rec->thread_ticks[k].tid == w.tid;
  }
  out->taken_hz = out->wall_s > 0 ? (double)ntaken / out->wall_s : 0;
  w.nstalls = gw_shape_stalls(rec, w.pid, &w.stalls);
  size_t host_a = gw_host_index_at(&rec->host, t0), host_b = gw_host_index_at(&rec->host, t1);
  w.loop_not_launching =
      host_a != SIZE_MAX && gw_main_per_backward_cpu(&rec->host, host_a, host_b + 1) > gw_thr.main_per_backward_max;
  if (out->source == GW_ATTR_PY)
    gw_py_causes_init(&w.causes, rec, w.pid);
  if (rec->nthread_ticks > 0 && rec->thread_sampling_hz > 0) {
    w.helpers = gw_xcalloc(rec->nthreads + 1, sizeof *w.helpers);
    for (size_t i = 0; i < rec->nthreads; i++)
      if (rec->threads[i].pid == w.pid && rec->threads[i].role == GW_TROLE_HELPER)
        w.helpers[w.nhelpers++] = rec->threads[i].tid;
    qsort(w.helpers, w.nhelpers, sizeof *w.helpers, cmp_tid);
    w.near = gw_xcalloc(w.nhelpers + 1, sizeof *w.near);
    w.near_stamp = gw_xcalloc(w.nhelpers + 1, sizeof *w.near_stamp);
    /* the hook's sampling thread runs where it was asked to sample */
    w.hook_sampler = out->source == GW_ATTR_PY || rec->py_sampling_hz > 0;
    /* the recorder samples helper threads every GW_THREAD_HELPER_EVERY-th
     * tick: each has one sample within half that span of any instant */
    w.thread_period_ns = (int64_t)(1e9 / rec->thread_sampling_hz);
    w.helper_window_ns = w.thread_period_ns * (GW_THREAD_HELPER_EVERY + 1) / 2;
  }
  if (out->source == GW_ATTR_THREADS)
    gw_data_waits_for_gpu(rec, gi, &w.waits);

  if (rec->has_timeline && g->nkernels + g->nnccl > 0) {
    /* exact: the gaps between everything the GPU ran (kernels, NCCL, copies) */
    out->from_timeline = 1;
    struct gw_interval *all = NULL;
    size_t n = 0;
    append(&all, &n, g->kernels, g->nkernels);
    append(&all, &n, g->nccl, g->nnccl);
    append(&all, &n, g->h2d, g->nh2d);
    append(&all, &n, g->copies, g->ncopies);
    qsort(all, n, sizeof *all, cmp_iv);
    int64_t edge = t0;
    for (size_t k = 0; k < n && edge < t1; k++) {
      if (all[k].start_ns > edge) {
        int64_t ge = all[k].start_ns < t1 ? all[k].start_ns : t1;
        charge(&w, edge, ge, (double)(ge - edge) / 1e9, 1, 0, ge - edge >= SILENT_GAP_NS);
      }
      if (all[k].end_ns > edge)
        edge = all[k].end_ns;
    }
    if (edge < t1)
      charge(&w, edge, t1, (double)(t1 - edge) / 1e9, 1, 0, t1 - edge >= SILENT_GAP_NS);
    free(all);
  } else {
    /* the rank's step ends, for the windows its steps show launching (loop_launching_in) */
    w.step_ends = gw_xcalloc(rec->nsteps + 1, sizeof *w.step_ends);
    for (size_t i = 0; i < rec->nsteps; i++)
      if (rec->steps[i].pid == w.pid && !rec->steps[i].from_loader && rec->steps[i].end_ns > rec->steps[i].start_ns)
        w.step_ends[w.nstep_ends++] = rec->steps[i].end_ns;
    qsort(w.step_ends, w.nstep_ends, sizeof *w.step_ends, cmp_i64);
    attribute_ticks(&w, g, t0, t1);
  }
  /* the top user frames of each cause, by samples */
  if (w.nhits) {
    qsort(w.hits, w.nhits, sizeof *w.hits, cmp_hit);
    for (size_t a = 0; a < w.nhits;) {
      size_t b = a;
      double sum = 0;
      while (b < w.nhits && w.hits[b].cause == w.hits[a].cause && w.hits[b].frame == w.hits[a].frame)
        sum += w.hits[b++].w;
      struct gw_attr_row *r = &out->rows[w.hits[a].cause];
      for (int slot = 0; slot < GW_ATTR_TOP_FRAMES; slot++) {
        if (slot < r->nframes && r->frame_samples[slot] >= sum)
          continue;
        for (int m = GW_ATTR_TOP_FRAMES - 1; m > slot; m--) {
          r->frame[m] = r->frame[m - 1];
          r->frame_samples[m] = r->frame_samples[m - 1];
        }
        r->frame[slot] = w.hits[a].frame;
        r->frame_samples[slot] = sum;
        if (r->nframes < GW_ATTR_TOP_FRAMES)
          r->nframes++;
        break;
      }
      a = b;
    }
  }
  free(w.hits);
  free(w.stalls);
  gw_py_causes_free(&w.causes);
  free(w.helpers);
  free(w.near);
  free(w.near_stamp);
  free(w.lock_wait);
  gw_data_waits_free(&w.waits);
  free(w.step_ends);
  if (!out->nworkers)
    out->nworkers = w.max_feeders;
  for (int c = 0; c < GW_IDLE_NCAUSES; c++)
    for (int k = 0; k < out->rows[c].nframes; k++) {
      const struct gw_py_frame_info *fr = gw_py_frame_find(rec, out->rows[c].frame[k]);
      const char *base = fr ? strrchr(fr->file, '/') : NULL;
      if (fr)
        snprintf(out->rows[c].frame_text[k], sizeof out->rows[c].frame_text[k], "%.40s:%d in %.40s",
                 base ? base + 1 : fr->file, fr->line, fr->func);
      else
        snprintf(out->rows[c].frame_text[k], sizeof out->rows[c].frame_text[k], "frame %d", (int)out->rows[c].frame[k]);
    }
  helper_lock_waits(out);
  for (int c = 0; c < GW_IDLE_NCAUSES; c++) {
    out->rows[c].share_of_wall = out->wall_s > 0 ? out->rows[c].seconds / out->wall_s : 0;
    out->rows[c].share_of_idle = out->idle_s > 0 ? out->rows[c].seconds / out->idle_s : 0;
  }
}

void gw_py_classes_in_ticks(const struct gw_recording *rec, int gi, const unsigned char *mask, size_t first,
                            size_t last, size_t *input, size_t *schedule) {
  *input = *schedule = 0;
  const struct gw_gpu_series *g = &rec->gpus[gi];
  int64_t pid;
  if (rec->npy_ticks == 0 || last >= g->n || first > last || (pid = rank_pid(rec, g, 1)) <= 0)
    return;
  struct gw_py_causes causes;
  gw_py_causes_init(&causes, rec, pid);
  for (size_t i = first; i <= last; i++) {
    if (!mask[i])
      continue;
    /* a tick's reading covers the time since the tick before */
    int64_t t0 = i > 0 ? g->t_ns[i - 1] : g->t_ns[i] - gw_typical_dt_ns(g), t1 = g->t_ns[i];
    for (size_t k = py_lower(rec, t0); k < rec->npy_ticks && rec->py_ticks[k].t_ns < t1; k++) {
      if (rec->py_ticks[k].pid != pid)
        continue;
      const char *cls = gw_idle_cause_class(gw_py_sample_cause(&causes, &rec->py_ticks[k]));
      *input += strcmp(cls, "input_pipeline") == 0;
      *schedule += strcmp(cls, "schedule_shape") == 0;
    }
  }
  gw_py_causes_free(&causes);
}
