#include "series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gpu_loop.h"
#include "analysis/kernel_stats.h"
#include "analysis/nccl_transport.h"
#include "analysis/sm_fill.h"
#include "analysis/stats.h"
#include "analysis/thresholds.h"
#include "store/store.h"
#include "store/store_load.h"

/* Two kinds of metric are read less often than every tick, and the ticks
 * between hold NULL:
 * - GPM metrics are windowed: a value stored at tick t is the average over the
 *   window since the previous GPM value (back-to-back windows), so each tick
 *   between lies inside the window closed by the NEXT value and takes it;
 * - point reads taken once a second (power, clocks, clock reasons, P-state,
 *   memory used; lib/sources/nvml.c) describe the moment they were read, so
 *   the ticks after one hold it until the next read (sample and hold).
 * A gap longer than 1.5 read periods (a lost read) stays unknown. */
enum fill_from { FILL_FROM_NEXT, FILL_FROM_PREVIOUS };

static void fill_sparse(const int64_t *t_ns, size_t n, double *x, enum fill_from from) {
  if (!x || n < 3)
    return;
  size_t nknown = 0, prev = SIZE_MAX, ngaps = 0;
  int64_t *gaps = gw_xcalloc(n, sizeof *gaps);
  for (size_t i = 0; i < n; i++)
    if (!isnan(x[i])) {
      nknown++;
      if (prev != SIZE_MAX)
        gaps[ngaps++] = t_ns[i] - t_ns[prev];
      prev = i;
    }
  if (ngaps < 2 || nknown * 3 > n * 2) { /* at most one NULL in three ticks: full rate */
    free(gaps);
    return;
  }
  double *g = gw_xcalloc(ngaps, sizeof *g);
  for (size_t k = 0; k < ngaps; k++)
    g[k] = (double)gaps[k];
  double period_ns = gw_stats_median(g, ngaps);
  free(g);
  free(gaps);
  size_t known = SIZE_MAX;
  for (size_t k = 0; k < n; k++) {
    size_t i = from == FILL_FROM_NEXT ? n - 1 - k : k;
    if (!isnan(x[i])) {
      known = i;
      continue;
    }
    if (known != SIZE_MAX && (double)llabs(t_ns[known] - t_ns[i]) < 1.5 * period_ns)
      x[i] = x[known];
  }
}

/* GPM activity inside its window, tick by tick. A window gives one average
 * A per metric over its ticks; GPU-Util, read at every tick, says in which
 * of them a kernel was resident at all. No SM, pipe or warp slot works while
 * no kernel is resident, so the window's activity sits on the resident
 * time: tick i gets A * u_i / mean(u) (SM and graphics activity at most
 * u_i, which never binds while A is at most the window's mean util), which
 * keeps the window's average, keeps the metrics' ratios to one another, and puts a stall's emptiness on the ticks the
 * stall filled. Held flat, a 0.25 s checkpoint inside a 1 s window read as every tick 28% idle (and as "underfilled"
 * where kernels ran), and the stall's idle time was charged to the training steps around it. A window with a tick of
 * unknown util keeps A throughout. */
static const enum gw_gpu_metric GPM_ACTIVITY[] = {GW_M_gr_active_pct,     GW_M_sm_active_pct, GW_M_sm_occupancy_pct,
                                                  GW_M_tensor_active_pct, GW_M_dram_bw_pct,   GW_M_fp32_active_pct,
                                                  GW_M_fp16_active_pct};

/* The metric's values as a plain array to write (the column unpacked until
 * pack_columns), NULL when not recorded. */
static double *plain(struct gw_gpu_series *g, enum gw_gpu_metric m) {
  return g->m[m] ? gw_column_unpack(g->m[m]) : NULL;
}

/* After fill_sparse: window_of[i] is the window of tick i (-1 none). */
static void shape_windows_by_util(struct gw_gpu_series *g, const int *window_of, size_t nwin) {
  const double *u = plain(g, GW_M_util_gpu_pct);
  double *usum = gw_xcalloc(nwin, sizeof *usum);
  size_t *ucount = gw_xcalloc(nwin, sizeof *ucount), *count = gw_xcalloc(nwin, sizeof *count);
  for (size_t i = 0; i < g->n; i++) {
    if (window_of[i] < 0)
      continue;
    count[window_of[i]]++;
    if (!isnan(u[i])) {
      usum[window_of[i]] += u[i];
      ucount[window_of[i]]++;
    }
  }
  const double *sm = plain(g, GW_M_sm_active_pct);
  for (size_t i = 0; i < g->n; i++) {
    int w = window_of[i];
    if (w < 0 || ucount[w] != count[w] || !(usum[w] > 0))
      continue;
    double mean_u = usum[w] / (double)ucount[w];
    /* SM activity above the window's mean GPU-Util (the two counters
     * sampled over different spans) cannot sit on the resident time alone:
     * that window keeps its average flat */
    if (sm[i] > mean_u)
      continue;
    double factor = u[i] / mean_u;
    for (size_t k = 0; k < sizeof GPM_ACTIVITY / sizeof GPM_ACTIVITY[0]; k++) {
      double *x = plain(g, GPM_ACTIVITY[k]);
      if (!x || isnan(x[i]))
        continue;
      double v = x[i] * factor;
      double cap = GPM_ACTIVITY[k] == GW_M_sm_active_pct || GPM_ACTIVITY[k] == GW_M_gr_active_pct ? u[i] : 100;
      x[i] = v < cap ? v : cap;
    }
  }
  free(usum);
  free(ucount);
  free(count);
}

/* Which GPM window each tick lies in: the window closed by the next reading
 * of SM activity (as fill_sparse's FILL_FROM_NEXT), -1 none. Call before
 * filling. Returns the number of windows. */
static size_t gpm_windows(struct gw_gpu_series *g, int *window_of) {
  const double *sm = plain(g, GW_M_sm_active_pct);
  size_t nwin = 0;
  int cur = -1;
  for (size_t k = 0; k < g->n; k++) {
    size_t i = g->n - 1 - k;
    if (!isnan(sm[i]))
      cur = (int)nwin++;
    window_of[i] = cur;
  }
  return nwin;
}

static void fill_sparse_metrics(struct gw_gpu_series *g) {
  static const enum gw_gpu_metric gpm[] = {
      GW_M_gr_active_pct, GW_M_sm_active_pct,   GW_M_sm_occupancy_pct, GW_M_tensor_active_pct,
      GW_M_dram_bw_pct,   GW_M_fp32_active_pct, GW_M_fp16_active_pct,  GW_M_pcie_rx_bps,
      GW_M_pcie_tx_bps,   GW_M_nvlink_rx_bps,   GW_M_nvlink_tx_bps,
  };
  static const enum gw_gpu_metric once_a_second[] = {
      GW_M_power_mw, GW_M_pstate, GW_M_sm_clock_mhz, GW_M_mem_clock_mhz, GW_M_clock_reasons, GW_M_mem_used_bytes,
  };
  int *window_of = NULL;
  size_t nwin = 0;
  if (g->m[GW_M_sm_active_pct] && g->m[GW_M_util_gpu_pct] && g->n > 0) {
    window_of = gw_xcalloc(g->n, sizeof *window_of);
    nwin = gpm_windows(g, window_of);
  }
  for (size_t k = 0; k < sizeof gpm / sizeof gpm[0]; k++)
    fill_sparse(g->t_ns, g->n, plain(g, gpm[k]), FILL_FROM_NEXT);
  /* only where the readings were sparse and filled: a reading at every tick is its own window */
  if (window_of && nwin * 3 < g->n)
    shape_windows_by_util(g, window_of, nwin);
  free(window_of);
  for (size_t k = 0; k < sizeof once_a_second / sizeof once_a_second[0]; k++)
    fill_sparse(g->t_ns, g->n, plain(g, once_a_second[k]), FILL_FROM_PREVIOUS);
}

/* Each GPU's samples as the loader reads them (store_load.h): filled, then
 * packed before the next GPU's are read. */
static void fill_and_pack(struct gw_gpu_series *g) {
  fill_sparse_metrics(g);
  for (int m = 0; m < GW_GPU_NMETRICS; m++)
    gw_column_pack(g->m[m]);
}

/* Sampled trace: the gap classification of a full timeline, inside the
 * windows only. */
static void window_gaps(const struct gw_recording *rec, int gi, const struct gw_time_range *win, size_t nwin) {
  struct gw_gpu_series *g = &rec->gpus[gi];
  struct gw_interval *w = gw_xcalloc(nwin + 1, sizeof *w);
  for (size_t i = 0; i < nwin; i++)
    w[i] = (struct gw_interval){win[i].start_ns, win[i].end_ns};
  struct gw_timeline_input in = gw_series_timeline_input(g);
  struct gw_data_waits waits;
  gw_data_waits_for_gpu(rec, gi, &waits);
  in.waits = waits.iv;
  in.nwaits = waits.n;
  struct gw_gap_split sp;
  int64_t span = gw_timeline_split_windows(&in, w, nwin, &sp);
  gw_data_waits_free(&waits);
  free(w);
  struct gw_kernel_stats *k = g->kstats;
  if (span <= 0)
    return;
  double d = (double)span;
  k->window_span_s = d / 1e9;
  k->window_busy_share = (double)sp.busy_ns / d;
  k->window_launch_share = (double)sp.idle_launch_ns / d;
  k->window_sync_share = (double)sp.idle_sync_ns / d;
  k->window_input_share = (double)sp.idle_input_ns / d;
  k->window_comm_share = (double)sp.comm_ns / d;
  k->window_other_share = (double)sp.idle_other_ns / d;
  k->window_sync_seen = g->nsyncs > 0;
}

/* The metrics that neither the analysis nor a report's renderers (text, json, md, html, perfetto, compare) read:
 * not kept in the model, whose memory a long multi-GPU run would otherwise fill with them (a day at 10 Hz on 8
 * GPUs: 55 MB a fast metric). gr_active_pct is shaped with the other GPM activities (shape_windows_by_util) but
 * no one reads it after; the exporter (lib/serve) shows every metric and keeps them all. */
static const enum gw_gpu_metric UNREAD_BY_REPORT[] = {
    GW_M_util_mem_pct,       GW_M_gr_active_pct,
    GW_M_nvlink_rx_bps,      GW_M_nvlink_tx_bps,
    GW_M_mem_clock_mhz,      GW_M_energy_mj,
    GW_M_temp_gpu_c,         GW_M_temp_mem_c,
    GW_M_pcie_replay,        GW_M_viol_power_cap_ns,
    GW_M_viol_sync_boost_ns, GW_M_viol_sw_thermal_ns,
    GW_M_viol_hw_thermal_ns, GW_M_viol_hw_power_brake_ns,
    GW_M_ecc_sbe_volatile,   GW_M_remapped_cor,
    GW_M_remapped_unc,
};

static gw_status load_file(const char *path, int every_metric, struct gw_recording **out, struct gw_err *err);
static gw_status load_store(struct gw_store *st, int every_metric, struct gw_recording **out, struct gw_err *err);

gw_status gw_recording_load(const char *path, struct gw_recording **out, struct gw_err *err) {
  return load_file(path, 0, out, err);
}

gw_status gw_recording_load_every_metric(const char *path, struct gw_recording **out, struct gw_err *err) {
  return load_file(path, 1, out, err);
}

static gw_status load_file(const char *path, int every_metric, struct gw_recording **out, struct gw_err *err) {
  *out = NULL;
  struct gw_store *st = NULL;
  gw_status rc = gw_store_open(&st, path, 1, err);
  if (rc)
    return rc;
  rc = load_store(st, every_metric, out, err);
  if (rc) {
    gw_store_close(st);
    return rc;
  }
  (*out)->store = st; /* kept: the outputs read the run's facts and the trace through it */
  return GW_OK;
}

gw_status gw_recording_load_store(struct gw_store *st, struct gw_recording **out, struct gw_err *err) {
  return load_store(st, 0, out, err);
}

static gw_status load_store(struct gw_store *st, int every_metric, struct gw_recording **out, struct gw_err *err) {
  *out = NULL;
  struct gw_store_load_params params = {.worker_saturated_cpu_pct = gw_thr.worker_saturated_cpu_pct,
                                        .worker_min_avg_cpu_pct = gw_thr.worker_min_avg_cpu_pct,
                                        .gpu_loaded = fill_and_pack};
  for (size_t k = 0; !every_metric && k < sizeof UNREAD_BY_REPORT / sizeof UNREAD_BY_REPORT[0]; k++)
    params.unkept_metrics |= (uint64_t)1 << UNREAD_BY_REPORT[k];
  struct gw_recording *rec = NULL;
  gw_status rc;
  if ((rc = gw_store_load_recording(st, &params, &rec, err)))
    return rc;
  gw_sm_fill(st, rec);
  gw_kernel_stats_read(st, rec);
  if (rec->timeline_sampled) {
    struct gw_time_range *win = gw_xcalloc(rec->nwindows + 1, sizeof *win);
    for (int i = 0; i < rec->ngpus; i++) {
      struct gw_gpu_series *g = &rec->gpus[i];
      if (g->kstats->nkernels > 0)
        window_gaps(rec, i, win, gw_kstats_gpu_windows(rec, g, win));
    }
    free(win);
  }
  rec->nccl = gw_xcalloc(1, sizeof *rec->nccl);
  /* a damaged nccl_log costs the transport section, not the report */
  struct gw_err nccl_err;
  if (gw_nccl_read(st, rec->nccl, &nccl_err) != GW_OK)
    gw_nccl_summary_init(rec->nccl);
  /* a table the kernel statistics or SM fill could not read to its end is damage, not a shorter run */
  if (gw_store_damage(st)) {
    gw_err_set(err, "%s: damaged recording: %s", gw_store_path(st), gw_store_damage(st));
    gw_recording_free(rec);
    return GW_EINPUT;
  }
  *out = rec;
  return GW_OK;
}

static size_t index_at(const int64_t *t, size_t n, int64_t t_ns) {
  if (n == 0)
    return SIZE_MAX;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t[mid] <= t_ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == 0 ? 0 : lo - 1;
}

size_t gw_host_index_at(const struct gw_host_series *h, int64_t t_ns) {
  /* A host sample holds rates over the interval that ends at its t_ns, so the
   * state at t_ns is the first sample at or after it. */
  if (h->n == 0)
    return SIZE_MAX;
  size_t lo = gw_first_at_or_after(h->t_ns, h->n, t_ns);
  return lo < h->n ? lo : h->n - 1;
}
size_t gw_health_index_at(const struct gw_gpu_series *g, int64_t t_ns) {
  return index_at(g->ht_ns, g->nh, t_ns);
}

int gw_workers_saturated_at(const struct gw_host_series *h, size_t j) {
  double sat = h->workers_saturated[j], nw = h->workers[j];
  /* a pool with half its workers waiting has capacity to spare */
  return !isnan(sat) && sat >= 1 && (isnan(nw) || 2 * sat >= nw);
}

int gw_launching_saturated_at(const struct gw_host_series *h, size_t j) {
  double launch = h->launch_cpu_pct ? h->launch_cpu_pct[j] : NAN;
  double cpu = isnan(launch) ? h->main_cpu_pct[j] : launch;
  return !isnan(cpu) && cpu >= gw_thr.main_saturated_cpu_pct;
}

int gw_main_not_launching_at(const struct gw_host_series *h, size_t j) {
  double launch = h->launch_cpu_pct ? h->launch_cpu_pct[j] : NAN;
  double main_thread = h->main_thread_cpu_pct ? h->main_thread_cpu_pct[j] : NAN;
  if (isnan(launch) || isnan(main_thread) || main_thread < gw_thr.main_saturated_cpu_pct)
    return 0;
  return main_thread > gw_thr.main_per_backward_max * fmax(0, launch - main_thread);
}

double gw_main_per_backward_cpu(const struct gw_host_series *h, size_t a, size_t b) {
  if (!h->launch_cpu_pct || !h->main_thread_cpu_pct)
    return NAN;
  double main_sum = 0, backward_sum = 0;
  size_t n = 0;
  for (size_t i = a; i < b && i < h->n; i++) {
    double launch = h->launch_cpu_pct[i], main_thread = h->main_thread_cpu_pct[i];
    if (isnan(launch) || isnan(main_thread))
      continue;
    main_sum += main_thread;
    backward_sum += fmax(0, launch - main_thread);
    n++;
  }
  if (!n)
    return NAN;
  return backward_sum > 0 ? main_sum / backward_sum : main_sum > 0 ? INFINITY : NAN;
}

size_t gw_metric_count(const struct gw_gpu_series *g, enum gw_gpu_metric m, size_t from, size_t n) {
  size_t k = 0;
  for (size_t i = from; g->m[m] && i < from + n; i++)
    k += !isnan(gw_column_at(g->m[m], i));
  return k;
}

double gw_metric_quantile(const struct gw_gpu_series *g, enum gw_gpu_metric m, size_t from, size_t n, double q) {
  double *v = gw_column_range(g->m[m], from, n);
  if (!v)
    return NAN;
  double r = gw_stats_quantile(v, n, q);
  free(v);
  return r;
}

double gw_metric_median(const struct gw_gpu_series *g, enum gw_gpu_metric m, size_t from, size_t n) {
  return gw_metric_quantile(g, m, from, n, 0.5);
}

size_t gw_series_nearest_tick(const struct gw_gpu_series *g, int64_t t_ns) {
  size_t lo = 0, hi = g->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->t_ns[mid] < t_ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == g->n)
    return g->n ? g->n - 1 : SIZE_MAX;
  if (lo > 0 && t_ns - g->t_ns[lo - 1] < g->t_ns[lo] - t_ns)
    return lo - 1;
  return lo;
}

struct gw_timeline_input gw_series_timeline_input(const struct gw_gpu_series *g) {
  struct gw_timeline_input in = {.compute = g->kernels,
                                 .ncompute = g->nkernels,
                                 .nccl = g->nccl,
                                 .nnccl = g->nnccl,
                                 .h2d = g->h2d,
                                 .nh2d = g->nh2d,
                                 .other_copies = g->copies,
                                 .nother = g->ncopies,
                                 .api = g->api,
                                 .napi = g->napi,
                                 .syncs = g->syncs,
                                 .nsyncs = g->nsyncs,
                                 .launch_gap_max_ns = (int64_t)gw_thr.launch_gap_max_ns,
                                 .host_quiet_max_ns = (int64_t)gw_thr.host_quiet_max_ns,
                                 .sync_slack_ns = (int64_t)gw_thr.sync_slack_ns};
  gw_timeline_work_span(&in, &in.t0, &in.t1);
  return in;
}
