/* One run reduced to what a comparison needs: per-step times, throughput,
 * means of SM activity, GPU-Util and power, the ledger and the findings of
 * the report, and the run's facts. Built from a recording (with the
 * program's ground-truth file beside it when there is one) or from a saved
 * baseline. */
#ifndef GW_COMPARE_RUN_SUMMARY_H
#define GW_COMPARE_RUN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/diagnosis.h"
#include "compare/run_setup.h"

struct gw_run_summary;

enum gw_step_source {
  GW_STEPS_NONE,     /* no step times */
  GW_STEPS_TABLE,    /* the recording's step table */
  GW_STEPS_LOG,      /* the program's own step log: NAME.truth.json beside the recording */
  GW_STEPS_ACTIVITY, /* estimated from the rhythm of SM activity (coarse: one sample per tick) */
};
const char *gw_step_source_id(enum gw_step_source s);
/* Words for people: "the program's step log (x.truth.json)", in English
 * (translate 0, for JSON) or in the language of the messages. */
void gw_step_source_describe(const struct gw_run_summary *s, int translate, char *buf, size_t cap);

struct gw_finding_brief {
  char class_id[32];
  double share_of_lost, confidence;
};

struct gw_run_summary {
  char path[1024];
  char name[256]; /* file name without folder and extension */
  int from_baseline;
  enum gw_step_source step_source;
  char step_log[320]; /* file name of the step log for GW_STEPS_LOG */
  size_t nsteps;
  double *step_s; /* per-step time in seconds: a step's start to the next one's (see docs/compare.md) */
  double step_median_s, step_p90_s, step_p90_over_p50, step_cv;
  double steps_per_s;      /* 1 / mean step time; NAN without steps */
  double samples_per_step; /* NAN unknown */
  char samples_per_step_from[320];
  double samples_per_s;       /* NAN unknown */
  int samples_per_s_reported; /* 1: the program's own figure, not derived from step times */
  double window_s;            /* span the means below cover: the steps, else the GPU's working span */
  double sm_mean_pct, util_mean_pct, power_mean_w;
  double mem_used_peak_bytes, mem_total_bytes;
  /* Model FLOPs utilisation of the job (analysis/mfu.h): the counted GPUs'
   * achieved FLOP/s over the sum of their dense peaks, in %; NAN when no GPU
   * has a counted step or its model is not in the peak table. */
  double mfu_pct;
  double achieved_tflops; /* summed over the GPUs with a counted step; NAN none */
  int mfu_gpus;           /* GPUs the two figures above cover */
  int sm_from_util;       /* SM activity missing: GPU-Util stood in for it in the ledger */
  int has_gpu_data;
  int ledger_estimated;
  double active_s;
  double ledger_share[GW_LEDGER_NROWS]; /* share of active time; NAN when the row is not measured (and for startup) */
  double lost_share;                    /* of active time */
  char verdict[32];
  int nfindings;
  struct gw_finding_brief findings[GW_MAX_FINDINGS];
  char sweep_param[64], sweep_value[64]; /* meta keys written by gpuwhy sweep, "" otherwise */
  struct gw_run_setup setup;
};

/* Unknowns as NAN, the name from path: the start of every summary. */
void gw_run_summary_init(struct gw_run_summary *s, const char *path);
struct gw_recording;
/* The first part of gw_run_summary_load (compare/run_load.h) for a
 * recording loaded from the file at path: s initialised, the run's setup and
 * meta read through the recording's own connection (rec->store). */
GW_NODISCARD gw_status gw_run_summary_begin(const struct gw_recording *rec, const char *path, struct gw_run_summary *s,
                                            struct gw_err *err);
/* The part after the recording at path is loaded: the steps (the step
 * table, the truth file beside path, or GPU activity), the GPU means and the
 * diagnosis, into s as gw_run_summary_begin left it. On failure s keeps what
 * it owned (the caller frees it). For a reader that holds the recording
 * already: the truth-file fuzzer loads it once. */
struct gw_recording;
GW_NODISCARD gw_status gw_run_summary_from_recording(const struct gw_recording *rec, const char *path,
                                                     struct gw_run_summary *s, struct gw_err *err);
void gw_run_summary_free(struct gw_run_summary *s);

/* Fill the step statistics (median, p90, dispersion, steps/s, samples/s)
 * from s->step_s; used after loading and by tests. */
void gw_run_summary_step_stats(struct gw_run_summary *s);

/* Per-step times from marked steps: each step lasts from its start to the
 * next step's start (so pauses between steps count), the last one its own
 * duration; steps that overlap their successor count their own duration.
 * start/end are sorted by start here. Returns the count written to out_s. */
size_t gw_step_times_from_marks(int64_t *start_ns, int64_t *end_ns, size_t n, double *out_s);

/* Throughput in samples/s when samples_per_step is known, else steps/s. */
double gw_run_throughput(const struct gw_run_summary *s, int per_sample);

#endif
