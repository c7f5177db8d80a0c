/* The GPU time ledger: every second of a GPU's wall time
 * lands in exactly one row, so the rows add up to 100%. */
#ifndef GW_LEDGER_H
#define GW_LEDGER_H

#include <stdint.h>

#include "analysis/series.h"

enum gw_ledger_row {
  GW_ROW_PRODUCTIVE,
  GW_ROW_UNDERFILLED,
  GW_ROW_THROTTLED,
  GW_ROW_IDLE_INPUT,
  GW_ROW_IDLE_LAUNCH,
  GW_ROW_IDLE_SYNC,
  GW_ROW_IDLE_COMM,
  GW_ROW_IDLE_PERIODIC,
  GW_ROW_IDLE_OTHER,
  GW_ROW_STARTUP, /* before the GPU first worked and after it last did */
  GW_LEDGER_NROWS
};

struct gw_ledger {
  int gpu;
  int from_timeline;                      /* 1: busy time and gaps from traced kernels; 0: estimated from counters */
  int sm_from_util;                       /* 1: SM activity was unavailable, GPU-Util stood in for it */
  int64_t wall_ns;                        /* sum of all rows */
  int64_t active_start_ns, active_end_ns; /* the GPU's working span; both 0 when it never worked */
  double row_ns[GW_LEDGER_NROWS];
  unsigned char measured[GW_LEDGER_NROWS]; /* 0: the source cannot see this row (shown as "-") */
  /* parts of rows that the rules need */
  double throttled_power_cap_ns; /* throttled by the SW power cap only: the physical limit, not a fault */
  double tiny_kernel_ns;         /* underfilled and idle time in ticks with the launch-storm signature */
  double launch_gap_ns;          /* idle time while the busy host issued kernels that do fill the SMs */
  double host_issue_ns;          /* timeline: gaps longer than a launch through which the host kept calling CUDA */
  int launch_calls_missing;      /* timeline without launch calls: host_issue_ns may be short */
  int64_t sync_gaps;             /* timeline: gaps counted as idle: sync */
  double host_busy_ns;           /* idle: other time while the target process kept one core busy without launching */
  /* the part of host_busy_ns before the GPU first had kernels resident half a tick: set-up (the model built, the
   * first batch made, kernels compiled); 0 unless the GPU was so busy in most ticks from then on */
  double host_busy_lead_ns;
  double data_wait_input_ns; /* idle: input time during which the loop waited in the DataLoader (Python hook) */
  double ticks_active;       /* ticks in the working span */
};

/* The row's stable id ("idle_input"); render/label_text.c words it. */
const char *gw_ledger_row_id(enum gw_ledger_row r);

/* Per-tick context the ledger needs from the rest of the analysis. Both
 * arrays have one entry per gpu_sample tick of the GPU and may be NULL. */
struct gw_ledger_context {
  const unsigned char *periodic_dip; /* 1 when the tick is inside a periodic dip */
  const double *peer_sm_max_pct;     /* highest SM activity of the other GPUs at that tick, NAN none */
  /* the host's multi-core work while this GPU idles is an optimizer kept in
   * host memory (gw_pcie_round_trip over the run): the schedule's, not input */
  int host_cpu_is_offload;
};

/* Build GPU gi's ledger: from the timeline when the recording has traced
 * kernels for it, else from the counters. */
void gw_ledger_build(const struct gw_recording *rec, int gi, const struct gw_ledger_context *ctx,
                     struct gw_ledger *out);

/* 1 when PCIe receive of rx_bps (tx_bps sent back) at a tick of g can be
 * counted as input: high, with NCCL and an offloaded optimizer ruled out. */
int gw_pcie_rx_is_input(const struct gw_recording *rec, const struct gw_gpu_series *g, double rx_bps, double tx_bps);

/* 1 when this GPU's PCIe traffic over the run (medians rx_bps received,
 * tx_bps sent) is an optimizer kept in host memory: gradients down and
 * parameters back in comparable amounts, on one GPU without NCCL. */
int gw_pcie_round_trip(const struct gw_recording *rec, const struct gw_gpu_series *g, double rx_bps, double tx_bps);

/* The active-span test on one tick. */
int gw_tick_active(const struct gw_gpu_series *g, size_t i);
/* The working span: first and last active tick, after dropping short bursts
 * at the start that stand apart from the run (context creation, weight
 * upload, compilation). Returns 0 when the GPU never worked. */
int gw_working_span(const struct gw_gpu_series *g, size_t *first, size_t *last);
/* GPU gi's steady span as the analysis uses it: the working span narrowed to
 * the loop's steady steps (gw_loop_clip_span); when no tick passes the
 * activity test but the hook saw the loop step on this GPU, the steps' span
 * itself. Returns 0 when neither says the GPU worked. */
int gw_steady_span(const struct gw_recording *rec, int gi, size_t *first, size_t *last);
/* SM activity of tick i in percent, or GPU-Util when SM activity is NULL
 * (*from_util set); NAN when both are NULL. */
double gw_tick_activity_pct(const struct gw_gpu_series *g, size_t i, int *from_util);
/* Tick lengths: t[i+1]-t[i], capped at 5 typical intervals (a pause in the
 * recording is not GPU time); the last tick gets the typical interval. */
int64_t gw_tick_dt_ns(const struct gw_gpu_series *g, size_t i, int64_t typical_dt_ns);
int64_t gw_typical_dt_ns(const struct gw_gpu_series *g);

/* Sum of rows in [first, last] as a share of the active (non-startup) time. */
double gw_ledger_active_ns(const struct gw_ledger *l);
/* The GPU's idle time: the sum of the idle rows (input .. other). */
double gw_ledger_idle_ns(const struct gw_ledger *l);

#endif
