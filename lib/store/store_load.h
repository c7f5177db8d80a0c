/* The one loader: a recording file read once into the model of
 * store/store_model.h. It reads what the schema holds and judges nothing,
 * with one exception kept in SQL for speed: which descendant processes count
 * as data-loader workers and which of them are saturated, by thresholds the
 * caller passes (the analysis's, lib/analysis/thresholds.c). What the
 * analysis derives from the trace tables (SM activity, kernel statistics,
 * NCCL transports) it computes itself from the iterators of store_iter.h. */
#ifndef GW_STORE_LOAD_H
#define GW_STORE_LOAD_H

#include <stdint.h>

#include "core/util.h"
#include "store/store_model.h"

struct gw_store;

struct gw_store_load_params {
  double worker_saturated_cpu_pct; /* a worker at or above this share of a core is saturated */
  double worker_min_avg_cpu_pct;   /* a descendant below this average is no worker (an idle pool) */
  /* bit (1 << enum gw_gpu_metric) set: the metric's column is read and checked as the others (text in it is
   * damage) but not kept, its array stays NULL; 0 keeps every metric. A day at 10 Hz on 8 GPUs is 7 million
   * ticks: each metric kept costs 55 MB. */
  uint64_t unkept_metrics;
  /* called once each GPU's samples are read, before the next GPU's (NULL: none): the analysis fills and packs its
   * columns there, so that no more than one GPU's are held as plain doubles */
  void (*gpu_loaded)(struct gw_gpu_series *g);
};

/* Read the recording open in st into a new model (*out, free with
 * gw_recording_free). Fails with a message when a table every recording has
 * cannot be read; an optional table (tracer, gpu_proc, nccl_log) that is
 * absent or damaged leaves its part empty. */
GW_NODISCARD gw_status gw_store_load_recording(struct gw_store *st, const struct gw_store_load_params *p,
                                               struct gw_recording **out, struct gw_err *err);

#endif
