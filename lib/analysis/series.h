/* A recording as the analysis reads it: the store's model
 * (store/store_model.h, loaded by lib/store/store_load.c) completed by what
 * the analysis derives from the trace tables, which it streams through the
 * store's iterators (store/store_iter.h): SM activity estimated from launch
 * configurations (sm_fill.c), each GPU's kernel statistics
 * (kernel_stats.c), NCCL's account of its transports (nccl_transport.c).
 * No SQL here: the store alone knows the schema. */
#ifndef GW_SERIES_H
#define GW_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/kernel_stats.h"
#include "analysis/timeline.h"
#include "core/sample.h"
#include "core/util.h"
#include "store/store_model.h"

/* The index of g's sample nearest to t_ns (SIZE_MAX when g has none). */
size_t gw_series_nearest_tick(const struct gw_gpu_series *g, int64_t t_ns);

/* 1 when at least half of the loader workers (and one at least) are
 * saturated at host tick j: the pool has no spare capacity. */
int gw_workers_saturated_at(const struct gw_host_series *h, size_t j);
/* 1 when the threads that launch kernels kept a core busy at host tick j:
 * main + autograd's threads where the recorder measured them, else the
 * target process standing in for them; 0 where neither is known. */
int gw_launching_saturated_at(const struct gw_host_series *h, size_t j);
/* 1 when at host tick j the main thread kept a core busy with more than
 * gw_thr.main_per_backward_max times the CPU of the autograd threads that
 * launch the backward (thresholds.c says why that is not launching); 0 where
 * either is unknown (no autograd thread seen). */
int gw_main_not_launching_at(const struct gw_host_series *h, size_t j);
/* The main thread's CPU over that of the autograd threads that launch the
 * backward, summed over host ticks [a, b): NAN where no tick measured both,
 * INFINITY where the autograd threads never ran and the main thread did. */
double gw_main_per_backward_cpu(const struct gw_host_series *h, size_t a, size_t b);

/* Load a recording file (opened read-only, once): the store's model, sparse
 * metrics filled between their reads, then the derived parts above. Free
 * with gw_recording_free (store/store_model.h). */
GW_NODISCARD gw_status gw_recording_load(const char *path, struct gw_recording **out, struct gw_err *err);
/* The same keeping every GPU metric the file holds (the exporter shows them all): gw_recording_load leaves out
 * those no report reads (series.c lists them), whose arrays stay NULL. */
GW_NODISCARD gw_status gw_recording_load_every_metric(const char *path, struct gw_recording **out, struct gw_err *err);
/* The same from a store already open read-only (gw_store_open_buffer for a
 * recording in memory); the store stays open. */
struct gw_store;
GW_NODISCARD gw_status gw_recording_load_store(struct gw_store *st, struct gw_recording **out, struct gw_err *err);

/* Statistics (analysis/stats.h) of metric m of g over ticks [from, from + n): 0 or NAN when g does not hold it. */
size_t gw_metric_count(const struct gw_gpu_series *g, enum gw_gpu_metric m, size_t from, size_t n);
double gw_metric_quantile(const struct gw_gpu_series *g, enum gw_gpu_metric m, size_t from, size_t n, double q);
double gw_metric_median(const struct gw_gpu_series *g, enum gw_gpu_metric m, size_t from, size_t n);

/* Index of the host tick whose interval covers t_ns (the first at or after
 * it; the last when t_ns is later than all); SIZE_MAX when there are none. */
size_t gw_host_index_at(const struct gw_host_series *h, int64_t t_ns);
/* Index of the last health tick at or before t_ns (the first when t_ns precedes all). */
size_t gw_health_index_at(const struct gw_gpu_series *g, int64_t t_ns);

/* The GPU's traced lists as the timeline's input (pointing at g's lists,
 * which gw_timeline_split would merge in place), its work span and the
 * thresholds of gw_thr. */
struct gw_timeline_input gw_series_timeline_input(const struct gw_gpu_series *g);

#endif
