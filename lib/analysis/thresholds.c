#include "thresholds.h"

/* Where the numbers come from:
 *  [seed]  the field guide the project rests on (sections named)
 *  [h200]  docs/gpu-machine.md, measured on an H200
 *  [def]   the definition of the counter itself
 * They are physics-based starting points, not fitted to any one recording. */
const struct gw_thresholds gw_thr = {
    /* [h200] idle reads util 0 and SM 0; the smallest real load measured (a
     * tiny-kernel storm) reads util 13-25% with SM 0.1%, so util >= 5% already
     * means work, and SM >= 2% means work even when util is missing. */
    .active_util_pct = 5.0,
    .active_sm_pct = 2.0,

    /* [seed 2.1, 3.1] "several cores pinned at full load": cpu_pct is a share
     * of one core, so near 100% is a saturated single-threaded worker. 85%
     * leaves room for sampling noise and short waits. */
    .worker_saturated_cpu_pct = 85.0,
    /* [seed 2.3] Python launching tiny kernels keeps its one thread busy;
     * same reasoning as for workers. */
    .main_saturated_cpu_pct = 85.0,
    /* [seed 2.1] "iostat shows util piling up"; 80% util on a device is the
     * usual iostat reading of a queue that is rarely empty. */
    .disk_busy_util_pct = 80.0,
    /* [def] iowait above a fifth of CPU time means readers block on storage. */
    .iowait_high_pct = 20.0,
    /* [seed 4.3] long high PCIe use means frequent host copies. 1 GB/s is
     * about 2% of a gen5 x16 link but already tens of MB a 30 ms step. */
    .pcie_rx_high_bps = 1.0e9,

    /* [seed 1, 3.1] 100 W of 350 W and 90 W of 300 W mean "not really
     * working"; [h200] a storm sits at 130 W and a starved loop at 231 W of
     * 700 W (0.19 and 0.33), a busy GEMM at 0.98. */
    .low_power_frac = 0.40,
    /* [h200] a storm has SM/util of 0.1/20 = 0.005; any real kernel mix with
     * launch-bound gaps stays far below 0.1. */
    .launch_sm_per_util = 0.10,
    /* [seed 2.2] "util not low but throughput low": util at least half. */
    .small_busy_util_pct = 50.0,
    /* [h200] a full GEMM reaches SM/util 0.95; below 0.6 the resident
     * kernels leave a large share of the SMs empty. */
    .small_sm_per_util = 0.60,
    /* [seed 3.1] "memory only 20% used" pointed away from a full GPU; below
     * half there is room to at least double the batch. */
    .mem_mostly_free_frac = 0.50,
    /* [seed 2.2] keep 20-30% headroom: above 80% used it is gone. */
    .mem_headroom_low_frac = 0.80,
    /* [seed 2.4] "SM utilization differs by more than 10% between cards";
     * [h200] a 40% imbalance showed 64% vs 88%. */
    .multi_sm_spread_pct = 10.0,
    /* [seed 2.5] P-state and clocks only matter while the GPU is loaded. */
    .busy_tick_util_pct = 50.0,
    /* a symptom on at least 5% of loaded ticks is more than a blip */
    .hw_bad_tick_frac = 0.05,
    /* [seed 2.5] "power limit pressed low"; a 10% cut is deliberate. */
    .power_limit_low_frac = 0.90,

    /* [seed 2.6] periodic drops: activity below half the typical level. */
    .dip_frac_of_typical = 0.50,
    /* [seed 2.6] eval / checkpoint every N steps: periods of seconds, far
     * longer than one step; 2 s keeps per-step rhythm out. */
    .period_min_s = 2.0,
    /* [def] an autocorrelation of 0.3 at the lag is well above the noise of
     * a few hundred samples (about 2/sqrt(n)). */
    .period_min_strength = 0.30,
    /* [seed 2.1] "step times long and short": a CV of 0.3 or p90 at 1.5x
     * the median is visible jitter; [h200] run-to-run noise is ~10%. */
    .step_jitter_cv = 0.30,
    .step_jitter_p90_p50 = 1.5,

    /* Findings under 5% of active GPU time are below the 10% run-to-run
     * noise [h200] and not worth a user's first hour. */
    .finding_min_share = 0.05,
    .finding_min_conf = 0.30,
    /* without GPM the GPU-Util stand-in hides SM fill (the storm case) */
    .no_gpm_conf_factor = 0.6,
    /* [h200] launches of ~1 us kernels; a few launch latencies is ~20 us */
    .launch_gap_max_ns = 20000.0,
};
