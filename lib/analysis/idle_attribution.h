/* Each GPU's idle stretches charged to what the launching thread of the rank
 * on that GPU was doing then: its Python stack samples (py_ticks) where the
 * hook recorded them, else its main thread's kernel state (thread_ticks),
 * else nothing (the ledger's rules stay in charge). */
#ifndef GW_IDLE_ATTRIBUTION_H
#define GW_IDLE_ATTRIBUTION_H

#include <stdint.h>

#include "core/activity.h"
#include "store/store_model.h"

/* Causes: the Python activities (core/activity.h), then what thread samples
 * alone can tell, then the stretches no sample can name. */
enum gw_idle_cause {
  GW_CAUSE_HOST_RUNNING = GW_PYACT_COUNT, /* thread samples: the launching thread ran (host work or launching) */
  GW_CAUSE_DISK_IO,                       /* thread samples: it waited on the disk */
  GW_CAUSE_NEW_SHAPE,        /* host work of a step that met a new input shape, beyond the shape's steady step time */
  GW_CAUSE_GPU_PACED,        /* launching while kernels were resident most of the tick: the GPU's own short gaps */
  GW_CAUSE_HOST_NO_KERNEL,   /* in the model's code (forward, backward, optimizer) or running, through a stretch
                              * no kernel reached the GPU: host work, not launches (planning, CPU ops) */
  GW_CAUSE_LOCK_WAIT,        /* stack samples in the step's host work while the thread samples had it asleep on a
                              * lock and a thread of its own process running: Python's interpreter lock */
  GW_CAUSE_HELPER_LOCK_WAIT, /* the same, in a loop that handles no batch from the host: the running thread is a
                              * helper's (metrics, logging), not the loop's input */
  GW_CAUSE_UNRESOLVED,       /* a stretch shorter than two periods of the sampler that classifies it */
  GW_CAUSE_UNSAMPLED,        /* no sample of the thread fell inside the stretch */
  GW_IDLE_NCAUSES
};
/* What the loader workers were doing during a data wait. */
enum gw_worker_state {
  GW_WORKERS_RUNNING,
  GW_WORKERS_NET,
  GW_WORKERS_DISK,
  GW_WORKERS_PIPE,
  GW_WORKERS_OTHER_SLEEP,
  GW_WORKERS_ABSENT,
  GW_WORKER_NSTATES
};
enum gw_attr_source { GW_ATTR_NONE, GW_ATTR_PY, GW_ATTR_THREADS };
#define GW_ATTR_TOP_FRAMES 3

struct gw_attr_row {
  double seconds, share_of_wall, share_of_idle;
  double worker_s[GW_WORKER_NSTATES]; /* data waits: seconds by what the workers did; all 0 unknown */
  int nframes;
  int32_t frame[GW_ATTR_TOP_FRAMES]; /* py_frame ids, most samples first */
  double frame_samples[GW_ATTR_TOP_FRAMES];
  char frame_text[GW_ATTR_TOP_FRAMES][96]; /* "train.py:41 in train_epoch"; the recording is freed before rendering */
};

struct gw_idle_attribution {
  int gpu;
  int source;            /* enum gw_attr_source; GW_ATTR_NONE: nothing below is set */
  int from_timeline;     /* idle stretches from the traced kernels (exact), else from the samples */
  double sampler_hz;     /* of the sampler that classified */
  double taken_hz;       /* its samples of the rank over the working span: under sampler_hz when it fell behind */
  int64_t pid;           /* the rank's process, 0 unknown */
  double wall_s, idle_s; /* the GPU's working span and its idle stretches */
  int nworkers; /* loader worker threads seen, else the threads of the rank's own process seen feeding its waits */
  struct gw_attr_row rows[GW_IDLE_NCAUSES]; /* indexed by cause */
};

/* Of the Python stack samples of GPU gi's rank taken inside the GPU sample
 * ticks first..last that mask marks, how many charge the input class
 * (*input) and how many the schedule class (*schedule): what the training
 * thread did in a set of ticks (the dips of a period). Both 0 without stack
 * samples or with no rank known. */
void gw_py_classes_in_ticks(const struct gw_recording *rec, int gi, const unsigned char *mask, size_t first,
                            size_t last, size_t *input, size_t *schedule);

/* Attributes GPU gi's idle time in [t0_ns, t1_ns) (its working span). */
void gw_idle_attribute(const struct gw_recording *rec, int gi, int64_t t0_ns, int64_t t1_ns,
                       struct gw_idle_attribution *out);
/* The bottleneck class (analysis/rule_registry.h id, or "unexplained") a cause is charged to. */
const char *gw_idle_cause_class(int cause);
/* The cause's JSON name: a Python activity's name, "host_running", "disk_io", "new_shape", "gpu_paced",
 * "host_no_kernel", "lock_wait", "helper_lock_wait", "unresolved", "unsampled". */
const char *gw_idle_cause_name(int cause);
const char *gw_worker_state_name(int state);
/* The cause as GW_PHRASE takes it: its name, a phrase id that
 * render/label_text.c words ("waiting for the next batch"). */
const char *gw_idle_cause_phrase(int cause);
/* The cause the samples charged the most idle time to, on the GPU of attr[0..ngpus) with the most idle time:
 * the thread's largest activity, never the stretches no sample could name (unresolved, unsampled). -1 when
 * none; *gpu_attr the GPU's attribution. */
int gw_idle_largest_cause(const struct gw_idle_attribution *attr, int ngpus,
                          const struct gw_idle_attribution **gpu_attr);
/* The py_frame of that id, or NULL. */
const struct gw_py_frame_info *gw_py_frame_find(const struct gw_recording *rec, int32_t id);

#endif
