#include "core/sample.h"
#include "ledger.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gpu_loop.h"
#include "analysis/stats.h"
#include "analysis/thresholds.h"

/* The rows' ids; their titles are worded at render time (render/label_text.c). */
static const char *const ROW_IDS[GW_LEDGER_NROWS] = {
    [GW_ROW_PRODUCTIVE] = "productive", [GW_ROW_UNDERFILLED] = "underfilled",     [GW_ROW_THROTTLED] = "throttled",
    [GW_ROW_IDLE_INPUT] = "idle_input", [GW_ROW_IDLE_LAUNCH] = "idle_launch",     [GW_ROW_IDLE_SYNC] = "idle_sync",
    [GW_ROW_IDLE_COMM] = "idle_comm",   [GW_ROW_IDLE_PERIODIC] = "idle_periodic", [GW_ROW_IDLE_OTHER] = "idle_other",
    [GW_ROW_STARTUP] = "startup",
};

const char *gw_ledger_row_id(enum gw_ledger_row r) {
  return r < GW_LEDGER_NROWS ? ROW_IDS[r] : "?";
}

int gw_tick_active(const struct gw_gpu_series *g, size_t i) {
  double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
  double sm = gw_column_at(g->m[GW_M_sm_active_pct], i);
  return (!isnan(u) && u >= gw_thr.active_util_pct) || (!isnan(sm) && sm >= gw_thr.active_sm_pct);
}

/* The lead-burst test's notion of an active tick: as gw_tick_active, except
 * that a tick where GPU-Util read under active_util_no_sm_pct had no kernel
 * resident at all, whatever SM activity says. A GPM window's value is spread
 * over the whole window it describes (1 s by default), so the second before
 * a run's first kernel reads that run's SM activity and would shorten the
 * idle pause after a set-up burst by up to a window. */
static int lead_tick_active(const struct gw_gpu_series *g, size_t i) {
  double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
  if (!isnan(u) && u < gw_thr.active_util_no_sm_pct)
    return 0;
  return gw_tick_active(g, i);
}

int gw_working_span(const struct gw_gpu_series *g, size_t *first, size_t *last) {
  size_t f = SIZE_MAX, l = 0;
  for (size_t i = 0; i < g->n; i++)
    if (gw_tick_active(g, i)) {
      if (f == SIZE_MAX)
        f = i;
      l = i;
    }
  if (f == SIZE_MAX)
    return 0;
  size_t f0 = f;
  /* Drop a leading burst shorter than lead_burst_max_s that is followed by
   * a pause of at least lead_gap_min_s; repeat while the start looks so. */
  int64_t burst_ns = (int64_t)(gw_thr.lead_burst_max_s * 1e9), gap_ns = (int64_t)(gw_thr.lead_gap_min_s * 1e9);
  for (;;) {
    size_t end = f, next = SIZE_MAX;
    for (size_t i = f + 1; i <= l; i++) {
      if (!lead_tick_active(g, i))
        continue;
      if (g->t_ns[i] - g->t_ns[end] >= gap_ns) {
        next = i;
        break;
      }
      end = i;
    }
    if (next == SIZE_MAX || g->t_ns[end] - g->t_ns[f] > burst_ns)
      break;
    f = next;
  }
  /* A run outlasts a set-up burst: when all that would be left is one more
   * burst like those dropped, the short bursts and long pauses are the run
   * itself (a GPU starved for seconds between batches), not set-up. */
  if (f != f0 && g->t_ns[l] - g->t_ns[f] <= burst_ns)
    f = f0;
  /* Once the run has begun, a tick without SM activity in which a kernel
   * was resident at all (util >= active_util_no_sm_pct) still belongs to it:
   * without GPM the short bursts of a starved run read a few percent. */
  for (size_t i = g->n; i-- > l + 1;) {
    double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
    double sm = gw_column_at(g->m[GW_M_sm_active_pct], i);
    if (isnan(sm) && !isnan(u) && u >= gw_thr.active_util_no_sm_pct) {
      l = i;
      break;
    }
  }
  *first = f;
  *last = l;
  return 1;
}

/* No tick reached the activity thresholds and no step is known (no hook, or
 * not Python): GPU-Util of 1-4% says a kernel was resident in a few of the
 * driver's periods, as in a run starved for seconds between batches. Set-up
 * (context creation, the weight upload) reads so for at most lead_burst_max_s
 * before a pause; ticks with a kernel resident that recur for longer than
 * that, none more than lead_gap_min_s from the next, are the run: it spans
 * from the first such stretch to the last resident tick. */
static int trickle_span(const struct gw_gpu_series *g, size_t *first, size_t *last) {
  int64_t burst_ns = (int64_t)(gw_thr.lead_burst_max_s * 1e9), gap_ns = (int64_t)(gw_thr.lead_gap_min_s * 1e9);
  size_t start = SIZE_MAX, prev = SIZE_MAX, run_first = SIZE_MAX, run_last = 0;
  for (size_t i = 0; i < g->n; i++) {
    double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
    if (isnan(u) || u < gw_thr.active_util_no_sm_pct)
      continue;
    if (prev == SIZE_MAX || g->t_ns[i] - g->t_ns[prev] >= gap_ns)
      start = i; /* a new stretch */
    prev = i;
    if (run_first == SIZE_MAX && g->t_ns[i] - g->t_ns[start] > burst_ns)
      run_first = start;
    run_last = i;
  }
  if (run_first == SIZE_MAX)
    return 0;
  *first = run_first;
  *last = run_last;
  return 1;
}

int gw_steady_span(const struct gw_recording *rec, int gi, size_t *first, size_t *last) {
  if (gw_working_span(&rec->gpus[gi], first, last)) {
    gw_loop_clip_span(rec, gi, first, last); /* the loop's first step is warm-up */
    return 1;
  }
  /* No tick reached the activity thresholds, yet the hook saw the loop take
   * its optimizer steps on this GPU: each step ran its kernels, only a few
   * ms of them in a step the host makes 100 ms long (GPU-Util 1-2%, SM
   * activity under 2%). A GPU that idles 98% of the time because its input
   * is slow is the run to explain, not a GPU that did nothing: the span
   * comes from the steps. */
  if (gw_loop_span_ticks(rec, gi, first, last))
    return 1;
  return trickle_span(&rec->gpus[gi], first, last);
}

double gw_tick_activity_pct(const struct gw_gpu_series *g, size_t i, int *from_util) {
  double sm = gw_column_at(g->m[GW_M_sm_active_pct], i);
  if (!isnan(sm))
    return sm;
  double u = gw_column_at(g->m[GW_M_util_gpu_pct], i);
  if (!isnan(u) && from_util)
    *from_util = 1;
  return u;
}

int64_t gw_typical_dt_ns(const struct gw_gpu_series *g) {
  if (g->n < 2)
    return 100000000; /* the recorder's default 100 ms tick */
  double *dt = gw_xcalloc(g->n - 1, sizeof *dt);
  for (size_t i = 0; i + 1 < g->n; i++) { /* exact, and no int64 overflow on hostile timestamps */
    int64_t a = g->t_ns[i], b = g->t_ns[i + 1];
    dt[i] = b >= a ? (double)((uint64_t)b - (uint64_t)a) : -(double)((uint64_t)a - (uint64_t)b);
  }
  double med = gw_stats_median(dt, g->n - 1);
  free(dt);
  if (!(med > 0))
    return 100000000;
  return med >= 9.2e18 ? INT64_MAX : (int64_t)med; /* a gap past int64's range: no undefined conversion */
}

int64_t gw_tick_dt_ns(const struct gw_gpu_series *g, size_t i, int64_t typical) {
  if (i + 1 >= g->n)
    return typical;
  /* in unsigned arithmetic: two timestamps far apart (a damaged or
   * hostile file) must not overflow the difference or the cap */
  int64_t a = g->t_ns[i], b = g->t_ns[i + 1];
  if (b <= a)
    return 0;
  uint64_t dt = (uint64_t)b - (uint64_t)a;
  int64_t cap = typical > INT64_MAX / 5 ? INT64_MAX : 5 * typical;
  return dt > (uint64_t)cap ? cap : (int64_t)dt;
}

double gw_ledger_active_ns(const struct gw_ledger *l) {
  return (double)l->wall_ns - l->row_ns[GW_ROW_STARTUP];
}

double gw_ledger_idle_ns(const struct gw_ledger *l) {
  double ns = 0;
  for (int r = GW_ROW_IDLE_INPUT; r <= GW_ROW_IDLE_OTHER; r++)
    ns += l->row_ns[r];
  return ns;
}

static double clamp01(double x) {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

static double val(const struct gw_value_column *c, size_t i) {
  return gw_column_at(c, i);
}

/* Clock ratio that counts as "throttled" at tick i, and whether it is the
 * power cap alone. 1 when nothing holds the clock down. */
static double clock_ratio(const struct gw_gpu_series *g, size_t i, double busy, int *power_cap_only) {
  *power_cap_only = 0;
  double clk = val(g->m[GW_M_sm_clock_mhz], i), max = g->sm_clock_max_mhz;
  if (isnan(clk) || isnan(max) || max <= 0)
    return 1;
  double ratio = clamp01(clk / max);
  double reasons = val(g->m[GW_M_clock_reasons], i);
  double pstate = val(g->m[GW_M_pstate], i);
  uint64_t bits = isnan(reasons) ? 0 : (uint64_t)reasons;
  if (bits & GW_CLK_BAD_MASK)
    return ratio;
  if (bits & GW_CLK_SW_POWER_CAP) {
    *power_cap_only = 1;
    return ratio;
  }
  /* A loaded GPU outside P0 runs slow clocks with no reason bit set. */
  if (!isnan(pstate) && pstate > 0 && busy * 100 >= gw_thr.busy_tick_util_pct)
    return ratio;
  return 1;
}

enum idle_cause { IDLE_INPUT, IDLE_HOST_TENSOR, IDLE_LAUNCH, IDLE_TINY, IDLE_HOST, IDLE_OTHER };

int gw_pcie_round_trip(const struct gw_recording *rec, const struct gw_gpu_series *g, double rx_bps, double tx_bps) {
  if (isnan(rx_bps) || isnan(tx_bps) || tx_bps < gw_thr.pcie_offload_min_tx_bps)
    return 0;
  /* with peers the same bytes may be a collective's (gw_pcie_rx_is_input) */
  if (rec->ngpus > 1 || rec->world_size > 1 || g->nnccl > 0)
    return 0;
  /* each direction carries the same tensors, at most twice apart in size
   * (fp32 one way, bf16 the other) */
  return tx_bps >= gw_thr.pcie_offload_tx_per_rx * rx_bps && rx_bps >= gw_thr.pcie_offload_tx_per_rx * tx_bps;
}

int gw_pcie_rx_is_input(const struct gw_recording *rec, const struct gw_gpu_series *g, double rx_bps, double tx_bps) {
  if (isnan(rx_bps) || rx_bps < gw_thr.pcie_rx_high_bps)
    return 0;
  /* NCCL ruled out: one GPU, no rank elsewhere, no NCCL kernel traced. With
   * peers, collectives cross PCIe (P2P without NVLink, staging through host
   * memory) and the counter cannot tell their bytes from a batch's. */
  if (rec->ngpus > 1 || rec->world_size > 1 || g->nnccl > 0)
    return 0;
  /* offload ruled out: a batch travels one way (a loss scalar comes back);
   * an optimizer kept in host memory sends the gradients down and takes the
   * parameters back, the same count in the same dtype each step. Device-to-
   * host traffic within a factor two of the receive is that round trip. */
  return isnan(tx_bps) || tx_bps < gw_thr.pcie_offload_tx_per_rx * rx_bps;
}

/* What the host was doing while the GPU sat idle at tick i; a is the SM
 * activity and b the resident (GPU-Util) share of the tick, both 0..1. */
static enum idle_cause idle_cause_at(const struct gw_recording *rec, const struct gw_gpu_series *g, size_t i, double a,
                                     double b, int waits_measured) {
  const struct gw_host_series *h = &rec->host;
  /* bytes arriving from the host while the SMs wait: the step waits on a
   * copy, once NCCL traffic and an offloaded optimizer are ruled out */
  if (gw_pcie_rx_is_input(rec, g, val(g->m[GW_M_pcie_rx_bps], i), val(g->m[GW_M_pcie_tx_bps], i)))
    return IDLE_INPUT;
  size_t j = gw_host_index_at(h, g->t_ns[i]);
  if (j == SIZE_MAX)
    return IDLE_OTHER;
  double main = h->main_cpu_pct[j];
  double disk = h->disk_util_max_pct[j], iowait = h->iowait_pct[j];
  int workers_busy = gw_workers_saturated_at(h, j);
  int storage_busy =
      (!isnan(disk) && disk >= gw_thr.disk_busy_util_pct) || (!isnan(iowait) && iowait >= gw_thr.iowait_high_pct);
  int main_busy = !isnan(main) && main >= gw_thr.main_saturated_cpu_pct;
  /* Busy loader workers, storage or CPU tensor work hint at data
   * preparation; when the loop measured its own DataLoader waits, those
   * waits already hold all the time it starved for data (counted before
   * this is asked), and the hints describe work that overlapped compute. */
  if ((workers_busy || storage_busy) && !waits_measured)
    return IDLE_INPUT;
  if (!main_busy)
    return IDLE_OTHER;
  /* Launching is one thread's work; several cores busy in the training
   * process while the GPU idles is CPU tensor work: preparing data, or an
   * optimizer kept in host memory (the caller tells them apart). */
  if (main >= gw_thr.main_multicore_cpu_pct)
    return IDLE_HOST_TENSOR;
  /* The launching threads measured (main + autograd's) and not saturated:
   * the busy core is a helper thread (a logger, the pin-memory thread,
   * NCCL's proxy), which issues no kernels, so the host is not what the GPU
   * waits for. */
  if (!gw_launching_saturated_at(h, j))
    return IDLE_OTHER;
  if (b * 100 >= gw_thr.launch_min_util_pct && a < gw_thr.launch_sm_per_util * b)
    return IDLE_TINY; /* kernels resident but almost no SM busy: a storm of tiny kernels */
  /* the main thread far busier than the autograd thread that launches the
   * backward, with kernels resident under half the tick: host work of the
   * loop's own, not launches. (Where kernels are resident most of the tick
   * a busy main thread spins on the GPU: CUDA's sync and a full launch
   * queue wait on a busy core.) */
  if (b * 100 < gw_thr.small_busy_util_pct && gw_main_not_launching_at(h, j))
    return IDLE_HOST;
  if (b * 100 >= gw_thr.launch_min_util_pct)
    return IDLE_LAUNCH; /* the host issues work, the GPU drains it between launches */
  return IDLE_HOST;     /* one core busy, almost nothing reaches the GPU */
}

static void init_ledger(struct gw_ledger *out, const struct gw_gpu_series *g) {
  memset(out, 0, sizeof *out);
  out->gpu = g->gpu;
  for (int r = 0; r < GW_LEDGER_NROWS; r++)
    out->measured[r] = 1;
}

/* Counter path: one tick at a time. */
static void ledger_from_counters(const struct gw_recording *rec, const struct gw_gpu_series *g,
                                 const struct gw_ledger_context *ctx, struct gw_ledger *out) {
  out->measured[GW_ROW_IDLE_SYNC] = 0; /* needs the tracer's sync records */
  if (rec->ngpus < 2)
    out->measured[GW_ROW_IDLE_COMM] = 0;
  int64_t typical = gw_typical_dt_ns(g);
  size_t first = SIZE_MAX, last = 0;
  if (!gw_steady_span(rec, (int)(g - rec->gpus), &first, &last)) /* as the diagnosis's span */
    first = SIZE_MAX;
  size_t util_ticks = 0;                  /* active ticks where GPU-Util stood in for SM activity */
  int ran_busy = 0;                       /* a tick of the span so far had kernels resident half its time */
  size_t ticks_after = 0, busy_after = 0; /* active ticks from the first such tick on, and those busy */
  struct gw_data_waits waits;
  gw_data_waits_for_gpu(rec, (int)(g - rec->gpus), &waits);
  for (size_t i = 0; i < g->n; i++) {
    double dt = (double)gw_tick_dt_ns(g, i, typical);
    out->wall_ns += (int64_t)dt;
    if (first == SIZE_MAX || i < first || i > last) {
      out->row_ns[GW_ROW_STARTUP] += dt;
      continue;
    }
    out->ticks_active += 1;
    int from_util = 0;
    double act = gw_tick_activity_pct(g, i, &from_util);
    util_ticks += from_util;
    double u = val(g->m[GW_M_util_gpu_pct], i);
    if (isnan(act)) { /* nothing known about this tick */
      out->row_ns[GW_ROW_IDLE_OTHER] += dt;
      continue;
    }
    double a = clamp01(act / 100), b = isnan(u) ? a : clamp01(u / 100);
    if (b < a)
      b = a; /* SM activity cannot exceed the time a kernel was resident */
    int busy_tick = b * 100 >= gw_thr.small_busy_util_pct;
    ran_busy |= busy_tick;
    ticks_after += ran_busy;
    busy_after += busy_tick;
    int cap_only;
    double c = clock_ratio(g, i, b, &cap_only);
    double productive = a * c, throttled = a * (1 - c), under = b - a, idle = 1 - b;
    double comm = 0, periodic = 0;
    /* communication first: a periodic pattern never erases it (a gradient
     * all-reduce every N micro-steps is periodic too) */
    if (ctx && ctx->peer_sm_max_pct && !isnan(ctx->peer_sm_max_pct[i]) &&
        ctx->peer_sm_max_pct[i] - act >= gw_thr.multi_sm_spread_pct && b * 100 >= gw_thr.busy_tick_util_pct) {
      /* a rank far behind its peers while "busy" is spinning in a collective */
      comm = fmin(under, (ctx->peer_sm_max_pct[i] - act) / 100);
      under -= comm;
    }
    /* The loop measured itself blocked in the DataLoader for part of the
     * tick: the GPU's idle time up to that long is input, before any cause
     * read from CPU load or a periodic pattern. Idle and wait both within the
     * tick: the overlap is at most the shorter (the GPU drains its queue
     * while the loop waits, then sits idle until the batch arrives). */
    double waited = fmin(idle, gw_data_wait_share_in(&waits, g->t_ns[i], g->t_ns[i] + (int64_t)dt));
    idle -= waited;
    out->row_ns[GW_ROW_IDLE_INPUT] += waited * dt;
    out->data_wait_input_ns += waited * dt;
    /* The rest of the idle time inside one of the loop's occasional long
     * steps is that step's extra work (eval, checkpoint, logging, a
     * recompile): the schedule's, not the input's or the launcher's. */
    double occasional = fmin(idle, gw_outlier_share_in(&waits, g->t_ns[i], g->t_ns[i] + (int64_t)dt));
    idle -= occasional;
    periodic += occasional;
    if (ctx && ctx->periodic_dip && ctx->periodic_dip[i]) {
      /* the rest of the shortfall of a tick in a scheduled dip is the schedule's */
      periodic += idle + under;
      idle = under = 0;
    }
    out->row_ns[GW_ROW_PRODUCTIVE] += productive * dt;
    out->row_ns[GW_ROW_THROTTLED] += throttled * dt;
    if (cap_only)
      out->throttled_power_cap_ns += throttled * dt;
    out->row_ns[GW_ROW_UNDERFILLED] += under * dt;
    out->row_ns[GW_ROW_IDLE_COMM] += comm * dt;
    out->row_ns[GW_ROW_IDLE_PERIODIC] += periodic * dt;
    if (idle > 0 || under > 0) {
      enum idle_cause cause = idle_cause_at(rec, g, i, a, b, waits.measured);
      /* multi-core host work: an offloaded optimizer's (the schedule's), else
       * data preparation, unless the loop measured its DataLoader waits
       * (counted above): then it is host work of another kind */
      if (cause == IDLE_HOST_TENSOR && !(ctx && ctx->host_cpu_is_offload))
        cause = waits.measured ? IDLE_HOST : IDLE_INPUT;
      if ((cause == IDLE_INPUT || cause == IDLE_HOST_TENSOR) && under > 0 && a < gw_thr.small_sm_per_util * b) {
        /* resident time with few SMs busy during a copy (a batch's, or an
         * offloaded optimizer's gradients and parameters) is the copy itself */
        idle += under;
        out->row_ns[GW_ROW_UNDERFILLED] -= under * dt;
        under = 0;
      }
      /* an optimizer step on the host is on the critical path once per
       * optimizer step: the schedule's time (schedule_shape) */
      enum gw_ledger_row row = cause == IDLE_INPUT                          ? GW_ROW_IDLE_INPUT
                               : cause == IDLE_HOST_TENSOR                  ? GW_ROW_IDLE_PERIODIC
                               : cause == IDLE_LAUNCH || cause == IDLE_TINY ? GW_ROW_IDLE_LAUNCH
                                                                            : GW_ROW_IDLE_OTHER;
      out->row_ns[row] += idle * dt;
      if (cause == IDLE_TINY)
        out->tiny_kernel_ns += (under + idle) * dt;
      if (cause == IDLE_LAUNCH)
        out->launch_gap_ns += idle * dt;
      if (cause == IDLE_HOST) {
        out->host_busy_ns += idle * dt;
        if (!ran_busy)
          out->host_busy_lead_ns += idle * dt;
      }
    }
  }
  gw_data_waits_free(&waits);
  /* set-up precedes a run the GPU keeps busy: where it never ran busy, or
   * idled most of the time after its first busy tick (a loop starved but for
   * bursts), the host time before that tick is the run's like the rest */
  if (!ran_busy || 2 * busy_after < ticks_after)
    out->host_busy_lead_ns = 0;
  /* a few edge ticks outside any GPM window do not make the run SM-blind */
  out->sm_from_util = out->ticks_active > 0 && 2 * (double)util_ticks > out->ticks_active;
  if (first != SIZE_MAX) {
    out->active_start_ns = g->t_ns[first];
    out->active_end_ns = g->t_ns[last] + gw_tick_dt_ns(g, last, typical);
  }
}

static struct gw_interval *copy_list(const struct gw_interval *src, size_t n) {
  struct gw_interval *dst = gw_xcalloc(n + 1, sizeof *dst);
  if (n)
    memcpy(dst, src, n * sizeof *dst);
  return dst;
}

/* Timeline path: busy time and gaps from the traced kernels; the split of
 * busy time into productive / underfilled / throttled still comes from the
 * counters over the same span (the tracer does not see SM fill). */
static void ledger_from_timeline(const struct gw_recording *rec, const struct gw_gpu_series *g,
                                 const struct gw_ledger_context *ctx, struct gw_ledger *out) {
  struct gw_ledger counters;
  init_ledger(&counters, g);
  ledger_from_counters(rec, g, ctx, &counters);
  out->sm_from_util = counters.sm_from_util;
  out->from_timeline = 1;

  struct gw_timeline_input in = gw_series_timeline_input(g);
  struct gw_data_waits waits;
  gw_data_waits_for_gpu(rec, (int)(g - rec->gpus), &waits);
  in.waits = waits.iv;
  in.nwaits = waits.n;
  int64_t t0 = in.t0, t1 = in.t1;
  /* the loop's first step is warm-up: the working span starts after it */
  if (gw_loop_clip_times(rec, (int)(g - rec->gpus), &t0, &t1)) {
    in.t0 = t0;
    in.t1 = t1;
  }
  /* the split merges the lists in place: give it copies */
  in.compute = copy_list(in.compute, in.ncompute);
  in.nccl = copy_list(in.nccl, in.nnccl);
  in.h2d = copy_list(in.h2d, in.nh2d);
  in.other_copies = copy_list(in.other_copies, in.nother);
  in.api = copy_list(in.api, in.napi);
  in.syncs = copy_list(in.syncs, in.nsyncs);
  struct gw_gap_split sp;
  gw_timeline_split(&in, &sp);
  free(in.compute);
  free(in.nccl);
  free(in.h2d);
  free(in.other_copies);
  free(in.api);
  free(in.syncs);
  gw_data_waits_free(&waits);

  int64_t wall_start = t0, wall_end = t1;
  if (g->n > 0) {
    int64_t typical = gw_typical_dt_ns(g);
    if (g->t_ns[0] < wall_start)
      wall_start = g->t_ns[0];
    if (g->t_ns[g->n - 1] + typical > wall_end)
      wall_end = g->t_ns[g->n - 1] + typical;
  }
  out->wall_ns = wall_end - wall_start;
  out->active_start_ns = t0;
  out->active_end_ns = t1;
  out->row_ns[GW_ROW_STARTUP] = (double)(out->wall_ns - (t1 - t0));
  /* sync is seen when the trace has the host's synchronizing calls */
  out->measured[GW_ROW_IDLE_SYNC] = g->nsyncs > 0;
  out->row_ns[GW_ROW_IDLE_SYNC] = (double)sp.idle_sync_ns;

  /* busy split by the counters' proportions over the active span */
  double c_prod = counters.row_ns[GW_ROW_PRODUCTIVE], c_thr = counters.row_ns[GW_ROW_THROTTLED];
  double c_under = counters.row_ns[GW_ROW_UNDERFILLED];
  double c_busy = c_prod + c_thr + c_under;
  double busy = (double)sp.busy_ns;
  if (c_busy > 0) {
    out->row_ns[GW_ROW_PRODUCTIVE] = busy * c_prod / c_busy;
    out->row_ns[GW_ROW_THROTTLED] = busy * c_thr / c_busy;
    out->row_ns[GW_ROW_UNDERFILLED] = busy * c_under / c_busy;
    out->throttled_power_cap_ns =
        c_thr > 0 ? out->row_ns[GW_ROW_THROTTLED] * counters.throttled_power_cap_ns / c_thr : 0;
  } else {
    out->row_ns[GW_ROW_PRODUCTIVE] = busy; /* no counters: traced busy time is all we know */
  }
  out->row_ns[GW_ROW_IDLE_COMM] = (double)sp.comm_ns;
  out->row_ns[GW_ROW_IDLE_INPUT] = (double)sp.idle_input_ns;
  out->data_wait_input_ns = (double)sp.idle_data_wait_ns;
  out->row_ns[GW_ROW_IDLE_LAUNCH] = (double)sp.idle_launch_ns;
  /* long gaps: the counters' periodic estimate first, the rest is other */
  double periodic = fmin((double)sp.idle_other_ns, counters.row_ns[GW_ROW_IDLE_PERIODIC]);
  out->row_ns[GW_ROW_IDLE_PERIODIC] = periodic;
  out->row_ns[GW_ROW_IDLE_OTHER] = (double)sp.idle_other_ns - periodic;
  out->ticks_active = counters.ticks_active;
  out->tiny_kernel_ns = counters.tiny_kernel_ns;
  out->host_busy_ns = counters.host_busy_ns;
  out->host_busy_lead_ns = counters.host_busy_lead_ns;
  out->launch_gap_ns = counters.launch_gap_ns;
  out->host_issue_ns = (double)sp.host_issue_ns;
  out->launch_calls_missing = g->nlaunch_calls == 0;
  out->sync_gaps = sp.sync_gaps;
}

void gw_ledger_build(const struct gw_recording *rec, int gi, const struct gw_ledger_context *ctx,
                     struct gw_ledger *out) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  init_ledger(out, g);
  if (rec->has_timeline && g->nkernels + g->nnccl > 0)
    ledger_from_timeline(rec, g, ctx, out);
  else
    ledger_from_counters(rec, g, ctx, out);
}
