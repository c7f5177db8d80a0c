#include "sm_fill.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_iter.h"
#include "store/store_setup.h"
#include "store/store_model.h"

/* Allocation granularities of the occupancy calculator for compute
 * capability 7.0 to 9.0 (CUDA C Programming Guide, "Compute Capabilities"
 * table, and the occupancy calculator's per-architecture constants):
 * registers are handed out per warp in units of 256; warps in groups of 4,
 * one per SM sub-partition; shared memory in 128-byte units, and from 8.0 on
 * the system keeps 1 KiB of shared memory per resident block. */
#define REG_ALLOC_UNIT 256
#define WARP_ALLOC_GRANULARITY 4
#define SHMEM_ALLOC_UNIT_BYTES 128
#define SHMEM_RESERVED_PER_BLOCK_BYTES 1024

static int64_t round_up(int64_t v, int64_t unit) {
  return (v + unit - 1) / unit * unit;
}

static int limits_usable(const struct gw_sm_limits *lim) {
  return lim->sm_count > 0 && lim->max_warps_per_sm > 0 && lim->max_blocks_per_sm > 0 && lim->max_regs_per_sm > 0 &&
         lim->max_shmem_per_sm_bytes > 0 && lim->threads_per_warp > 0;
}

struct gw_occupancy gw_occupancy_of(const struct gw_sm_limits *lim, const struct gw_launch_config *cfg) {
  struct gw_occupancy o = {.limiter = GW_OCC_LIMIT_INVALID};
  if (!limits_usable(lim) || cfg->blocks <= 0 || cfg->threads_per_block <= 0 || cfg->regs_per_thread < 0 ||
      cfg->shmem_bytes < 0)
    return o;
  int64_t warps_per_block = (cfg->threads_per_block + lim->threads_per_warp - 1) / lim->threads_per_warp;

  int64_t by_blocks = lim->max_blocks_per_sm;
  int64_t by_warps = lim->max_warps_per_sm / warps_per_block;
  int64_t by_regs = INT64_MAX;
  if (cfg->regs_per_thread > 0) {
    int64_t regs_per_warp = round_up((int64_t)cfg->regs_per_thread * lim->threads_per_warp, REG_ALLOC_UNIT);
    int64_t warps = lim->max_regs_per_sm / regs_per_warp;
    warps -= warps % WARP_ALLOC_GRANULARITY;
    by_regs = warps / warps_per_block;
  }
  int64_t by_shmem = INT64_MAX;
  if (cfg->shmem_bytes > 0) {
    int64_t reserved = lim->cc_major >= 8 ? SHMEM_RESERVED_PER_BLOCK_BYTES : 0;
    int64_t per_block = round_up(cfg->shmem_bytes + reserved, SHMEM_ALLOC_UNIT_BYTES);
    by_shmem = lim->max_shmem_per_sm_bytes / per_block;
  }
  int64_t r = by_blocks;
  o.limiter = GW_OCC_LIMIT_BLOCKS;
  if (by_warps < r)
    r = by_warps, o.limiter = GW_OCC_LIMIT_WARPS;
  if (by_regs < r)
    r = by_regs, o.limiter = GW_OCC_LIMIT_REGS;
  if (by_shmem < r)
    r = by_shmem, o.limiter = GW_OCC_LIMIT_SHMEM;
  if (r <= 0) {
    /* The kernel ran, so one block fitted: our limits are off (a carve-out or
     * allocation rule this model does not know). Count one block per SM. */
    r = 1;
    o.limiter = GW_OCC_LIMIT_INVALID;
  }
  o.blocks_per_sm = (int)r;
  o.occupancy_pct = 100.0 * (double)(r * warps_per_block) / lim->max_warps_per_sm;
  if (o.occupancy_pct > 100.0)
    o.occupancy_pct = 100.0;

  /* SM activity, as GPM counts it: the share of SM cycles with at least one
   * warp resident. The block scheduler hands blocks to SMs breadth-first, so
   * a grid of B blocks with B <= S (SMs) keeps exactly B SMs busy, and a grid
   * that fills the GPU keeps all S busy for each full wave of S x R blocks.
   * The last, partial wave of rem blocks holds min(S, rem) SMs. With the
   * waves taking equal time (blocks of one kernel do the same work), the
   * time-averaged share is (full waves + min(1, rem / S)) / all waves.
   * What this cannot see: blocks of uneven length (the tail of the last wave
   * drains SM by SM, so the estimate is high there), kernels whose blocks
   * leave before the kernel ends, and the launch gaps inside one kernel; all
   * of them make the estimate an upper bound of GPM's figure. */
  double S = lim->sm_count, per_wave = S * (double)r, B = (double)cfg->blocks;
  o.waves = B / per_wave;
  double full = floor(o.waves), rem = B - full * per_wave;
  double nwaves = full + (rem > 0 ? 1 : 0);
  double last = rem > 0 ? fmin(1.0, rem / S) : 0.0;
  o.sm_active_share = (full + last) / nwaves;
  /* Resident warps against S x max warps, time-averaged over the waves:
   * every block is resident for one wave, so B x warps per block over
   * (waves x S x max warps). Warps that finish early make it high too. */
  o.warp_occupancy_share = B * (double)warps_per_block / (nwaves * S * lim->max_warps_per_sm);
  if (o.warp_occupancy_share > 1.0)
    o.warp_occupancy_share = 1.0;
  return o;
}

const char *gw_sm_activity_source_name(enum gw_sm_activity_source s) {
  switch (s) {
  case GW_SM_SOURCE_GPM:
    return "gpm";
  case GW_SM_SOURCE_PM_SAMPLING:
    return "pm_sampling";
  case GW_SM_SOURCE_DCGM:
    return "dcgm";
  case GW_SM_SOURCE_LAUNCH_CONFIG:
    return "launch_config";
  case GW_SM_SOURCE_NONE:
  default:
    return "none";
  }
}

/* ---- per-tick estimate from a recording ------------------------------------ */

struct span {
  int64_t a, b;
};

static int span_cmp(const void *x, const void *y) {
  const struct span *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* The traced spans (trace_window), merged; NULL/0 when the table is absent. */
static struct span *load_windows_merged(struct gw_store *st, size_t *n) {
  *n = 0;
  struct gw_store_iter *it = gw_store_iter_trace_windows(st);
  if (!it)
    return NULL;
  struct span *w = NULL;
  size_t cap = 0;
  struct gw_store_span_row row;
  while (gw_store_next_span(it, &row)) {
    if (*n == cap) {
      cap = cap ? cap * 2 : 64;
      w = gw_xrealloc(w, cap * sizeof *w);
    }
    w[*n].a = row.start_ns;
    w[*n].b = row.end_ns;
    (*n)++;
  }
  gw_store_iter_close(it);
  if (*n == 0)
    return w;
  qsort(w, *n, sizeof *w, span_cmp);
  size_t m = 0;
  for (size_t i = 1; i < *n; i++) {
    if (w[i].a <= w[m].b) {
      if (w[i].b > w[m].b)
        w[m].b = w[i].b;
    } else {
      w[++m] = w[i];
    }
  }
  *n = m + 1;
  return w;
}

/* Adds weight x the overlap of [a, b) with each tick interval of g to acc.
 * Tick i covers (t[i-1], t[i]]; the first covers one median interval before t[0]. */
static void spread(const struct gw_gpu_series *g, int64_t first_start_ns, int64_t a, int64_t b, double weight,
                   double *acc) {
  if (b <= a || g->n == 0)
    return;
  /* first tick whose end is after a */
  size_t lo = 0, hi = g->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g->t_ns[mid] <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < g->n; i++) {
    int64_t ts = i ? g->t_ns[i - 1] : first_start_ns, te = g->t_ns[i];
    int64_t x = a > ts ? a : ts, y = b < te ? b : te;
    if (y > x)
      acc[i] += weight * (double)(y - x);
    if (te >= b)
      break;
  }
}

int gw_sm_limits_read(struct gw_store *st, int device, struct gw_sm_limits *lim) {
  struct gw_store_device_row d;
  gw_store_trace_device(st, device, &d); /* all zero without a DEVICE record: unusable */
  *lim = (struct gw_sm_limits){.sm_count = d.sm_count,
                               .max_warps_per_sm = d.max_warps_per_sm,
                               .max_blocks_per_sm = d.max_blocks_per_sm,
                               .max_regs_per_sm = d.max_regs_per_sm,
                               .max_shmem_per_sm_bytes = d.max_shmem_per_sm_bytes,
                               .threads_per_warp = d.threads_per_warp,
                               .cc_major = d.cc_major,
                               .cc_minor = d.cc_minor};
  return limits_usable(lim);
}

static int has_values(const struct gw_value_column *x, size_t n) {
  for (size_t i = 0; x && i < n; i++)
    if (!isnan(gw_column_at(x, i)))
      return 1;
  return 0;
}

/* The metric's values as a plain array to write, the column made (every tick
 * NAN) where the recording has none; gw_sm_fill packs it again. */
static double *writable(struct gw_gpu_series *g, enum gw_gpu_metric m) {
  if (!g->m[m])
    g->m[m] = gw_column_new(g->n);
  return gw_column_unpack(g->m[m]);
}

/* A tick whose interval the trace covered for less than half holds too
 * little of it to stand for the interval: it stays unknown. */
#define MIN_COVERED_SHARE 0.5

/* A sampled trace sees a window every period: each window's kernel mix
 * stands for the ticks around it, up to half a period either way, as GPM's
 * 1 s windows stand for their ticks. What repeats from step to step is the
 * mix (the SMs a resident kernel fills, per unit of kernel time), not the
 * share of the tick a kernel was resident: that GPU-Util measures at every
 * tick. So a held tick reads GPU-Util x the nearest window's fill per kernel
 * time; a window without kernels (the GPU idle then: start-up, a pause)
 * has no mix to lend and holds nothing. Where GPU-Util is missing the
 * window's activity is held as it was measured. fill and warp_fill are the
 * ticks' SM and warp shares per kernel time, NAN where no kernel ran. */
static void hold_between_windows(struct gw_gpu_series *g, int64_t hold_ns, const double *fill, const double *warp_fill,
                                 int with_occupancy) {
  double *sm = writable(g, GW_M_sm_active_pct), *occ = with_occupancy ? writable(g, GW_M_sm_occupancy_pct) : NULL;
  const double *util = g->m[GW_M_util_gpu_pct] ? gw_column_unpack(g->m[GW_M_util_gpu_pct]) : NULL;
  double *held = gw_xcalloc(g->n, sizeof *held), *held_occ = gw_xcalloc(g->n, sizeof *held_occ);
  size_t prev = SIZE_MAX; /* the last tick with a kernel mix */
  for (size_t i = 0; i < g->n; i++) {
    held[i] = sm[i];
    held_occ[i] = occ ? occ[i] : NAN;
    if (!isnan(fill[i]))
      prev = i;
    if (!isnan(sm[i]))
      continue;
    size_t next = i + 1;
    while (next < g->n && isnan(fill[next]) && g->t_ns[next] - g->t_ns[i] <= hold_ns)
      next++;
    int64_t dp = prev != SIZE_MAX ? g->t_ns[i] - g->t_ns[prev] : INT64_MAX;
    int64_t dn = next < g->n && !isnan(fill[next]) ? g->t_ns[next] - g->t_ns[i] : INT64_MAX;
    size_t from = dp <= dn ? prev : next;
    if ((dp <= dn ? dp : dn) > hold_ns)
      continue;
    double u = util ? util[i] : NAN;
    if (isnan(u)) {
      held[i] = sm[from];
      held_occ[i] = occ ? occ[from] : NAN;
    } else {
      held[i] = fmin(100.0, u * fill[from]);
      held_occ[i] = occ ? fmin(100.0, u * warp_fill[from]) : NAN;
    }
  }
  memcpy(sm, held, g->n * sizeof *sm);
  if (occ)
    memcpy(occ, held_occ, g->n * sizeof *occ);
  free(held);
  free(held_occ);
}

static void estimate_gpu(struct gw_store *st, struct gw_gpu_series *g, const struct gw_sm_limits *lim,
                         const struct span *win, size_t nwin, int64_t hold_ns) {
  struct gw_store_iter *it = gw_store_iter_launches(st, g->gpu);
  if (!it)
    return;
  int64_t step_ns = g->n > 1 ? (g->t_ns[g->n - 1] - g->t_ns[0]) / (int64_t)(g->n - 1) : 100000000;
  int64_t first_start_ns = g->t_ns[0] - step_ns;
  double *active = gw_xcalloc(g->n, sizeof *active), *warps = gw_xcalloc(g->n, sizeof *warps);
  double *covered = gw_xcalloc(g->n, sizeof *covered), *ktime = gw_xcalloc(g->n, sizeof *ktime);
  int64_t kmin = INT64_MAX, kmax = INT64_MIN, nk = 0;
  struct gw_store_launch_row row;
  while (gw_store_next_launch(it, &row)) {
    int64_t a = row.start_ns, b = row.end_ns;
    struct gw_launch_config cfg = {.blocks = row.blocks,
                                   .threads_per_block = row.threads_per_block,
                                   .regs_per_thread = row.regs_per_thread,
                                   .shmem_bytes = row.shmem_bytes};
    struct gw_occupancy o = gw_occupancy_of(lim, &cfg);
    if (o.blocks_per_sm <= 0)
      continue;
    spread(g, first_start_ns, a, b, o.sm_active_share, active);
    spread(g, first_start_ns, a, b, o.warp_occupancy_share, warps);
    spread(g, first_start_ns, a, b, 1.0, ktime);
    kmin = a < kmin ? a : kmin;
    kmax = b > kmax ? b : kmax;
    nk++;
  }
  gw_store_iter_close(it);
  if (nk == 0)
    goto out;
  /* The covered time: the trace's windows, or without any the span of the
   * kernels (a tracer killed before writing its window). */
  if (nwin)
    for (size_t w = 0; w < nwin; w++)
      spread(g, first_start_ns, win[w].a, win[w].b, 1.0, covered);
  else
    spread(g, first_start_ns, kmin, kmax, 1.0, covered);
  double *sm = writable(g, GW_M_sm_active_pct);
  int fill_occupancy = !has_values(g->m[GW_M_sm_occupancy_pct], g->n);
  double *occ = fill_occupancy ? writable(g, GW_M_sm_occupancy_pct) : NULL;
  for (size_t i = 0; i < g->n; i++) {
    int64_t len = g->t_ns[i] - (i ? g->t_ns[i - 1] : first_start_ns);
    int known = len > 0 && covered[i] >= MIN_COVERED_SHARE * (double)len;
    /* concurrent kernels can add up past the GPU: at most every SM is busy */
    sm[i] = known ? 100.0 * fmin(1.0, active[i] / covered[i]) : NAN;
    if (fill_occupancy)
      occ[i] = known ? 100.0 * fmin(1.0, warps[i] / covered[i]) : NAN;
  }
  if (hold_ns > 0) {
    /* per unit of kernel time, for the ticks a window covered */
    for (size_t i = 0; i < g->n; i++) {
      int known = !isnan(sm[i]) && ktime[i] > 0;
      active[i] = known ? fmin(1.0, active[i] / ktime[i]) : NAN;
      warps[i] = known ? fmin(1.0, warps[i] / ktime[i]) : NAN;
    }
    hold_between_windows(g, hold_ns, active, warps, fill_occupancy);
  }
  g->sm_activity_source = GW_SM_SOURCE_LAUNCH_CONFIG;
out:
  free(active);
  free(warps);
  free(covered);
  free(ktime);
}

/* SM activity from CUPTI PM sampling (pm_sample): per tick the samples'
 * active / elapsed SM cycles weighted by their overlap with the tick. A
 * measurement, so it comes before the launch-configuration estimate.
 * Returns 1 when it filled the GPU's ticks. */
static int from_pm_sampling(struct gw_store *st, struct gw_gpu_series *g) {
  struct gw_store_iter *it = gw_store_iter_pm_samples(st, g->gpu);
  if (!it)
    return 0;
  int64_t step_ns = g->n > 1 ? (g->t_ns[g->n - 1] - g->t_ns[0]) / (int64_t)(g->n - 1) : 100000000;
  int64_t first_start_ns = g->t_ns[0] - step_ns;
  double *active = gw_xcalloc(g->n, sizeof *active), *covered = gw_xcalloc(g->n, sizeof *covered);
  size_t n = 0;
  struct gw_store_pm_row row;
  while (gw_store_next_pm(it, &row)) {
    double share = fmin(1.0, fmax(0.0, row.sm_active_share));
    spread(g, first_start_ns, row.start_ns, row.end_ns, share, active);
    spread(g, first_start_ns, row.start_ns, row.end_ns, 1.0, covered);
    n++;
  }
  gw_store_iter_close(it);
  if (n) {
    double *sm = writable(g, GW_M_sm_active_pct);
    for (size_t i = 0; i < g->n; i++) {
      int64_t len = g->t_ns[i] - (i ? g->t_ns[i - 1] : first_start_ns);
      sm[i] = len > 0 && covered[i] >= MIN_COVERED_SHARE * (double)len ? 100.0 * active[i] / covered[i] : NAN;
    }
    g->sm_activity_source = GW_SM_SOURCE_PM_SAMPLING;
  }
  free(active);
  free(covered);
  return n > 0;
}

/* 1 when the recorder says DCGM filled this GPU's SM columns (meta
 * "sm_activity_source.gpuN" = "dcgm", record --dcgm); else they are GPM's. */
static int filled_by_dcgm(struct gw_store *st, int gpu) {
  char key[48], value[16];
  snprintf(key, sizeof key, "sm_activity_source.gpu%d", gpu);
  return gw_store_read_meta(st, key, value, sizeof value) == 0 && strcmp(value, "dcgm") == 0;
}

void gw_sm_fill(struct gw_store *st, struct gw_recording *rec) {
  for (int i = 0; i < rec->ngpus; i++) {
    struct gw_gpu_series *g = &rec->gpus[i];
    g->sm_activity_source = !has_values(g->m[GW_M_sm_active_pct], g->n) ? GW_SM_SOURCE_NONE
                            : filled_by_dcgm(st, g->gpu)                ? GW_SM_SOURCE_DCGM
                                                                        : GW_SM_SOURCE_GPM;
  }
  if (!gw_store_has_table(st, "kernel"))
    return;
  size_t nwin = 0;
  struct span *win = NULL;
  /* half the longest sampling period of a sampled trace; 0 for a full one */
  int64_t period_ms = gw_store_trace_sampled_period_max_ms(st);
  int64_t hold_ns = period_ms > 0 ? period_ms * 1000000 / 2 : 0;
  int loaded = 0;
  for (int i = 0; i < rec->ngpus; i++) {
    struct gw_gpu_series *g = &rec->gpus[i];
    struct gw_sm_limits lim;
    if (g->sm_activity_source != GW_SM_SOURCE_NONE || g->n == 0)
      continue;
    if (!from_pm_sampling(st, g) && gw_sm_limits_read(st, g->gpu, &lim)) {
      if (!loaded)
        win = load_windows_merged(st, &nwin), loaded = 1;
      estimate_gpu(st, g, &lim, win, nwin, hold_ns);
    }
    /* packed again as the loader left them (series.c) */
    for (int m = 0; m < GW_GPU_NMETRICS; m++)
      gw_column_pack(g->m[m]);
  }
  free(win);
}
