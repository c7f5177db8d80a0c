/* Steps decomposed: each steady step of the run's loop (the hook's step
 * table, one process: gw_step_process_pick) split into its wait for data,
 * the training thread's host time by activity (the Python stack samples
 * inside it), the GPU's busy time inside it with its SM fill, and its sync
 * time; the slow steps that recur every N steps (periodic work: checkpoint,
 * eval, logging) with what the thread did in them; and how much of the step
 * time's spread follows the input shape (dynamic shapes). */
#ifndef GW_ANALYSIS_STEP_BREAKDOWN_H
#define GW_ANALYSIS_STEP_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "core/activity.h"
#include "store/store_model.h"

/* A step must span this many periods of a sampler for that sampler to split
 * it: with fewer, one sample more or less moves a share by a quarter or more
 * (the rule: a step shorter than four sample periods has no spread
 * from sampled counters). Shorter steps are split only in aggregate, summing
 * the samples over many steps of one kind. */
#define GW_STEP_MIN_SAMPLE_PERIODS 4

/* Slow steps are those above median + k * MAD of the steady step times, k
 * = 5. Timer, launch and clock jitter of a steady loop is close to normal
 * around its median, where MAD = 0.674 sigma: 5 MAD is 3.4 sigma, crossed by
 * plain jitter about once in 3000 steps, so a loop of a few thousand steps
 * has at most a stray one or two (too few to recur at one spacing), while
 * the periodic work this looks for (a checkpoint, an eval pass, a flushed
 * log) adds whole milliseconds to seconds to its step. */
#define GW_SLOW_STEP_MADS 5.0
/* The MAD is floored at 1% of the median: a synthetic or very even loop has
 * a MAD of 0 and every step a hair above the median would be "slow"; 1% is
 * below the run-to-run noise of any measured loop (about 10% on the H200,
 * thresholds.c step_jitter_cv) and above the timer's resolution. */
#define GW_SLOW_STEP_MAD_FLOOR_FRAC 0.01
/* Slow steps recur at spacing N when each has a slow partner N +- tol steps
 * away, tol = 5% of N (at least one step): periodic work scheduled by time
 * ("every 1.5 s") instead of by step count drifts with the step times' own
 * spread (a few %), and a spread of the spacings above 5% of N is not one
 * schedule. At least 3 such steps (two spacings), and at least half of the
 * occurrences the steady span holds at that spacing (stray slow steps never
 * reach that). */
#define GW_RECUR_TOL_FRAC 0.05
#define GW_RECUR_MIN_COUNT 3
/* A recurrence is reported when its steps' time above the median is at
 * least 2% of the steady steps' time: removing less changes the loop's rate
 * by less than a comparison of two runs calls a change (compare's
 * GW_PRACTICAL_CHANGE, 2%: run-to-run noise). */
#define GW_RECUR_MIN_SHARE 0.02

/* The share of the step time's variance that the input shape explains (the
 * correlation ratio eta^2, between-shape over total) above which the steps
 * follow their shape: more than half of the spread then goes with the
 * shape, more than all other causes together, so padding or bucketing to a
 * few shapes is the fix that removes most of it. Only where the spread
 * matters at all (CV at or above thresholds.c step_jitter_cv). */
#define GW_SHAPE_EXPLAINED_MIN 0.5

/* Slow steps that recur every few steps are the rhythm of batches fetched
 * in parallel, not of work on a schedule, when both hold:
 * - the period is at most this many steps: a loader keeps its fetchers'
 *   batches ready (a DataLoader's workers times its prefetch factor of 2, a
 *   thread pool's size, 2 to 16 at most on a host's cores), so the loop
 *   runs through them and waits once per round; an evaluation, checkpoint
 *   or logging schedule amortizes its stall over tens to thousands of steps;
 * - each occurrence costs more than the steps between two of them: fetchers
 *   whose latency exceeds a round of steps make the loop wait that excess
 *   every round, while scheduled work that cost more than the training
 *   around it would be most of the run (a logging sync every few steps
 *   drains a queue no longer than those steps). */
#define GW_FETCH_RHYTHM_MAX_STEPS 16

/* Slow steps that recur with the GPU busy through at least this share of
 * their time stalled nothing: a loop that does not wait for the GPU each
 * step runs ahead until CUDA's launch queue is full and then blocks in one
 * step of every few while the queued work runs (an MLP on an H100: every
 * 11th step, the GPU busy 97% of them). A stall of scheduled work or a
 * wait for data idles the GPU for most of the step's excess (45-74% idle in
 * the recurrences of the H100 and H200 fixtures); the 10% left is the GPU
 * samples' resolution over steps a few of their periods long. */
#define GW_QUEUE_PACED_BUSY_FRAC 0.9

/* Host rows (one a second) inside the steady steps needed to measure the
 * launching threads' CPU over them: three seconds hold three whole rows,
 * where one or two still carry the loop's start or end. */
#define GW_LAUNCH_CPU_MIN_ROWS 3

enum { GW_STEP_KIND_TYPICAL, GW_STEP_KIND_SLOW, GW_STEP_NKINDS };

/* The mean step of one kind, split; NAN unknown (no samples, no hook field). */
struct gw_step_split {
  size_t nsteps;
  double wall_s, data_wait_s;
  size_t nsamples;                /* Python stack samples inside these steps */
  double host_s[GW_PYACT_COUNT];  /* per activity, samples x 1/hz over nsteps; NAN without samples */
  double gpu_busy_s, sm_fill_pct; /* SM activity while busy, in % of the busy time; NAN without SM activity */
  double sync_s;                  /* traced synchronising calls, else the samples' sync activity */
  int host_per_step;              /* the steps span GW_STEP_MIN_SAMPLE_PERIODS of the Python sampler */
  int gpu_per_step;               /* ... of the GPU samples, or the GPU was traced */
};

struct gw_step_breakdown {
  int found;                    /* the recording has steps (hook or NVTX): everything below is set */
  int64_t pid;                  /* the process whose steps are used; -1 every step */
  int gpu;                      /* the GPU its steps ran on (report number); -1 unknown */
  size_t nsteady, first_steady; /* steady steps, after the loop's first (warm-up) and MSER's cut */
  double step_median_s, step_mad_s, slow_threshold_s;
  double py_hz;        /* the Python sampler's rate, 0 none */
  double gpu_period_s; /* the GPU samples' period; 0 with a kernel trace */
  int gpu_from_trace;
  struct gw_step_split kinds[GW_STEP_NKINDS]; /* typical: steady steps not in the recurring slow set */
  /* slow steps that recur every period_steps steps */
  size_t nslow; /* steady steps above the threshold */
  int recurring;
  int period_steps;
  double period_spread_steps; /* MAD of the spacings between recurring steps */
  double period_s;            /* period_steps x the median step */
  int count;                  /* recurring slow steps */
  double extra_s;             /* their time above the median step, summed */
  int activity;               /* what the thread did in them beyond a typical step: enum gw_py_activity; -1 unknown */
  double activity_extra_s;    /* per slow step, above a typical step */
  char frame_text[96];        /* the top user frame of that activity in them, "" none */
  int fetch_rhythm;           /* the recurrence is a parallel loader's round (GW_FETCH_RHYTHM_MAX_STEPS) */
  /* slow steps recurred every period_steps steps, count times, but the GPU
   * stayed busy through them (GW_QUEUE_PACED_BUSY_FRAC): the host blocked
   * on CUDA's full launch queue, no stall; recurring is then 0 and
   * queue_busy_frac their GPU-busy share */
  int queue_paced;
  double queue_busy_frac;
  /* the process's launching threads (main + autograd) on CPU over the steady
   * steps, in cores (1 = one core all the time), from the host rows whose
   * second lies inside them; NAN where fewer than GW_LAUNCH_CPU_MIN_ROWS
   * rows did or the recording has no per-thread CPU */
  double launch_cpu_cores;
  /* step time against the input shape */
  int shape_known, nshapes;
  double shape_explained; /* eta^2, 0..1; NAN unknown */
  double shape_corr;      /* Pearson correlation of step time with the shape's element count; NAN unknown */
  double step_cv;
  int follows_shape; /* eta^2 and the spread above their thresholds */
};

/* part_s (a part of the typical step: its data_wait_s or sync_s) over the
 * typical step's wall time; NAN without steps or where either is unknown. */
double gw_step_typical_share(const struct gw_step_breakdown *b, double part_s);

/* Fills out from rec; found 0 when the recording has no steps. */
void gw_step_breakdown(const struct gw_recording *rec, struct gw_step_breakdown *out);

/* One step split on its own: 1 when every sampler resolves it, 0 when it
 * is shorter than GW_STEP_MIN_SAMPLE_PERIODS of a sampler (its host or GPU
 * split is then NAN: "not measurable in this recording"). */
int gw_step_split_one(const struct gw_recording *rec, const struct gw_step_row *s, struct gw_step_split *out);

#endif
